"""Executor side of the source: a planned slice in, Arrow record batches out.

``read()`` runs in Spark's Python workers on a reader unpickled from the
driver, so it is stateless: everything comes from the `SlicePlan`. It reads
(and checks: CRC32C, rows) exactly the planned segments, adds the ``stream``
and ``partition`` columns, and yields batches whose Arrow schema equals what
Spark derives from the source's schema exactly (Spark checks: int64, int32,
binary, timestamp[us, UTC], all nullable).

Under ``failOnDataLoss=false`` a planned segment that retention deleted
meanwhile, or one that fails its checksum, is skipped with a warning; the
rows it held are missing from the batch, which the query's progress shows
(``purezmq.spark.skipped(progress)``: planned minus read). Storage this
executor cannot reach is never skipped: the task fails.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from purezmq.journal import SEGMENT_SCHEMA, CorruptSegmentError, DataLossError, read_segments

from .planning import SlicePlan

log = logging.getLogger("purezmq.spark")

_DDL_BASE = (
    "stream STRING, partition INT, seq BIGINT, timestamp TIMESTAMP, topic BINARY, value BINARY"
)
_DDL_FRAMES = ", frames ARRAY<BINARY>"
_DDL_HEADERS = ", headers ARRAY<STRUCT<key: STRING, value: BINARY>>"  # Kafka's type


def source_ddl(include_frames: bool, include_headers: bool) -> str:
    """The source's Spark schema: ``frames`` unless includeFrames=false, ``headers``
    (last, as in Kafka's source) with includeHeaders=true."""
    return (
        _DDL_BASE
        + (_DDL_FRAMES if include_frames else "")
        + (_DDL_HEADERS if include_headers else "")
    )


def output_schema(include_frames: bool, include_headers: bool = False) -> Any:
    """The Arrow schema of what `read_slice` yields.

    ``stream`` and ``partition``, then the segment's own columns in their
    order with their types (``_convert`` passes them through by name,
    unconverted): the journal chose those types for Spark, so they are taken
    from its schema rather than restated here.
    """
    drop = {"frames"} if not include_frames else set()
    drop |= {"headers"} if not include_headers else set()
    fields = [pa.field("stream", pa.string()), pa.field("partition", pa.int32())]
    fields += [f for f in SEGMENT_SCHEMA if f.name not in drop]
    return pa.schema(fields)


def _convert(batch: Any, plan: SlicePlan, schema: Any) -> Any:
    n = batch.num_rows
    cols = [
        pa.repeat(pa.scalar(plan.stream, pa.string()), n),
        pa.repeat(pa.scalar(plan.partition, pa.int32()), n),
    ]
    cols += [batch.column(name) for name in schema.names[2:]]
    return pa.RecordBatch.from_arrays(cols, schema=schema)


def read_slice(plan: SlicePlan | None) -> Iterator[Any]:
    """The rows of one planned slice, as Arrow record batches.

    `plan` is None when Spark asks a batch read with nothing to read for
    its one partition (it calls ``read(InputPartition(None))`` when
    ``partitions()`` returned none): no rows.
    """
    if plan is None:
        return
    schema = output_schema(plan.include_frames, plan.include_headers)
    lenient = not plan.fail_on_data_loss
    batches = read_segments(
        plan.path, plan.stream, plan.segments, plan.start, plan.end,
        on_missing=_skip_lost if lenient else None,
        on_corrupt=_skip_corrupt if lenient else None,
        journal_id=plan.journal_id,
    )  # fmt: skip
    try:
        for batch in batches:
            yield _convert(batch, plan, schema)
    except (DataLossError, CorruptSegmentError) as exc:
        raise type(exc)(f"{exc} (set failOnDataLoss=false to skip)") from exc


def _skip_lost(exc: DataLossError) -> None:
    """failOnDataLoss=false: say what is skipped (the journal skips it)."""
    log.warning("%s; skipping it (failOnDataLoss=false)", exc)


def _skip_corrupt(exc: CorruptSegmentError) -> None:
    log.warning("%s; skipping this segment (failOnDataLoss=false)", exc)
