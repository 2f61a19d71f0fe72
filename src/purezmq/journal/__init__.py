"""purezmq.journal: a durable, replayable journal of ZeroMQ message streams.

ZeroMQ moves messages, it does not keep them. The journal keeps them: a
capture process reads live sockets (SUB with topic filters, PULL, ROUTER) and
appends every message to a named stream with a dense sequence number, in
immutable Arrow IPC (or Parquet) segments sealed atomically. Readers - the
Spark source ``format("zmq")``, the replay device, your own code - read any
range of seqs, any number of times. Needs ``pip install 'purezmq[journal]'``
(pyarrow).

    from purezmq.journal import Journal, Capture, CaptureSource
    j = Journal.create("/data/journal")
    cap = Capture(j, [CaptureSource("orders", "PULL", bind=["tcp://*:5557"])])
    cap.run()            # until cap.stop() (the CLI stops on SIGTERM/SIGINT)

Reading, for tools and engines built on the journal (the Spark source uses
exactly this and nothing else)::

    j = Journal.open("s3://bucket/journal")      # or a path, or filesystem=...
    j.streams(); j.partitions("orders")          # a stream has partitions 0..N-1
    segs = j.segments("orders", partition=0)     # SegmentInfo: [first, end), file, CRC32C
    contiguous_runs(segs)                        # what retention left, gap by gap
    for batch in j.read("orders", 100, 200): ... # pyarrow RecordBatches, SEGMENT_SCHEMA
    read_segments(j.uri, "orders", segs, 100, 200)  # planned here, read (and checked) elsewhere

What this package exports (``__all__``) is its public API; its submodules
(``layout``, ``fs``, ``reader``, ``schema``...) are internal, so the on-disk
details can change without breaking readers. tests/unit/test_layering.py
checks that the rest of purezmq imports only these names.

See docs/pipeline.md; the CLI is ``python -m purezmq.journal --help``.
"""

from __future__ import annotations

from .capture import Capture, CaptureSource, StreamStats
from .errors import (
    CorruptSegmentError,
    DataLossError,
    JournalError,
    JournalUnreachableError,
    MissingExtraError,
    NotAJournalError,
    StreamLockedError,
)
from .headers import DEFAULT_HEADERS, default_headers
from .journal import FORMAT_VERSION, Journal, Message
from .layout import SegmentInfo, check_stream_name, contiguous_runs
from .reader import read_segments
from .replay import ReplayTarget, replay
from .schema import SCHEMA_VERSION, SEGMENT_SCHEMA
from .writer import StreamWriter

__all__ = [
    "DEFAULT_HEADERS",
    "FORMAT_VERSION",
    "SCHEMA_VERSION",
    "SEGMENT_SCHEMA",
    "Capture",
    "CaptureSource",
    "CorruptSegmentError",
    "DataLossError",
    "Journal",
    "JournalError",
    "JournalUnreachableError",
    "Message",
    "MissingExtraError",
    "NotAJournalError",
    "ReplayTarget",
    "SegmentInfo",
    "StreamLockedError",
    "StreamStats",
    "StreamWriter",
    "check_stream_name",
    "contiguous_runs",
    "default_headers",
    "read_segments",
    "replay",
]
