"""Executor side of the source: a planned slice in, Arrow record batches out.

``read()`` runs in Spark's Python workers on a reader unpickled from the
driver, so it is stateless: everything comes from the `SlicePlan`. It slices
segments by position (seqs are dense), adds the ``stream`` column, and yields
batches whose Arrow schema equals what Spark derives from the source's schema
exactly (Spark checks: int64, binary, timestamp[us, UTC], all nullable).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from purezmq.journal.errors import DataLossError
from purezmq.journal.fs import open_fs
from purezmq.journal.layout import stream_dir
from purezmq.journal.reader import iter_range
from purezmq.journal.schema import FRAMES_TYPE

from .planning import SlicePlan

log = logging.getLogger("purezmq.spark")

SOURCE_DDL = (
    "stream STRING, seq BIGINT, timestamp TIMESTAMP, topic BINARY, value BINARY, "
    "frames ARRAY<BINARY>"
)
SOURCE_DDL_NO_FRAMES = "stream STRING, seq BIGINT, timestamp TIMESTAMP, topic BINARY, value BINARY"


def output_schema(include_frames: bool) -> Any:
    """The Arrow schema of what `read_slice` yields."""
    fields = [
        pa.field("stream", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        pa.field("topic", pa.binary()),
        pa.field("value", pa.binary()),
    ]
    if include_frames:
        fields.append(pa.field("frames", FRAMES_TYPE))
    return pa.schema(fields)


def _convert(batch: Any, stream: str, schema: Any) -> Any:
    cols = [pa.repeat(pa.scalar(stream, pa.string()), batch.num_rows)]
    cols += [batch.column(i) for i in range(len(schema) - 1)]
    return pa.RecordBatch.from_arrays(cols, schema=schema)


def read_slice(plan: SlicePlan) -> Iterator[Any]:
    """The rows of one planned slice, as Arrow record batches.

    A planned segment deleted by retention before this task ran is a
    DataLossError when failOnDataLoss is true, and skipped (with a warning)
    otherwise.
    """
    fs, root = open_fs(plan.path)
    directory = stream_dir(root, plan.stream)
    schema = output_schema(plan.include_frames)
    for seg in plan.segments:
        try:
            batches = list(iter_range(fs, directory, [seg], plan.start, plan.end))
        except DataLossError as exc:
            if plan.fail_on_data_loss:
                raise DataLossError(f"{exc} (set failOnDataLoss=false to skip)") from exc
            log.warning("%s; skipping it", exc)
            continue
        for batch in batches:
            yield _convert(batch, plan.stream, schema)
