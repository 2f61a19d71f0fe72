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
    partition_from_dirname,
    partition_subdir,
    stream_dir,
    stream_from_dirname,
    streams_dir,
)

if TYPE_CHECKING:
    from .writer import StreamWriter

FORMAT_NAME = "purezmq-journal"
CONSUMERS_DIR = "consumers"
# 2: partitions (``partition=<k>`` directories), a CRC32C in every segment's
# name, each frame stored once. Version-1 journals are read as they are and
# upgraded when a writer opens them (their old segments stay readable).
# 3: segments may hold a ``headers`` column (segment schema 3). A journal is
# created as version 2 and marked 3 only when a capture records headers, so
# journals without headers stay readable by purezmq versions that read 2.
FORMAT_VERSION = 3
BASE_VERSION = 2


@dataclass(frozen=True)
class Message:
    """One journaled message, as returned by `Journal.messages`."""

    stream: str
    seq: int
    timestamp_us: int
    topic: bytes | None
    frames: list[bytes]
    partition: int = 0
    #: (key, value) pairs: the connection properties the capture recorded
    #: (``headers=True``), or None when it recorded none.
    headers: list[tuple[str, bytes]] | None = None

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
                "version": BASE_VERSION,
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
        """Where a stream's partitions live."""
        return stream_dir(self.root, stream)

    def partition_path(self, stream: str, partition: int = 0) -> str:
        """Where new segments of one partition of a stream go."""
        return join(self.stream_path(stream), partition_subdir(partition))

    def _list_partition(self, stream: str, partition: int) -> list[SegmentInfo]:
        sub = partition_subdir(partition)
        out = []
        for e in self.fs.list(join(self.stream_path(stream), sub)):
            seg = parse_segment_name(e.name, e.size, e.mtime, sub)
            if seg is not None:
                out.append(seg)
        return out

    def listing(self, stream: str) -> dict[int, list[SegmentInfo]]:
        """Every partition of `stream` and its sealed segments, sorted (listings only).

        A partition whose directory exists holds no segment yet appears with
        an empty list; a version-1 stream's segments are partition 0's.
        """
        entries = self.fs.list(self.stream_path(stream))
        out: dict[int, list[SegmentInfo]] = {}
        legacy = [parse_segment_name(e.name, e.size, e.mtime) for e in entries if not e.is_dir]
        if any(g is not None for g in legacy):
            out[0] = [g for g in legacy if g is not None]
        for e in entries:
            p = partition_from_dirname(e.name) if e.is_dir else None
            if p is not None:
                out.setdefault(p, []).extend(self._list_partition(stream, p))
        for segs in out.values():
            segs.sort()
        return dict(sorted(out.items()))

    def partitions(self, stream: str) -> list[int]:
        """The partitions of `stream`, sorted ([] for a stream that does not exist)."""
        return list(self.listing(stream))

    def segments(self, stream: str, partition: int = 0) -> list[SegmentInfo]:
        """Sealed segments of one partition of `stream`, sorted by first seq (listing only)."""
        if partition != 0:
            return sorted(self._list_partition(stream, partition))
        return self.listing(stream).get(0, [])

    def bounds(self, stream: str, partition: int = 0) -> tuple[int, int]:
        """(first retained seq, next seq to be written) of a partition; (0, 0) if empty."""
        segs = self.segments(stream, partition)
        if not segs:
            return (0, 0)
        return (segs[0].first, segs[-1].end)

    def writer(self, stream: str, partition: int = 0, **kwargs: Any) -> StreamWriter:
        """The single writer of one partition of `stream` (see StreamWriter for the options)."""
        from .writer import StreamWriter

        return StreamWriter(self, stream, partition=partition, **kwargs)

    def upgrade(self, version: int = BASE_VERSION) -> None:
        """Mark the journal as (at least) `version` before a writer adds segments of it.

        Version 1 becomes 2 when a writer opens it, and 3 before the first
        segment with headers is sealed. Older purezmq versions then refuse
        the journal instead of ignoring segments whose names they do not
        know, or reading segments with headers as damaged (under
        failOnDataLoss=false they would skip them: silent loss).
        """
        if int(self.meta.get("version", 1)) >= version:
            return
        # Another writer may have marked it higher since we opened it: never lower it.
        self.meta = json.loads(self.fs.read_bytes(join(self.root, JOURNAL_FILE)))
        if int(self.meta.get("version", 1)) >= version:
            return
        meta = dict(self.meta, version=version)
        data = json.dumps(meta, indent=2, sort_keys=True).encode() + b"\n"
        self.fs.write_atomic(self.root, JOURNAL_FILE, data, overwrite=True)
        self.meta = meta

    # ---------------------------------------------------------------- reading
    def read(
        self,
        stream: str,
        start: int | None = None,
        end: int | None = None,
        *,
        partition: int = 0,
    ) -> Iterator[Any]:
        """Record batches of one partition's seqs [start, end) (default: everything retained).

        Raises DataLossError if part of the range is no longer retained, and
        CorruptSegmentError if a segment fails its checksum.
        """
        from .reader import iter_range

        segs = self.segments(stream, partition)
        first, last = (segs[0].first, segs[-1].end) if segs else (0, 0)
        lo = first if start is None else start
        hi = last if end is None else min(end, last)
        if lo >= hi:
            return
        runs = contiguous_runs([s for s in segs if s.end > lo and s.first < hi])
        if not runs or runs[0][0] > lo or runs[0][1] < hi:
            have = ", ".join(f"[{a}, {b})" for a, b in contiguous_runs(segs)) or "nothing"
            raise DataLossError(
                f"stream {stream!r} partition {partition}: [{lo}, {hi}) is not retained "
                f"(have {have})"
            )
        yield from iter_range(self.fs, self.stream_path(stream), segs, lo, hi)

    def messages(
        self,
        stream: str,
        start: int | None = None,
        end: int | None = None,
        *,
        partition: int = 0,
    ) -> Iterator[Message]:
        """Messages of seqs [start, end), one Python object each (for tools, not speed)."""
        for batch in self.read(stream, start, end, partition=partition):
            cols = batch.to_pydict()
            for seq, ts, topic, frames, hdrs in zip(
                cols["seq"],
                batch.column(1).cast("int64").to_pylist(),
                cols["topic"],
                cols["frames"],
                cols["headers"],
                strict=True,
            ):
                headers = None if hdrs is None else [(h["key"], h["value"]) for h in hdrs]
                yield Message(stream, seq, ts, topic, frames, partition, headers)

    def seq_at_time(self, stream: str, t_us: int, partition: int = 0) -> int | None:
        """The first retained seq whose timestamp is >= `t_us`, or None if there is none.

        Kafka's ``offsetsForTimes``. Timestamps are capture (receive) times,
        so a segment sealed before `t_us` holds none at or after it: segments
        are skipped by their file's mtime (seal time) and only the first ones
        that may hold a match are opened (and checked) - usually one.
        """
        from .reader import read_segment

        for seg in self.segments(stream, partition):
            if seg.mtime and seg.mtime * 1_000_000 < t_us:
                continue
            for batch in read_segment(self.fs, self.stream_path(stream), seg):
                ts = batch.column(1).cast("int64").to_pylist()
                for i, t in enumerate(ts):
                    if t >= t_us:
                        return int(batch.column(0)[i].as_py())
        return None

    def count(self, stream: str, partition: int | None = None) -> int:
        """How many messages `stream` retains (one partition, or all), from the listing."""
        listing = self.listing(stream)
        parts = listing.values() if partition is None else [listing.get(partition, [])]
        return sum(s.count for segs in parts for s in segs)

    # -------------------------------------------------------------- retention
    def apply_retention(
        self,
        *,
        max_age_s: float | None = None,
        max_bytes: int | None = None,
        streams: list[str] | None = None,
        now: float | None = None,
        hard_max_age_s: float | None = None,
        hard_max_bytes: int | None = None,
    ) -> list[tuple[str, SegmentInfo]]:
        """Delete the oldest segments beyond the limits, per stream partition.

        `max_age_s` and `max_bytes` are soft: a segment beyond them is kept
        while a registered reader (`commit_consumer`) has not read past it.
        `hard_max_age_s` and `hard_max_bytes` delete whatever readers say, so
        a reader that stopped for good cannot fill the disk. A partition's
        newest segment is always kept: it carries the next seq, so numbering
        stays dense across restarts even after everything aged out. Age is the
        segment file's mtime (when it was sealed). Returns what was deleted.
        Readers that planned a deleted segment see a DataLossError.
        """
        now = time.time() if now is None else now
        readers = list(self.consumers().values())
        deleted: list[tuple[str, SegmentInfo]] = []
        for stream in streams if streams is not None else self.streams():
            check_stream_name(stream)
            for p, segs in self.listing(stream).items():
                total = sum(s.size for s in segs)
                held = min((r[(stream, p)] for r in readers if (stream, p) in r), default=None)
                for seg in segs[:-1]:
                    age = now - seg.mtime
                    hard = (hard_max_age_s is not None and age > hard_max_age_s) or (
                        hard_max_bytes is not None and total > hard_max_bytes
                    )
                    soft = (max_age_s is not None and age > max_age_s) or (
                        max_bytes is not None and total > max_bytes
                    )
                    if not (hard or (soft and (held is None or held >= seg.end))):
                        break
                    self.fs.delete(self.segment_path(stream, seg))
                    total -= seg.size
                    deleted.append((stream, seg))
        if deleted and self.fs.local:
            from .fs import LocalFS

            for d in {join(self.stream_path(s), g.subdir) if g.subdir else self.stream_path(s)
                      for s, g in deleted}:  # fmt: skip
                LocalFS.fsync_dir(d)
        return deleted

    # -------------------------------------------------------------- readers
    def commit_consumer(self, name: str, positions: dict[tuple[str, int], int]) -> None:
        """Record that reader `name` has read every seq before `positions` (retention waits).

        `positions` maps (stream, partition) to the next seq the reader will
        read. The Spark source writes this from ``commit`` when its
        ``consumerName`` option is set.
        """
        check_stream_name(name)
        streams: dict[str, dict[str, int]] = {}
        for (s, p), seq in sorted(positions.items()):
            streams.setdefault(s, {})[str(p)] = int(seq)
        doc = {"journalId": self.journal_id, "streams": streams, "updated": time.time()}
        self.fs.makedirs(join(self.root, CONSUMERS_DIR))
        data = json.dumps(doc, sort_keys=True).encode() + b"\n"
        self.fs.write_atomic(join(self.root, CONSUMERS_DIR), f"{name}.json", data, overwrite=True)

    def forget_consumer(self, name: str) -> None:
        """Stop reader `name` from holding back retention."""
        self.fs.delete(join(self.root, CONSUMERS_DIR, f"{check_stream_name(name)}.json"))

    def consumers(self) -> dict[str, dict[tuple[str, int], int]]:
        """Registered readers of this journal and their committed positions."""
        out: dict[str, dict[tuple[str, int], int]] = {}
        for e in self.fs.list(join(self.root, CONSUMERS_DIR)):
            if not e.name.endswith(".json") or e.name.startswith("."):
                continue
            try:
                doc = json.loads(self.fs.read_bytes(join(self.root, CONSUMERS_DIR, e.name)))
                if doc.get("journalId") != self.journal_id:
                    continue  # a reader of a journal that was here before
                out[e.name[:-5]] = {
                    (s, int(p)): int(seq)
                    for s, parts in doc["streams"].items()
                    for p, seq in parts.items()
                }
            except (OSError, ValueError, KeyError, AttributeError, TypeError):
                continue  # half-written by a crashed reader: it holds nothing back
        return out

    def segment_path(self, stream: str, seg: SegmentInfo) -> str:
        """The file of a sealed segment."""
        base = self.stream_path(stream)
        return join(base, seg.subdir, seg.name) if seg.subdir else join(base, seg.name)
