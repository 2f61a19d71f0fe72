"""Appending to one partition of a stream: buffer messages, seal them into segments.

A `StreamWriter` gives each appended message the next dense seq of its
partition, keeps it in
memory, and *seals* the buffer into an immutable segment when it reaches
`seal_bytes`, when its oldest message is `seal_age_s` old, or on demand.
Only sealed messages are durable: a crash loses the unsealed buffer and
nothing else, and the numbering resumes after the last sealed segment.

Opening a writer takes the partition's lock (one writer per partition, or
the seqs would not be dense), removes temporary files an earlier crash left,
and finds the next seq from the directory listing. Sealing computes the
segment's CRC32C and puts it in the segment's name.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any

from .crc import crc32c
from .errors import CorruptSegmentError, JournalError
from .layout import TEMP_PREFIX, SegmentInfo, contiguous_runs, join, partition_subdir, segment_name
from .schema import Headers, build_batch, encode_segment

if TYPE_CHECKING:
    from .journal import Journal

DEFAULT_SEAL_BYTES = 8 << 20
DEFAULT_SEAL_AGE_S = 0.5
_OVERHEAD = 32  # bytes a message costs beside its frames, for seal_bytes
HEADERS_VERSION = 3  # the journal format that may hold segments with headers


class StreamWriter:
    """The single writer of one stream partition. Use as a context manager, or close()."""

    def __init__(
        self,
        journal: Journal,
        stream: str,
        *,
        partition: int = 0,
        seal_bytes: int = DEFAULT_SEAL_BYTES,
        seal_age_s: float = DEFAULT_SEAL_AGE_S,
        seal_count: int | None = None,
        segment_format: str | None = None,
        on_seal: Callable[[str, SegmentInfo], None] | None = None,
    ) -> None:
        if seal_bytes <= 0 or seal_age_s <= 0 or (seal_count is not None and seal_count <= 0):
            raise ValueError("seal_bytes, seal_age_s and seal_count must be positive")
        self.journal = journal
        self.stream = stream
        self.partition = partition
        self.subdir = partition_subdir(partition)
        self.directory = journal.partition_path(stream, partition)
        self.seal_bytes = seal_bytes
        self.seal_age_s = seal_age_s
        self.seal_count = seal_count
        self.fmt = segment_format or journal.segment_format
        self.on_seal = on_seal
        fs = journal.fs
        journal.upgrade()
        fs.makedirs(self.directory)
        self._lock = fs.lock(self.directory)
        try:
            self._clean_temps()
            self.sealed_end = self._find_end()
        except BaseException:
            fs.unlock(self._lock)
            raise
        self._closed = False
        self._reset_buffer()

    def _clean_temps(self) -> None:
        """Remove segments an earlier writer was writing when it died (we hold the lock)."""
        if not self.journal.fs.local:
            return  # no lock there: a temp may belong to a live writer elsewhere
        for e in self.journal.fs.list(self.directory):
            if e.name.startswith(TEMP_PREFIX):
                self.journal.fs.delete(join(self.directory, e.name))

    def _find_end(self) -> int:
        segs = self.journal.segments(self.stream, self.partition)
        runs = contiguous_runs(segs)
        if len(runs) > 1 or any(a.end > b.first for a, b in itertools.pairwise(segs)):
            raise CorruptSegmentError(
                f"stream {self.stream!r} partition {self.partition} has gaps or overlaps "
                f"{runs}; refusing to append"
            )
        return segs[-1].end if segs else 0

    def _reset_buffer(self) -> None:
        # Flat buffers, so sealing builds each column from one list in C:
        # every frame of every message in `_parts`, frames per message in
        # `_counts`. Topics and headers are kept only when messages have them.
        self._ts: list[int] = []
        self._parts: list[bytes] = []
        self._counts: list[int] = []
        self._mode = ""  # where topics are: "none", "frame0", "column" ("" while empty)
        self._topics: list[bytes | None] | None = None  # "column" mode only
        self._header_sets: dict[Headers, int] | None = None  # distinct lists -> index
        self._header_ix: list[int | None] | None = None
        self._bytes = 0
        self._oldest = 0.0

    # ---------------------------------------------------------------- append
    @property
    def next_seq(self) -> int:
        """The seq the next appended message will get."""
        return self.sealed_end + len(self._counts)

    @property
    def pending(self) -> int:
        """How many appended messages are not sealed yet."""
        return len(self._counts)

    def append(
        self,
        frames: Sequence[Any],
        *,
        topic: bytes | None = None,
        timestamp_us: int | None = None,
        headers: Headers | None = None,
    ) -> int:
        """Buffer one message (its frames, bytes-like) and return its seq.

        `headers` are (key, value) pairs kept with the message (see
        `Capture`'s ``headers``). Seals first if the buffer is due. The
        message is durable only once `sealed_end` has passed its seq.
        """
        self._check_open()
        if not frames:
            raise ValueError("a message has at least one frame")
        msg = [bytes(f) for f in frames]
        mode = "none" if topic is None else "frame0" if topic == msg[0] else "column"
        ts = time.time_ns() // 1000 if timestamp_us is None else timestamp_us
        hdrs = None if headers is None else [tuple((str(k), bytes(v)) for k, v in headers)]
        self._add([msg], ts, mode, [topic], hdrs, sum(map(len, msg)) + _OVERHEAD)
        seq = self.next_seq - 1
        if self.due():
            self.seal()
        return seq

    def append_many(
        self,
        messages: Sequence[Sequence[bytes]],
        *,
        timestamp_us: int | None = None,
        topic_is_frame0: bool = False,
        headers: Sequence[Headers | None] | None = None,
    ) -> int:
        """Buffer messages received together; returns the seq of the first.

        For captures, which drain whatever a socket has queued on each
        wake-up: the buffers take the whole list at once (C-level extends,
        no per-message Python), and the messages share one timestamp (they
        were all queued by then). Frames must be ``bytes`` and are kept, not
        copied. `topic_is_frame0` marks SUB messages (topic = frame 0);
        `headers`, if given, holds one entry per message. Seals as `append`
        would have: a segment never takes more messages than `seal_count`,
        nor more past `seal_bytes` than the message that reached it.
        """
        self._check_open()
        first = self.next_seq
        n = len(messages)
        if not all(messages):
            raise ValueError("a message has at least one frame")
        if headers is not None and len(headers) != n:
            raise ValueError("one headers entry per message")
        ts = time.time_ns() // 1000 if timestamp_us is None else timestamp_us
        mode = "frame0" if topic_is_frame0 else "none"
        i = 0
        while i < n:
            k, nbytes = self._fit(messages, i)
            whole = i == 0 and k == n
            chunk = messages if whole else messages[i : i + k]
            hdrs = headers if headers is None or whole else headers[i : i + k]
            self._add(chunk, ts, mode, None, hdrs, nbytes)
            i += k
            if self.due():
                self.seal()
        return first

    def _check_open(self) -> None:
        if self._closed:
            raise JournalError(f"writer of {self.stream!r} partition {self.partition} is closed")

    def _fit(self, messages: Sequence[Sequence[bytes]], i: int) -> tuple[int, int]:
        """How many of messages[i:] go in before the buffer is due (>= 1), and their size."""
        rest = len(messages) - i
        if self.seal_count is not None:
            rest = min(rest, max(1, self.seal_count - len(self._counts)))
        tail = messages if i == 0 and rest == len(messages) else messages[i : i + rest]
        room = self.seal_bytes - self._bytes
        size = sum(map(len, chain.from_iterable(tail))) + _OVERHEAD * rest
        if size < room:
            return rest, size
        size = 0  # this chunk fills the segment: find the message that does (once per seal)
        for j, msg in enumerate(tail):
            size += sum(map(len, msg)) + _OVERHEAD
            if size >= room:
                return j + 1, size
        return rest, size  # pragma: no cover - the sum above said it would fill

    def _add(
        self,
        msgs: Sequence[Sequence[bytes]],
        ts: int,
        mode: str,
        topics: list[bytes | None] | None,
        headers: Sequence[Headers | None] | None,
        nbytes: int,
    ) -> None:
        k = len(msgs)
        if not self._counts:
            self._oldest = time.monotonic()
            self._mode = mode
            self._topics = [] if mode == "column" else None
        elif self._mode not in (mode, "column"):
            self._topics = self._buffered_topics()
            self._mode = "column"
        if self._topics is not None:
            if mode == "column":
                assert topics is not None
                self._topics.extend(topics)
            elif mode == "frame0":
                self._topics.extend([m[0] for m in msgs])
            else:
                self._topics.extend(repeat(None, k))
        if headers is not None or self._header_ix is not None:
            if self._header_ix is None or self._header_sets is None:
                self._header_sets = {}
                self._header_ix = [None] * len(self._counts)
            if headers is None:
                self._header_ix.extend(repeat(None, k))
            else:
                sets = self._header_sets
                self._header_ix.extend(
                    [None if h is None else sets.setdefault(h, len(sets)) for h in headers]
                )
        self._ts.extend(repeat(ts, k))
        self._parts.extend(chain.from_iterable(msgs))
        self._counts.extend(map(len, msgs))
        self._bytes += nbytes

    def _buffered_topics(self) -> list[bytes | None]:
        """The topics of the buffered messages, when the buffer turns to a topic column."""
        if self._mode == "frame0":
            starts = accumulate(self._counts[:-1], initial=0)
            return [self._parts[s] for s in starts]
        return [None] * len(self._counts)

    def due(self, now: float | None = None) -> bool:
        """Whether the buffer should be sealed now (size, count or age)."""
        if not self._counts:
            return False
        if self._bytes >= self.seal_bytes:
            return True
        if self.seal_count is not None and len(self._counts) >= self.seal_count:
            return True
        now = time.monotonic() if now is None else now
        return now - self._oldest >= self.seal_age_s

    def deadline(self) -> float | None:
        """The monotonic time the buffer becomes due by age (None when empty)."""
        return self._oldest + self.seal_age_s if self._counts else None

    def seal(self) -> SegmentInfo | None:
        """Write the buffer as a sealed segment now; None if it was empty.

        temp file -> fsync -> rename -> directory fsync: after this returns the
        messages survive a crash, and no reader ever saw a partial file.
        """
        if not self._counts:
            return None
        first, end = self.sealed_end, self.next_seq
        sets = None if self._header_sets is None else list(self._header_sets)
        if sets is not None:
            self.journal.upgrade(HEADERS_VERSION)  # before the first segment older readers lack
        batch = build_batch(
            first, self._ts, self._parts, self._counts, topic_mode=self._mode,
            topics=self._topics, header_sets=sets, header_ix=self._header_ix, fmt=self.fmt,
        )  # fmt: skip
        data = encode_segment(batch, self.fmt)
        name = segment_name(first, end, self.fmt, crc32c(data))
        self.journal.fs.write_atomic(self.directory, name, data)
        seg = SegmentInfo(first, end, name, data.size, time.time(), self.subdir)
        self.sealed_end = end
        self._reset_buffer()
        if self.on_seal is not None:
            self.on_seal(self.stream, seg)
        return seg

    def close(self) -> None:
        """Seal what is buffered and release the stream's lock."""
        if self._closed:
            return
        try:
            self.seal()
        finally:
            self._closed = True
            self.journal.fs.unlock(self._lock)

    def __enter__(self) -> StreamWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
