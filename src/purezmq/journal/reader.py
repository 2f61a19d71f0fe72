"""Reading sealed segments back: whole, or sliced to a seq range.

Readers never list anything here: they get the segments to read from the
caller (the Spark source plans them on the driver from a directory listing),
so executors open exactly the files that were planned. A segment that does
not hold the rows its name promises is reported, never silently trimmed.
`read_segments` is the public face of this module (exported by
``purezmq.journal``); the rest is the journal's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa

from .errors import CorruptSegmentError, DataLossError
from .fs import JournalFS, open_fs
from .layout import SegmentInfo, join, stream_dir
from .schema import SEGMENT_SCHEMA


def read_segment(fs: JournalFS, directory: str, seg: SegmentInfo) -> list[Any]:
    """The record batches of one sealed segment, checked against its name.

    Raises DataLossError when the file vanished (retention ran after planning)
    and CorruptSegmentError when its content does not match its name.
    """
    path = join(directory, seg.name)
    try:
        f = fs.open_input(path)
    except (FileNotFoundError, OSError) as exc:
        if isinstance(exc, FileNotFoundError) or "not found" in str(exc).lower():
            raise DataLossError(f"segment {path} is gone (deleted by retention?)") from exc
        raise
    try:
        if seg.fmt == "arrow":
            r = pa.ipc.open_file(f)
            batches = [r.get_batch(i) for i in range(r.num_record_batches)]
        else:
            import pyarrow.parquet as pq

            batches = pq.read_table(f).to_batches()
    except pa.ArrowInvalid as exc:
        raise CorruptSegmentError(f"{path} is not a readable {seg.fmt} segment: {exc}") from exc
    _check(path, seg, batches)
    return batches


def _check(path: str, seg: SegmentInfo, batches: list[Any]) -> None:
    rows = sum(b.num_rows for b in batches)
    if rows != seg.count:
        raise CorruptSegmentError(f"{path} holds {rows} rows, its name promises {seg.count}")
    if rows == 0:
        return
    names = batches[0].schema.names
    if names != SEGMENT_SCHEMA.names:
        raise CorruptSegmentError(f"{path} has columns {names}, expected {SEGMENT_SCHEMA.names}")
    first = batches[0].column(0)[0].as_py()
    last = batches[-1].column(0)[-1].as_py()
    if first != seg.first or last != seg.end - 1:
        raise CorruptSegmentError(
            f"{path} holds seqs {first}..{last}, its name promises {seg.first}..{seg.end - 1}"
        )


def iter_range(
    fs: JournalFS, directory: str, segments: Iterable[SegmentInfo], start: int, end: int
) -> Iterator[Any]:
    """Record batches holding exactly the seqs [start, end) of `segments`.

    `segments` must cover the range; rows are dense, so slicing is by
    position (row i of a segment is seq first + i) with no search.
    """
    for seg in segments:
        lo, hi = max(start, seg.first), min(end, seg.end)
        if lo >= hi:
            continue
        pos = seg.first
        for batch in read_segment(fs, directory, seg):
            b_lo, b_hi = pos, pos + batch.num_rows
            pos = b_hi
            s_lo, s_hi = max(lo, b_lo), min(hi, b_hi)
            if s_lo < s_hi:
                yield batch.slice(s_lo - b_lo, s_hi - s_lo)


def read_segments(
    path: str,
    stream: str,
    segments: Iterable[SegmentInfo],
    start: int,
    end: int,
    *,
    filesystem: Any = None,
    on_missing: Callable[[DataLossError], None] | None = None,
) -> Iterator[Any]:
    """Record batches of `stream`'s seqs [start, end), read from exactly `segments`.

    For readers that plan in one place and read in another - Spark's driver
    lists and plans, its executors read - so this opens the planned segment
    files and nothing else: no directory listing and no ``journal.json``
    (`Journal.read` lists for you; use it when you plan and read in one
    process). `path` (and `filesystem`) name the journal as `Journal.open`
    takes them; `segments` come from `Journal.segments` and must cover the
    range (see `contiguous_runs`); rows are sliced by position, since seqs
    are dense.

    A planned segment deleted since (retention ran after planning) raises
    DataLossError - unless `on_missing` is given: it is then called with that
    error and the segment is skipped, so a lenient reader decides how to log
    and count what it lost rather than losing it silently. A segment whose
    content does not match its name raises CorruptSegmentError either way.
    """
    fs, root = open_fs(path, filesystem)
    directory = stream_dir(root, stream)
    for seg in segments:
        try:
            # A whole segment is read (and checked) before any of it is yielded.
            batches = list(iter_range(fs, directory, [seg], start, end))
        except DataLossError as exc:
            if on_missing is None:
                raise
            on_missing(exc)
            continue
        yield from batches
