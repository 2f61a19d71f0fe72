"""Names and places inside a journal directory (standard library only).

A journal is a directory::

    <root>/journal.json                            id, format version, segment format
    <root>/streams/stream=<name>/seg-<first>-<end>.arrow   sealed, immutable segments
    <root>/streams/stream=<name>/.tmp-<uuid>       a segment being written (ignored)
    <root>/streams/stream=<name>/.lock             the single writer's lock

``first`` and ``end`` are zero-padded to 20 digits so names sort like numbers
and a reader can plan any range of sequence numbers from a directory listing
alone. ``end`` is exclusive, like a Python range. The ``stream=<name>``
directories follow Hive's partition naming, so Spark's own file source reading
``<root>/streams`` (Parquet segments) gets a ``stream`` column for free, and
names starting with ``.`` or ``_`` are ones Spark's file source skips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import JournalError

JOURNAL_FILE = "journal.json"
STREAMS_DIR = "streams"
STREAM_PREFIX = "stream="
TEMP_PREFIX = ".tmp-"
LOCK_NAME = ".lock"
FORMATS = ("arrow", "parquet")

_STREAM_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
_SEGMENT_RE = re.compile(r"^seg-(\d{20})-(\d{20})\.(arrow|parquet)$")


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


def stream_from_dirname(dirname: str) -> str | None:
    """The stream name of a ``stream=<name>`` directory, or None for anything else."""
    if not dirname.startswith(STREAM_PREFIX):
        return None
    name = dirname[len(STREAM_PREFIX) :]
    return name if _STREAM_RE.match(name) else None


def segment_name(first: int, end: int, fmt: str) -> str:
    """The file name of a sealed segment holding seqs [first, end)."""
    if not 0 <= first < end:
        raise ValueError(f"empty or negative segment range [{first}, {end})")
    return f"seg-{first:020d}-{end:020d}.{fmt}"


@dataclass(frozen=True, order=True)
class SegmentInfo:
    """A sealed segment as seen in a directory listing: [first, end) and its file."""

    first: int
    end: int
    name: str
    size: int = 0
    mtime: float = 0.0

    @property
    def count(self) -> int:
        """How many messages the segment holds."""
        return self.end - self.first

    @property
    def fmt(self) -> str:
        """'arrow' or 'parquet', from the file name."""
        return self.name.rsplit(".", 1)[1]


def parse_segment_name(name: str, size: int = 0, mtime: float = 0.0) -> SegmentInfo | None:
    """A SegmentInfo for a sealed segment's file name, None for any other name."""
    m = _SEGMENT_RE.match(name)
    if m is None:
        return None
    first, end = int(m.group(1)), int(m.group(2))
    if end <= first:
        return None
    return SegmentInfo(first, end, name, size, mtime)


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
