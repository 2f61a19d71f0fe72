"""The Arrow schemas of segments: how messages are stored, and how they are read.

Readers always get the *logical* schema, `SEGMENT_SCHEMA`, one row per
message::

    seq        int64                 dense per stream partition: 0, 1, 2, ...
    timestamp  timestamp[us, UTC]    when the capture received the message
    topic      binary (nullable)     frame 0 of a SUB capture, else null
    value      binary                the last (or only) frame
    frames     list<binary>          every frame of the message
    headers    list<struct<key: string, value: binary>> (nullable)
                                     connection properties, when the capture
                                     recorded them (else null), as Kafka's

The types are the ones Spark's Arrow path demands (int64, binary, microsecond
UTC timestamps, Kafka's header type), so the Spark source hands these columns
over unconverted. Every field is nullable because Spark's own schemas are.

Segments *store* each frame once (schema version 2): ``seq``, ``timestamp``
and ``frames``; ``value`` is the last frame of ``frames`` and ``topic`` its
first one when the segment's metadata says ``purezmq.topic: frame0`` (a SUB
capture), so reading gathers them with one vectorised take, no Python loop.
Only a writer given topics that are not frame 0 stores a ``topic`` column
(``purezmq.topic: column``). Version-1 segments stored ``topic`` and
``value`` beside ``frames`` (each message about twice); they are read as they
are.

Version 3 is version 2 plus a ``headers`` column, written only when a capture
records headers (so every other segment stays version 2, readable by older
purezmq). Headers are properties of a *connection*, so a segment holds few
distinct header lists, each shared by thousands of messages: Arrow segments
store the column dictionary-encoded (one int32 per message, each distinct
list once); Parquet, which cannot write dictionaries of nested types, stores
it plain and dictionary-encodes its leaf columns itself.

Arrays are built from buffers (`binary_array` and friends): one ``b"".join``
and one offsets array per column instead of ``pa.array`` over Python lists,
which infers a type per item and, on a list, imports pandas (a quarter of a
second, the first time, in the middle of a capture).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, cast

from .errors import CorruptSegmentError, JournalError, MissingExtraError

SCHEMA_VERSION = 3
VERSION_KEY = b"purezmq.journal.version"
TOPIC_KEY = b"purezmq.topic"

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError as _exc:  # pragma: no cover - exercised without the extra
    raise MissingExtraError("pyarrow", "journal") from _exc

FRAMES_TYPE = pa.list_(pa.field("element", pa.binary()))
TIMESTAMP_TYPE = pa.timestamp("us", tz="UTC")
HEADER_TYPE = pa.struct([("key", pa.string()), ("value", pa.binary())])
HEADERS_TYPE = pa.list_(pa.field("element", HEADER_TYPE))
SEGMENT_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),
        ("timestamp", TIMESTAMP_TYPE),
        ("topic", pa.binary()),
        ("value", pa.binary()),
        ("frames", FRAMES_TYPE),
        ("headers", HEADERS_TYPE),
    ],
    metadata={VERSION_KEY: str(SCHEMA_VERSION).encode()},
)
_STORED_FIELDS = [("seq", pa.int64()), ("timestamp", TIMESTAMP_TYPE), ("frames", FRAMES_TYPE)]
_TOPIC_MODES = ("none", "frame0", "column")

#: One message's headers: (key, value) pairs, in the order recorded.
Headers = tuple[tuple[str, bytes], ...]

_I32 = next(code for code in "ilh" if array(code).itemsize == 4)


def _offsets(lengths: Any) -> Any:
    """int32 offsets (a pyarrow Buffer) from an iterable of lengths."""
    try:
        return pa.py_buffer(array(_I32, accumulate(lengths, initial=0)))
    except OverflowError:
        raise JournalError(
            "a segment column passed 2 GiB (Arrow's 32-bit offsets): lower seal_bytes"
        ) from None


def binary_array(items: Sequence[bytes], typ: Any = None) -> Any:
    """A binary (or string, given `typ`) array of `items`, built from two buffers."""
    buffers = [None, _offsets(map(len, items)), pa.py_buffer(b"".join(items))]
    return pa.Array.from_buffers(typ or pa.binary(), len(items), buffers)


def _validity(items: Sequence[object]) -> Any:
    """Arrow's validity bitmap of `items` (None is null), or None when none is null."""
    if all(x is not None for x in items):
        return None
    bits = bytearray((len(items) + 7) // 8)
    for i, x in enumerate(items):  # rare (mixed buffers): a Python loop is fine
        if x is not None:
            bits[i >> 3] |= 1 << (i & 7)
    return pa.py_buffer(bits)


def nullable_binary_array(items: Sequence[bytes | None]) -> Any:
    """`binary_array` where None items are nulls."""
    valid = _validity(items)
    data = [b"" if x is None else x for x in items] if valid is not None else items
    arr = binary_array(cast("Sequence[bytes]", data))
    return pa.Array.from_buffers(pa.binary(), len(items), [valid, *arr.buffers()[1:]])


def int64_array(values: Any, typ: Any = None) -> Any:
    """An int64 (or timestamp, given `typ`) array from an iterable of ints."""
    data = array("q", values)
    return pa.Array.from_buffers(typ or pa.int64(), len(data), [None, pa.py_buffer(data)])


def list_array(counts: Sequence[int], values: Any, typ: Any) -> Any:
    """A list array: message i holds the next `counts[i]` items of `values`."""
    return pa.Array.from_buffers(typ, len(counts), [None, _offsets(counts)], children=[values])


def headers_array(sets: Sequence[Headers]) -> Any:
    """`HEADERS_TYPE` array of distinct header lists (the dictionary of a segment)."""
    keys = [k.encode() for h in sets for k, _ in h]
    values = [v for h in sets for _, v in h]
    pairs = pa.StructArray.from_arrays(
        [binary_array(keys, pa.string()), binary_array(values)], fields=list(HEADER_TYPE)
    )
    return list_array([len(h) for h in sets], pairs, HEADERS_TYPE)


def _stored_schema(topic_mode: str, headers: Any) -> Any:
    fields = list(_STORED_FIELDS)
    if topic_mode == "column":
        fields.append(("topic", pa.binary()))
    version = 2
    if headers is not None:
        fields.append(("headers", headers))
        version = 3
    meta = {VERSION_KEY: str(version).encode(), TOPIC_KEY: topic_mode.encode()}
    return pa.schema(fields, metadata=meta)


def build_batch(
    first: int,
    timestamps_us: Sequence[int],
    parts: Sequence[bytes],
    counts: Sequence[int],
    *,
    topic_mode: str = "none",
    topics: Sequence[bytes | None] | None = None,
    header_sets: Sequence[Headers] | None = None,
    header_ix: Sequence[int | None] | None = None,
    fmt: str = "arrow",
) -> Any:
    """One stored RecordBatch of messages numbered first, first+1, ...

    Message i has the next `counts[i]` frames of `parts` (each frame once);
    `topic_mode` says where its topic is ("none", "frame0", or "column" with
    `topics`); with `header_sets`, message i's headers are
    ``header_sets[header_ix[i]]`` (None: not recorded).
    """
    n = len(counts)
    cols = [
        int64_array(range(first, first + n)),
        int64_array(timestamps_us, TIMESTAMP_TYPE),
        list_array(counts, binary_array(parts), FRAMES_TYPE),
    ]
    if topic_mode == "column":
        assert topics is not None
        cols.append(nullable_binary_array(topics))
    headers = None
    if header_sets is not None and header_ix is not None:
        dictionary = headers_array(header_sets)
        valid = _validity(header_ix)  # None but for messages appended without headers
        data = array(_I32, cast("list[int]", header_ix) if valid is None else
                     [0 if i is None else i for i in header_ix])  # fmt: skip
        indices = pa.Array.from_buffers(pa.int32(), n, [valid, pa.py_buffer(data)])
        headers = pa.DictionaryArray.from_arrays(indices, dictionary)
        if fmt == "parquet":  # Parquet cannot write dictionaries of nested types
            headers = dictionary.take(indices)
        cols.append(headers)
    schema = _stored_schema(topic_mode, None if headers is None else headers.type)
    return pa.RecordBatch.from_arrays(cols, schema=schema)


def to_logical(batch: Any, where: str) -> Any:
    """A stored batch (version 1, 2 or 3) as `SEGMENT_SCHEMA`; CorruptSegmentError if neither."""
    schema = batch.schema
    meta = schema.metadata or {}
    version = meta.get(VERSION_KEY, b"1")
    n = batch.num_rows
    if version == b"1":
        names = SEGMENT_SCHEMA.names[:-1]
        if schema.names != names:
            raise CorruptSegmentError(f"{where} has columns {schema.names}, expected {names}")
        cols = [*batch.columns, pa.nulls(n, HEADERS_TYPE)]
        return pa.RecordBatch.from_arrays(cols, schema=SEGMENT_SCHEMA)
    mode = meta.get(TOPIC_KEY, b"").decode()
    if version not in (b"2", b"3") or mode not in _TOPIC_MODES:
        raise CorruptSegmentError(f"{where}: unknown segment schema {version!r}/{mode!r}")
    names = [name for name, _ in _STORED_FIELDS] + (["topic"] if mode == "column" else [])
    names += ["headers"] if version == b"3" else []
    if schema.names != names:
        raise CorruptSegmentError(f"{where} has columns {schema.names}, expected {names}")
    frames = batch.column(2)
    if frames.null_count or (n and pc.min(pc.list_value_length(frames)).as_py() < 1):
        raise CorruptSegmentError(f"{where} holds a message without frames")
    offsets = frames.offsets
    values = frames.values
    value = values.take(pc.subtract(offsets.slice(1), 1))
    if mode == "frame0":
        topic = values.take(offsets.slice(0, n))
    elif mode == "column":
        topic = batch.column(3)
    else:
        topic = pa.nulls(n, pa.binary())
    headers = pa.nulls(n, HEADERS_TYPE)
    if version == b"3":
        headers = batch.column(len(names) - 1)
        if pa.types.is_dictionary(headers.type):
            headers = headers.dictionary.take(headers.indices)
        if headers.type != HEADERS_TYPE:
            raise CorruptSegmentError(f"{where}: headers of type {headers.type}")
    return pa.RecordBatch.from_arrays(
        [batch.column(0), batch.column(1), topic, value, frames, headers], schema=SEGMENT_SCHEMA
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
