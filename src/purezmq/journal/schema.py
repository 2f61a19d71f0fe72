"""The Arrow schema of a segment, and turning buffered messages into a batch.

A segment holds one row per message::

    seq        int64                 dense per stream: 0, 1, 2, ...
    timestamp  timestamp[us, UTC]    when the capture received the message
    topic      binary (nullable)     frame 0 of a SUB capture, else null
    value      binary                the last (or only) frame
    frames     list<binary>          every frame of the message

The types are the ones Spark's Arrow path demands (int64, binary, microsecond
UTC timestamps), so the Spark source hands segment columns over unconverted.
Every field is nullable because Spark's own schemas are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import MissingExtraError

SCHEMA_VERSION = 1

try:
    import pyarrow as pa
except ImportError as _exc:  # pragma: no cover - exercised without the extra
    raise MissingExtraError("pyarrow", "journal") from _exc

FRAMES_TYPE = pa.list_(pa.field("element", pa.binary()))
SEGMENT_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),
        ("timestamp", pa.timestamp("us", tz="UTC")),
        ("topic", pa.binary()),
        ("value", pa.binary()),
        ("frames", FRAMES_TYPE),
    ],
    metadata={b"purezmq.journal.version": str(SCHEMA_VERSION).encode()},
)


def build_batch(
    first: int,
    timestamps_us: Sequence[int],
    topics: Sequence[bytes | None],
    frames: Sequence[Sequence[bytes]],
) -> Any:
    """One RecordBatch of messages numbered first, first+1, ..."""
    n = len(frames)
    return pa.RecordBatch.from_arrays(
        [
            pa.array(range(first, first + n), pa.int64()),
            pa.array(timestamps_us, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            pa.array(topics, pa.binary()),
            pa.array([f[-1] for f in frames], pa.binary()),
            pa.array(frames, FRAMES_TYPE),
        ],
        schema=SEGMENT_SCHEMA,
    )


def encode_segment(batch: Any, fmt: str) -> Any:
    """Serialize a batch as a whole Arrow IPC file or Parquet file (a pyarrow Buffer)."""
    sink = pa.BufferOutputStream()
    if fmt == "arrow":
        with pa.ipc.new_file(sink, batch.schema) as w:
            w.write_batch(batch)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_batches([batch]), sink, compression="zstd")
    else:
        raise ValueError(f"unknown segment format {fmt!r}: use 'arrow' or 'parquet'")
    return sink.getvalue()
