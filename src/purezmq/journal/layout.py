"""Names and places inside a journal directory (standard library only).

A journal is a directory::

    <root>/journal.json                                 id, format version, segment format
    <root>/streams/stream=<name>/partition=<k>/seg-<first>-<end>-<crc>.arrow
                                                        sealed, immutable segments
    <root>/streams/stream=<name>/partition=<k>/.tmp-<uuid>   being written (ignored)
    <root>/streams/stream=<name>/partition=<k>/.lock    the partition's single writer

A stream has one or more partitions, each with its own dense seqs and its
own single writer (as a Kafka topic has partitions). ``first`` and ``end``
are zero-padded to 20 digits so names sort like numbers and a reader can plan
any range of sequence numbers from a directory listing alone; ``end`` is
exclusive, like a Python range. ``crc`` is the CRC32C of the whole file, 8 hex
digits (see crc.py). The ``stream=``/``partition=`` directories follow Hive's
partition naming, so Spark's own file source reading ``<root>/streams``
(Parquet segments) gets ``stream`` and ``partition`` columns for free, and
names starting with ``.`` or ``_`` are ones Spark's file source skips.

Journals written before partitions and checksums (format version 1) keep
their segments directly in ``stream=<name>/`` with no ``-<crc>`` in the
name: they are read as partition 0, without a checksum to check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import JournalError

JOURNAL_FILE = "journal.json"
STREAMS_DIR = "streams"
STREAM_PREFIX = "stream="
PARTITION_PREFIX = "partition="
TEMP_PREFIX = ".tmp-"
LOCK_NAME = ".lock"
FORMATS = ("arrow", "parquet")

_STREAM_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
_SEGMENT_RE = re.compile(r"^seg-(\d{20})-(\d{20})(?:-([0-9a-f]{8}))?\.(arrow|parquet)$")
_PARTITION_RE = re.compile(r"^partition=(0|[1-9]\d{0,5})$")
MAX_PARTITIONS = 100_000


def check_stream_name(name: str) -> str:
    """Return `name` if it can name a stream, else raise JournalError.

    Stream names become directory names and offset keys, so they are kept to
    letters, digits, ``.``, ``_`` and ``-``, and must not start with ``.`` or
    ``_`` (hidden to Spark's file source) or ``-`` (confusing on a command line).
    """
    if not _STREAM_RE.match(name):
        raise JournalError(
            f"invalid stream name {name!r}: use 1-200 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def join(*parts: str) -> str:
    """Join path parts with '/': journal paths may be URIs or pyarrow paths."""
    out = parts[0].rstrip("/") if parts[0] != "/" else ""
    for part in parts[1:]:
        out = f"{out}/{part.strip('/')}"
    return out or "/"


def streams_dir(root: str) -> str:
    """The directory holding one sub-directory per stream."""
    return join(root, STREAMS_DIR)


def stream_dir(root: str, stream: str) -> str:
    """The directory of one stream's segments."""
    return join(root, STREAMS_DIR, STREAM_PREFIX + check_stream_name(stream))


def partition_subdir(partition: int) -> str:
    """The directory (under the stream's) of partition `partition`."""
    if not 0 <= partition < MAX_PARTITIONS:
        raise JournalError(f"partition {partition} out of range [0, {MAX_PARTITIONS})")
    return f"{PARTITION_PREFIX}{partition}"


def partition_from_dirname(dirname: str) -> int | None:
    """The partition number of a ``partition=<k>`` directory, or None."""
    m = _PARTITION_RE.match(dirname)
    return int(m.group(1)) if m else None


def stream_from_dirname(dirname: str) -> str | None:
    """The stream name of a ``stream=<name>`` directory, or None for anything else."""
    if not dirname.startswith(STREAM_PREFIX):
        return None
    name = dirname[len(STREAM_PREFIX) :]
    return name if _STREAM_RE.match(name) else None


def segment_name(first: int, end: int, fmt: str, crc: int) -> str:
    """The file name of a sealed segment holding seqs [first, end), whose CRC32C is `crc`."""
    if not 0 <= first < end:
        raise ValueError(f"empty or negative segment range [{first}, {end})")
    return f"seg-{first:020d}-{end:020d}-{crc:08x}.{fmt}"


@dataclass(frozen=True, order=True)
class SegmentInfo:
    """A sealed segment as seen in a directory listing: [first, end) and its file.

    `subdir` is the segment's directory relative to its stream's
    (``partition=<k>``, or ``""`` for a version-1 segment of partition 0), so a
    SegmentInfo shipped to another process names its file exactly.
    """

    first: int
    end: int
    name: str
    size: int = 0
    mtime: float = 0.0
    subdir: str = ""

    @property
    def count(self) -> int:
        """How many messages the segment holds."""
        return self.end - self.first

    @property
    def fmt(self) -> str:
        """'arrow' or 'parquet', from the file name."""
        return self.name.rsplit(".", 1)[1]

    @property
    def crc(self) -> int | None:
        """The CRC32C of the file, from its name (None for version-1 segments)."""
        m = _SEGMENT_RE.match(self.name)
        return int(m.group(3), 16) if m and m.group(3) else None

    @property
    def partition(self) -> int:
        """The partition the segment belongs to."""
        if not self.subdir:
            return 0
        p = partition_from_dirname(self.subdir)
        if p is None:  # pragma: no cover - SegmentInfo made by hand
            raise JournalError(f"not a partition directory: {self.subdir!r}")
        return p


def parse_segment_name(
    name: str, size: int = 0, mtime: float = 0.0, subdir: str = ""
) -> SegmentInfo | None:
    """A SegmentInfo for a sealed segment's file name, None for any other name."""
    m = _SEGMENT_RE.match(name)
    if m is None:
        return None
    first, end = int(m.group(1)), int(m.group(2))
    if end <= first:
        return None
    return SegmentInfo(first, end, name, size, mtime, subdir)


def contiguous_runs(segments: list[SegmentInfo]) -> list[tuple[int, int]]:
    """The [first, end) ranges that `segments` (sorted) cover without gaps.

    Public (exported by ``purezmq.journal``) because retention deletes
    segments, so a reader that plans a range from a listing must see which
    part of it is still there and report the rest as lost, never skip it.
    """
    runs: list[tuple[int, int]] = []
    for seg in segments:
        if runs and seg.first <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], seg.end))
        else:
            runs.append((seg.first, seg.end))
    return runs
