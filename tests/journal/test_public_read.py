"""The journal's public read API: what the Spark source (and any engine that
plans in one place and reads in another) gets from ``purezmq.journal``."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs
import pytest

import purezmq.journal
from purezmq.journal import (
    SEGMENT_SCHEMA,
    CorruptSegmentError,
    DataLossError,
    Journal,
    JournalError,
    contiguous_runs,
    read_segments,
)

from .conftest import fill


def _seqs(batches: Iterable[Any]) -> list[int]:
    return [x for b in batches for x in b.column("seq").to_pylist()]


def test_every_exported_name_exists() -> None:
    # tests/unit/test_layering.py takes __all__ as the public surface.
    missing = [n for n in purezmq.journal.__all__ if not hasattr(purezmq.journal, n)]
    assert missing == []


@pytest.mark.parametrize(("start", "end"), [(0, 35), (3, 17), (10, 20), (9, 11), (34, 35)])
def test_read_segments_equals_journal_read(journal: Journal, start: int, end: int) -> None:
    fill(journal, "s", 35, per_segment=10)
    planned = [g for g in journal.segments("s") if g.end > start and g.first < end]
    batches = list(read_segments(journal.uri, "s", planned, start, end))
    assert _seqs(batches) == list(range(start, end))
    whole = list(journal.read("s", start, end))
    assert [b.to_pylist() for b in batches] == [b.to_pylist() for b in whole]
    assert all(b.schema.equals(SEGMENT_SCHEMA) for b in batches)


def test_read_segments_opens_only_what_was_planned(journal: Journal) -> None:
    """No journal.json, no listing: an unplanned (even unreadable) file is never opened."""
    fill(journal, "s", 30, per_segment=10)
    planned = journal.segments("s")[1:2]
    os.unlink(os.path.join(journal.root, "journal.json"))
    for g in journal.segments("s"):
        if g not in planned:
            with open(journal.segment_path("s", g), "wb") as f:
                f.write(b"not arrow")
    assert _seqs(read_segments(journal.uri, "s", planned, 12, 18)) == list(range(12, 18))
    with pytest.raises(CorruptSegmentError):
        list(read_segments(journal.uri, "s", journal.segments("s")[:1], 0, 10))


def test_a_vanished_segment_is_data_loss_unless_the_caller_takes_it(journal: Journal) -> None:
    fill(journal, "s", 30, per_segment=10)
    planned = journal.segments("s")
    os.unlink(journal.segment_path("s", planned[1]))  # retention ran
    with pytest.raises(DataLossError, match="gone"):
        list(read_segments(journal.uri, "s", planned, 0, 30))
    lost: list[DataLossError] = []
    assert _seqs(read_segments(journal.uri, "s", planned, 5, 25, on_missing=lost.append)) == [
        *range(5, 10),
        *range(20, 25),
    ]
    assert len(lost) == 1 and planned[1].name in str(lost[0])


def test_read_segments_through_a_pyarrow_filesystem(tmp_path: Path) -> None:
    fs = pafs.LocalFileSystem()
    j = Journal.create(str(tmp_path / "g"), filesystem=fs)
    fill(j, "s", 15, per_segment=10)
    got = read_segments(str(tmp_path / "g"), "s", j.segments("s"), 4, 13, filesystem=fs)
    assert _seqs(got) == list(range(4, 13))


def test_read_segments_checks_the_stream_name(journal: Journal) -> None:
    with pytest.raises(JournalError, match="invalid stream name"):
        list(read_segments(journal.uri, "../elsewhere", [], 0, 1))


def test_contiguous_runs_shows_what_retention_left(journal: Journal) -> None:
    fill(journal, "s", 40, per_segment=10)
    assert contiguous_runs(journal.segments("s")) == [(0, 40)]
    os.unlink(journal.segment_path("s", journal.segments("s")[1]))
    assert contiguous_runs(journal.segments("s")) == [(0, 10), (20, 40)]
