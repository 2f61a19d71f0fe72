"""The journal: a directory of named streams of sealed, immutable segments.

This object only *looks*: listing, reading, retention. Appending goes through
a `StreamWriter` (``journal.writer(stream)``), of which there is one per
stream at a time. Everything here works from directory listings, so readers
never coordinate with the writer: a sealed segment appears atomically and
never changes, a segment being written is invisible.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import DataLossError, JournalError, NotAJournalError
from .fs import JournalFS, open_fs
from .layout import (
    FORMATS,
    JOURNAL_FILE,
    SegmentInfo,
    check_stream_name,
    contiguous_runs,
    join,
    parse_segment_name,
    stream_dir,
    stream_from_dirname,
    streams_dir,
)

if TYPE_CHECKING:
    from .writer import StreamWriter

FORMAT_NAME = "purezmq-journal"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Message:
    """One journaled message, as returned by `Journal.messages`."""

    stream: str
    seq: int
    timestamp_us: int
    topic: bytes | None
    frames: list[bytes]

    @property
    def value(self) -> bytes:
        """The last (or only) frame."""
        return self.frames[-1]


class Journal:
    """A journal directory. Make one with `Journal.create` or `Journal.open`."""

    def __init__(self, fs: JournalFS, root: str, meta: dict[str, Any], uri: str) -> None:
        self.fs = fs
        self.root = root
        self.uri = uri
        self.meta = meta

    # ------------------------------------------------------------ open/create
    @classmethod
    def create(cls, path: str, *, segment_format: str = "arrow", filesystem: Any = None) -> Journal:
        """Open the journal at `path`, creating it (with a new id) if absent.

        An existing journal keeps its id and segment format; asking for a
        different format is an error rather than a silent mix.
        """
        if segment_format not in FORMATS:
            raise JournalError(f"unknown segment format {segment_format!r}: use one of {FORMATS}")
        fs, root = open_fs(path, filesystem)
        try:
            j = cls.open(path, filesystem=filesystem)
        except NotAJournalError:
            fs.makedirs(streams_dir(root))
            meta = {
                "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "format": FORMAT_NAME,
                "journalId": uuid.uuid4().hex,
                "segmentFormat": segment_format,
                "version": FORMAT_VERSION,
            }
            data = json.dumps(meta, indent=2, sort_keys=True).encode() + b"\n"
            try:
                fs.write_atomic(root, JOURNAL_FILE, data)
            except FileExistsError:  # another process created it first
                pass
            return cls.open(path, filesystem=filesystem)
        if j.segment_format != segment_format:
            raise JournalError(
                f"journal {path} stores {j.segment_format} segments, not {segment_format}"
            )
        return j

    @classmethod
    def open(cls, path: str, *, filesystem: Any = None) -> Journal:
        """Open an existing journal; NotAJournalError if `path` holds none."""
        fs, root = open_fs(path, filesystem)
        try:
            raw = fs.read_bytes(join(root, JOURNAL_FILE))
        except (FileNotFoundError, OSError) as exc:
            raise NotAJournalError(
                f"{path} is not a purezmq journal (no {JOURNAL_FILE}); "
                "create one with `python -m purezmq.journal init PATH` or Journal.create()"
            ) from exc
        try:
            meta = json.loads(raw)
        except ValueError as exc:
            raise NotAJournalError(f"{path}/{JOURNAL_FILE} is not valid JSON: {exc}") from exc
        if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
            raise NotAJournalError(f"{path}/{JOURNAL_FILE} does not describe a {FORMAT_NAME}")
        if not isinstance(meta.get("version"), int) or meta["version"] > FORMAT_VERSION:
            raise NotAJournalError(
                f"{path} has journal format version {meta.get('version')!r}; "
                f"this purezmq reads versions up to {FORMAT_VERSION}"
            )
        return cls(fs, root, meta, path)

    @property
    def journal_id(self) -> str:
        """A random id made at creation: a re-created journal has a new one."""
        return str(self.meta["journalId"])

    @property
    def segment_format(self) -> str:
        """'arrow' or 'parquet': what new segments are written as."""
        return str(self.meta.get("segmentFormat", "arrow"))

    def __repr__(self) -> str:
        return f"<Journal {self.uri} id={self.journal_id}>"

    # ---------------------------------------------------------------- listing
    def streams(self) -> list[str]:
        """Names of every stream, sorted."""
        names = (stream_from_dirname(e.name) for e in self.fs.list(streams_dir(self.root)))
        return sorted(n for n in names if n is not None)

    def stream_path(self, stream: str) -> str:
        """Where a stream's segments live."""
        return stream_dir(self.root, stream)

    def segments(self, stream: str) -> list[SegmentInfo]:
        """Sealed segments of `stream`, sorted by first seq (from a listing only)."""
        out = []
        for e in self.fs.list(self.stream_path(stream)):
            seg = parse_segment_name(e.name, e.size, e.mtime)
            if seg is not None:
                out.append(seg)
        out.sort()
        return out

    def bounds(self, stream: str) -> tuple[int, int]:
        """(first retained seq, next seq to be written) of `stream`; (0, 0) if empty."""
        segs = self.segments(stream)
        if not segs:
            return (0, 0)
        return (segs[0].first, segs[-1].end)

    def writer(self, stream: str, **kwargs: Any) -> StreamWriter:
        """The single writer of `stream` (see StreamWriter for the options)."""
        from .writer import StreamWriter

        return StreamWriter(self, stream, **kwargs)

    # ---------------------------------------------------------------- reading
    def read(self, stream: str, start: int | None = None, end: int | None = None) -> Iterator[Any]:
        """Record batches of seqs [start, end) (default: everything retained).

        Raises DataLossError if part of the range is no longer retained.
        """
        from .reader import iter_range

        segs = self.segments(stream)
        first, last = (segs[0].first, segs[-1].end) if segs else (0, 0)
        lo = first if start is None else start
        hi = last if end is None else min(end, last)
        if lo >= hi:
            return
        runs = contiguous_runs([s for s in segs if s.end > lo and s.first < hi])
        if not runs or runs[0][0] > lo or runs[0][1] < hi:
            have = ", ".join(f"[{a}, {b})" for a, b in contiguous_runs(segs)) or "nothing"
            raise DataLossError(f"stream {stream!r}: [{lo}, {hi}) is not retained (have {have})")
        yield from iter_range(self.fs, self.stream_path(stream), segs, lo, hi)

    def messages(
        self, stream: str, start: int | None = None, end: int | None = None
    ) -> Iterator[Message]:
        """Messages of seqs [start, end), one Python object each (for tools, not speed)."""
        for batch in self.read(stream, start, end):
            cols = batch.to_pydict()
            for seq, ts, topic, frames in zip(
                cols["seq"],
                batch.column(1).cast("int64").to_pylist(),
                cols["topic"],
                cols["frames"],
                strict=True,
            ):
                yield Message(stream, seq, ts, topic, frames)

    def count(self, stream: str) -> int:
        """How many messages `stream` retains (from the listing)."""
        return sum(s.count for s in self.segments(stream))

    # -------------------------------------------------------------- retention
    def apply_retention(
        self,
        *,
        max_age_s: float | None = None,
        max_bytes: int | None = None,
        streams: list[str] | None = None,
        now: float | None = None,
    ) -> list[tuple[str, SegmentInfo]]:
        """Delete the oldest segments beyond `max_age_s` or `max_bytes` per stream.

        A stream's newest segment is always kept: it carries the next seq, so
        numbering stays dense across restarts even after everything aged out.
        Age is the segment file's mtime (when it was sealed). Returns what was
        deleted. Readers that planned a deleted segment see a DataLossError.
        """
        now = time.time() if now is None else now
        deleted: list[tuple[str, SegmentInfo]] = []
        for stream in streams if streams is not None else self.streams():
            check_stream_name(stream)
            segs = self.segments(stream)
            total = sum(s.size for s in segs)
            for seg in segs[:-1]:
                too_old = max_age_s is not None and now - seg.mtime > max_age_s
                too_big = max_bytes is not None and total > max_bytes
                if not (too_old or too_big):
                    break
                self.fs.delete(join(self.stream_path(stream), seg.name))
                total -= seg.size
                deleted.append((stream, seg))
        if deleted and self.fs.local:
            from .fs import LocalFS

            for stream in {s for s, _ in deleted}:
                LocalFS.fsync_dir(self.stream_path(stream))
        return deleted
