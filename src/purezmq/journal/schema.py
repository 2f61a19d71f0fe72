"""The Arrow schemas of segments: how messages are stored, and how they are read.

Readers always get the *logical* schema, `SEGMENT_SCHEMA`, one row per
message::

    seq        int64                 dense per stream partition: 0, 1, 2, ...
    timestamp  timestamp[us, UTC]    when the capture received the message
    topic      binary (nullable)     frame 0 of a SUB capture, else null
    value      binary                the last (or only) frame
    frames     list<binary>          every frame of the message

The types are the ones Spark's Arrow path demands (int64, binary, microsecond
UTC timestamps), so the Spark source hands these columns over unconverted.
Every field is nullable because Spark's own schemas are.

Segments *store* each frame once (schema version 2): ``seq``, ``timestamp``
and ``frames``; ``value`` is the last frame of ``frames`` and ``topic`` its
first one when the segment's metadata says ``purezmq.topic: frame0`` (a SUB
capture), so reading gathers them with one vectorised take, no Python loop.
Only a writer given topics that are not frame 0 stores a ``topic`` column
(``purezmq.topic: column``). Version-1 segments stored ``topic`` and
``value`` beside ``frames`` (each message about twice); they are read as they
are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import CorruptSegmentError, MissingExtraError

SCHEMA_VERSION = 2
VERSION_KEY = b"purezmq.journal.version"
TOPIC_KEY = b"purezmq.topic"

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError as _exc:  # pragma: no cover - exercised without the extra
    raise MissingExtraError("pyarrow", "journal") from _exc

FRAMES_TYPE = pa.list_(pa.field("element", pa.binary()))
TIMESTAMP_TYPE = pa.timestamp("us", tz="UTC")
SEGMENT_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),
        ("timestamp", TIMESTAMP_TYPE),
        ("topic", pa.binary()),
        ("value", pa.binary()),
        ("frames", FRAMES_TYPE),
    ],
    metadata={VERSION_KEY: str(SCHEMA_VERSION).encode()},
)
_STORED_FIELDS = [("seq", pa.int64()), ("timestamp", TIMESTAMP_TYPE), ("frames", FRAMES_TYPE)]


def _stored_schema(topic_mode: str) -> Any:
    fields = list(_STORED_FIELDS)
    if topic_mode == "column":
        fields.append(("topic", pa.binary()))
    return pa.schema(
        fields, metadata={VERSION_KEY: str(SCHEMA_VERSION).encode(), TOPIC_KEY: topic_mode.encode()}
    )


def _topic_mode(topics: Sequence[bytes | None], frames: Sequence[Sequence[bytes]]) -> str:
    if all(t is None for t in topics):
        return "none"
    if all(t is not None and t == f[0] for t, f in zip(topics, frames, strict=True)):
        return "frame0"
    return "column"


def build_batch(
    first: int,
    timestamps_us: Sequence[int],
    topics: Sequence[bytes | None],
    frames: Sequence[Sequence[bytes]],
) -> Any:
    """One stored RecordBatch of messages numbered first, first+1, ... (each frame once)."""
    n = len(frames)
    mode = _topic_mode(topics, frames)
    cols = [
        pa.array(range(first, first + n), pa.int64()),
        pa.array(timestamps_us, pa.int64()).cast(TIMESTAMP_TYPE),
        pa.array(frames, FRAMES_TYPE),
    ]
    if mode == "column":
        cols.append(pa.array(topics, pa.binary()))
    return pa.RecordBatch.from_arrays(cols, schema=_stored_schema(mode))


def to_logical(batch: Any, where: str) -> Any:
    """A stored batch (version 1 or 2) as `SEGMENT_SCHEMA`; CorruptSegmentError if neither."""
    schema = batch.schema
    meta = schema.metadata or {}
    version = meta.get(VERSION_KEY, b"1")
    if version == b"1":
        if schema.names != SEGMENT_SCHEMA.names:
            raise CorruptSegmentError(
                f"{where} has columns {schema.names}, expected {SEGMENT_SCHEMA.names}"
            )
        return pa.RecordBatch.from_arrays(batch.columns, schema=SEGMENT_SCHEMA)
    mode = meta.get(TOPIC_KEY, b"").decode()
    if version != str(SCHEMA_VERSION).encode() or mode not in ("none", "frame0", "column"):
        raise CorruptSegmentError(f"{where}: unknown segment schema {version!r}/{mode!r}")
    names = [name for name, _ in _STORED_FIELDS] + (["topic"] if mode == "column" else [])
    if schema.names != names:
        raise CorruptSegmentError(f"{where} has columns {schema.names}, expected {names}")
    frames = batch.column(2)
    if frames.null_count or (len(frames) and pc.min(pc.list_value_length(frames)).as_py() < 1):
        raise CorruptSegmentError(f"{where} holds a message without frames")
    offsets = frames.offsets
    values = frames.values
    value = values.take(pc.subtract(offsets.slice(1), 1))
    if mode == "frame0":
        topic = values.take(offsets.slice(0, len(frames)))
    elif mode == "column":
        topic = batch.column(3)
    else:
        topic = pa.nulls(len(frames), pa.binary())
    return pa.RecordBatch.from_arrays(
        [batch.column(0), batch.column(1), topic, value, frames], schema=SEGMENT_SCHEMA
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
