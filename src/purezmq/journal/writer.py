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
from typing import TYPE_CHECKING, Any

from .crc import crc32c
from .errors import CorruptSegmentError, JournalError
from .layout import TEMP_PREFIX, SegmentInfo, contiguous_runs, join, partition_subdir, segment_name
from .schema import build_batch, encode_segment

if TYPE_CHECKING:
    from .journal import Journal

DEFAULT_SEAL_BYTES = 8 << 20
DEFAULT_SEAL_AGE_S = 0.5


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
        self._ts: list[int] = []
        self._topics: list[bytes | None] = []
        self._frames: list[list[bytes]] = []
        self._bytes = 0
        self._oldest = 0.0

    # ---------------------------------------------------------------- append
    @property
    def next_seq(self) -> int:
        """The seq the next appended message will get."""
        return self.sealed_end + len(self._frames)

    @property
    def pending(self) -> int:
        """How many appended messages are not sealed yet."""
        return len(self._frames)

    def append(
        self,
        frames: Sequence[Any],
        *,
        topic: bytes | None = None,
        timestamp_us: int | None = None,
    ) -> int:
        """Buffer one message (its frames, bytes-like) and return its seq.

        Seals first if the buffer is due. The message is durable only once
        `sealed_end` has passed its seq.
        """
        if self._closed:
            raise JournalError(f"writer of {self.stream!r} partition {self.partition} is closed")
        if not frames:
            raise ValueError("a message has at least one frame")
        msg = [bytes(f) for f in frames]
        now = time.monotonic()
        if not self._frames:
            self._oldest = now
        self._ts.append(time.time_ns() // 1000 if timestamp_us is None else timestamp_us)
        self._topics.append(topic)
        self._frames.append(msg)
        self._bytes += sum(len(f) for f in msg) + 32
        seq = self.next_seq - 1
        if self.due(now):
            self.seal()
        return seq

    def due(self, now: float | None = None) -> bool:
        """Whether the buffer should be sealed now (size, count or age)."""
        if not self._frames:
            return False
        if self._bytes >= self.seal_bytes:
            return True
        if self.seal_count is not None and len(self._frames) >= self.seal_count:
            return True
        now = time.monotonic() if now is None else now
        return now - self._oldest >= self.seal_age_s

    def deadline(self) -> float | None:
        """The monotonic time the buffer becomes due by age (None when empty)."""
        return self._oldest + self.seal_age_s if self._frames else None

    def seal(self) -> SegmentInfo | None:
        """Write the buffer as a sealed segment now; None if it was empty.

        temp file -> fsync -> rename -> directory fsync: after this returns the
        messages survive a crash, and no reader ever saw a partial file.
        """
        if not self._frames:
            return None
        first, end = self.sealed_end, self.next_seq
        batch = build_batch(first, self._ts, self._topics, self._frames)
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
