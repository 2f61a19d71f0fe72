"""Reading sealed segments back: whole, or sliced to a seq range, checked.

Readers never list anything here: they get the segments to read from the
caller (the Spark source plans them on the driver from a directory listing),
so executors open exactly the files that were planned. Every segment is
checked before any of its rows is used: its CRC32C (from its name) over the
whole file, then its rows against its name. A damaged segment is reported
(CorruptSegmentError), never silently trimmed; a segment that is gone is
data loss only if the journal itself is still there - storage that cannot be
reached is an error of its own (JournalUnreachableError), never "0 rows".
`read_segments` is the public face of this module (exported by
``purezmq.journal``); the rest is the journal's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa

from .crc import crc32c
from .errors import CorruptSegmentError, DataLossError, JournalError, JournalUnreachableError
from .fs import JournalFS, open_fs
from .layout import JOURNAL_FILE, SegmentInfo, join, stream_dir
from .schema import to_logical


def _load(fs: JournalFS, path: str) -> Any:
    """The whole file as a pyarrow Buffer (memory-mapped when local)."""
    f = fs.open_input(path)
    try:
        return f.read_buffer()
    finally:
        f.close()


def read_segment(fs: JournalFS, directory: str, seg: SegmentInfo) -> list[Any]:
    """The record batches (`SEGMENT_SCHEMA`) of one sealed segment, checked.

    Raises FileNotFoundError when the file is not there (the caller decides
    whether that is data loss) and CorruptSegmentError when its checksum or
    its content does not match its name.
    """
    path = join(directory, seg.subdir, seg.name) if seg.subdir else join(directory, seg.name)
    try:
        buf = _load(fs, path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        text = str(exc).lower()
        if "not found" in text or "does not exist" in text or "no such file" in text:
            raise FileNotFoundError(str(exc)) from exc
        raise
    if seg.crc is not None:
        got = crc32c(buf)
        if got != seg.crc:
            raise CorruptSegmentError(
                f"{path}: checksum mismatch (CRC32C of its {buf.size} bytes is {got:08x}, "
                f"its name says {seg.crc:08x}): the file was damaged or truncated"
            )
    elif seg.subdir:
        raise CorruptSegmentError(f"{path} has no checksum in its name")
    try:
        if seg.fmt == "arrow":
            r = pa.ipc.open_file(pa.BufferReader(buf))
            stored = [r.get_batch(i) for i in range(r.num_record_batches)]
        else:
            import pyarrow.parquet as pq

            stored = pq.read_table(pa.BufferReader(buf)).to_batches()
        if seg.crc is None:
            # No checksum vouches for these bytes, and Arrow's IPC reader
            # trusts its input: a damaged file crashed the process in
            # to_logical's take() (fuzz/targets.py). Validate first.
            for b in stored:
                b.validate(full=True)
        batches = [to_logical(b, path) for b in stored]
    except (pa.ArrowException, OSError) as exc:  # any Arrow error (fuzz/targets.py)
        raise CorruptSegmentError(f"{path} is not a readable {seg.fmt} segment: {exc}") from exc
    _check(path, seg, batches)
    return batches


def _check(path: str, seg: SegmentInfo, batches: list[Any]) -> None:
    rows = sum(b.num_rows for b in batches)
    if rows != seg.count:
        raise CorruptSegmentError(f"{path} holds {rows} rows, its name promises {seg.count}")
    first = batches[0].column(0)[0].as_py()
    last = batches[-1].column(0)[-1].as_py()
    if first != seg.first or last != seg.end - 1:
        raise CorruptSegmentError(
            f"{path} holds seqs {first}..{last}, its name promises {seg.first}..{seg.end - 1}"
        )


def slice_batches(batches: list[Any], seg: SegmentInfo, start: int, end: int) -> Iterator[Any]:
    """The rows of `seg`'s batches with seqs in [start, end), by position (seqs are dense)."""
    lo, hi = max(start, seg.first), min(end, seg.end)
    pos = seg.first
    for batch in batches:
        b_lo, b_hi = pos, pos + batch.num_rows
        pos = b_hi
        s_lo, s_hi = max(lo, b_lo), min(hi, b_hi)
        if s_lo < s_hi:
            yield batch.slice(s_lo - b_lo, s_hi - s_lo)


