"""Names inside a journal: streams, segments, runs (pure functions)."""

from __future__ import annotations

import pytest

from purezmq.journal import JournalError
from purezmq.journal.layout import (
    check_stream_name,
    contiguous_runs,
    join,
    parse_segment_name,
    segment_name,
    stream_dir,
    stream_from_dirname,
)


@pytest.mark.parametrize("name", ["orders", "md.feed", "a", "A-1_b.c", "9lives"])
def test_valid_stream_names(name: str) -> None:
    assert check_stream_name(name) == name


@pytest.mark.parametrize("name", ["", ".hidden", "_meta", "-x", "a/b", "a b", "é", "x" * 201])
def test_invalid_stream_names_are_refused_clearly(name: str) -> None:
    with pytest.raises(JournalError, match="invalid stream name"):
        check_stream_name(name)


def test_segment_names_round_trip_and_sort_numerically() -> None:
    ranges = [(0, 9), (9, 10), (10, 1000), (1000, 10**15)]
    names = [segment_name(a, b, "arrow", 0xABC) for a, b in ranges]
    assert names == sorted(names)
    seg = parse_segment_name(names[2], size=7, mtime=1.5)
    assert seg is not None
    assert (seg.first, seg.end, seg.count, seg.fmt, seg.size) == (10, 1000, 990, "arrow", 7)
    assert seg.crc == 0xABC and names[2].endswith("-00000abc.arrow")
    pq = parse_segment_name(segment_name(3, 4, "parquet", 2**32 - 1))
    assert pq is not None and pq.fmt == "parquet" and pq.crc == 2**32 - 1
    # Version-1 names (no checksum) still parse: old journals stay readable.
    old = parse_segment_name("seg-00000000000000000000-00000000000000000005.arrow")
    assert old is not None and old.crc is None and old.count == 5


@pytest.mark.parametrize(
    "name",
    [
        ".tmp-0123abcd",
        "seg-00000000000000000005-00000000000000000005.arrow",  # empty range
        "seg-00000000000000000006-00000000000000000005.arrow",  # backwards
        "seg-5-9.arrow",
        "seg-00000000000000000000-00000000000000000001.csv",
        "seg-00000000000000000000-00000000000000000001-abc.arrow",  # short checksum
        "seg-00000000000000000000-00000000000000000001-0000000G.arrow",
        "journal.json",
    ],
)
def test_other_names_are_not_segments(name: str) -> None:
    assert parse_segment_name(name) is None


def test_segment_name_refuses_empty_ranges() -> None:
    with pytest.raises(ValueError, match="empty"):
        segment_name(4, 4, "arrow", 0)


def test_paths_and_hive_style_stream_dirs() -> None:
    assert stream_dir("/j", "orders") == "/j/streams/stream=orders"
    assert stream_dir("s3://b/j/", "x") == "s3://b/j/streams/stream=x"
    assert join("/", "a") == "/a"
    assert stream_from_dirname("stream=orders") == "orders"
    assert stream_from_dirname("orders") is None
    assert stream_from_dirname("stream=.x") is None


def test_contiguous_runs_find_gaps() -> None:
    ranges = [(0, 5), (5, 9), (12, 20)]
    segs = [parse_segment_name(segment_name(a, b, "arrow", 0)) for a, b in ranges]
    assert contiguous_runs([s for s in segs if s is not None]) == [(0, 9), (12, 20)]
    assert contiguous_runs([]) == []
