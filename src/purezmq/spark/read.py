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

from purezmq.journal import SEGMENT_SCHEMA, DataLossError, read_segments

from .planning import SlicePlan

log = logging.getLogger("purezmq.spark")

SOURCE_DDL = (
    "stream STRING, seq BIGINT, timestamp TIMESTAMP, topic BINARY, value BINARY, "
    "frames ARRAY<BINARY>"
)
SOURCE_DDL_NO_FRAMES = "stream STRING, seq BIGINT, timestamp TIMESTAMP, topic BINARY, value BINARY"


def output_schema(include_frames: bool) -> Any:
    """The Arrow schema of what `read_slice` yields.

    A ``stream`` column, then the segment's own columns in their order with
    their types (``_convert`` passes them through by position, unconverted):
    the journal chose those types for Spark, so they are taken from its
    schema rather than restated here.
    """
    fields = [pa.field("stream", pa.string())]
    fields += [f for f in SEGMENT_SCHEMA if include_frames or f.name != "frames"]
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
    schema = output_schema(plan.include_frames)
    skip = None if plan.fail_on_data_loss else _skip_lost_segment
    batches = read_segments(
        plan.path, plan.stream, plan.segments, plan.start, plan.end, on_missing=skip
    )
    try:
        for batch in batches:
            yield _convert(batch, plan.stream, schema)
    except DataLossError as exc:
        raise DataLossError(f"{exc} (set failOnDataLoss=false to skip)") from exc


def _skip_lost_segment(exc: DataLossError) -> None:
    """failOnDataLoss=false: say what is skipped (the journal skips it)."""
    log.warning("%s; skipping it", exc)