def iter_range(
    fs: JournalFS, directory: str, segments: Iterable[SegmentInfo], start: int, end: int
) -> Iterator[Any]:
    """Record batches holding exactly the seqs [start, end) of `segments`.

    `segments` must cover the range; a missing file is a DataLossError here.
    """
    for seg in segments:
        if max(start, seg.first) >= min(end, seg.end):
            continue
        try:
            batches = read_segment(fs, directory, seg)
        except FileNotFoundError as exc:
            raise DataLossError(f"segment {seg.name} is gone (deleted by retention?)") from exc
        yield from slice_batches(batches, seg, start, end)


def check_reachable(fs: JournalFS, root: str, journal_id: str | None) -> None:
    """Raise JournalUnreachableError unless the journal at `root` is visible (and is `journal_id`).

    Called when a planned segment is missing: only if the journal itself is
    still there is the segment really gone (retention); otherwise this
    reader is looking at the wrong storage, or at none.
    """
    try:
        meta = json.loads(fs.read_bytes(join(root, JOURNAL_FILE)))
    except (OSError, ValueError) as exc:
        raise JournalUnreachableError(
            f"the journal at {root} cannot be read from here ({exc}): is the storage mounted "
            "at the same path on every node, with credentials? (this is not data loss: "
            "nothing was skipped)"
        ) from exc
    got = meta.get("journalId") if isinstance(meta, dict) else None
    if journal_id is not None and got != journal_id:
        raise JournalUnreachableError(
            f"the journal at {root} has id {got}, but {journal_id} was planned: this node sees "
            "another journal at that path"
        )


def read_segments(
    path: str,
    stream: str,
    segments: Iterable[SegmentInfo],
    start: int,
    end: int,
    *,
    filesystem: Any = None,
    on_missing: Callable[[DataLossError], None] | None = None,
    on_corrupt: Callable[[CorruptSegmentError], None] | None = None,
    journal_id: str | None = None,
) -> Iterator[Any]:
    """Record batches of `stream`'s seqs [start, end), read from exactly `segments`.

    For readers that plan in one place and read in another - Spark's driver
    lists and plans, its executors read - so this opens the planned segment
    files and nothing else: no directory listing, and ``journal.json`` only
    when a segment is missing. `path` (and `filesystem`) name the journal as
    `Journal.open` takes them; `segments` come from `Journal.segments` (of
    one partition) and must cover the range (see `contiguous_runs`); rows
    are sliced by position, since seqs are dense. Every segment's checksum
    is checked before any of its rows is yielded.

    A planned segment deleted since (retention ran after planning) raises
    DataLossError - unless `on_missing` is given: it is then called with that
    error and the segment is skipped, so a lenient reader decides how to log
    and count what it lost rather than losing it silently. Likewise a segment
    whose checksum or content does not match its name raises
    CorruptSegmentError, or goes to `on_corrupt`. A missing segment counts as
    lost only if the journal is still visible (with id `journal_id`, when
    given): otherwise JournalUnreachableError, whatever the callbacks.
    """
    fs, root = open_fs(path, filesystem)
    directory = stream_dir(root, stream)
    for seg in segments:
        if max(start, seg.first) >= min(end, seg.end):
            continue
        try:
            batches = read_segment(fs, directory, seg)
        except FileNotFoundError as exc:
            check_reachable(fs, root, journal_id)
            lost = DataLossError(
                f"stream {stream!r} partition {seg.partition}: segment {seg.name} "
                f"(seqs [{seg.first}, {seg.end})) is gone: deleted by retention after planning"
            )
            if on_missing is None:
                raise lost from exc
            on_missing(lost)
            continue
        except CorruptSegmentError as exc:
            if on_corrupt is None:
                raise
            on_corrupt(exc)
            continue
        except JournalError:
            raise
        except OSError as exc:
            raise JournalUnreachableError(f"cannot read segment {seg.name}: {exc}") from exc
        yield from slice_batches(batches, seg, start, end)
