"""Reading sealed segments back: whole, or sliced to a seq range.

Readers never list anything here: they get the segments to read from the
caller (the Spark source plans them on the driver from a directory listing),
so executors open exactly the files that were planned. A segment that does
not hold the rows its name promises is reported, never silently trimmed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from .errors import CorruptSegmentError, DataLossError
from .fs import JournalFS
from .layout import SegmentInfo, join
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
