"""Journal: create/open, listing, exact range reads, retention, formats, filesystems."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

from purezmq.journal import (
    SEGMENT_SCHEMA,
    CorruptSegmentError,
    DataLossError,
    Journal,
    JournalError,
    NotAJournalError,
)

from .conftest import fill


def test_create_is_idempotent_and_keeps_the_id(tmp_path: Path) -> None:
    j1 = Journal.create(str(tmp_path / "j"))
    j2 = Journal.create(str(tmp_path / "j"))
    assert j1.journal_id == j2.journal_id and len(j1.journal_id) == 32
    meta = json.loads((tmp_path / "j" / "journal.json").read_text())
    assert meta["format"] == "purezmq-journal" and meta["version"] == 2
    assert Journal.open(f"file://{tmp_path}/j").journal_id == j1.journal_id
    with pytest.raises(JournalError, match="stores arrow"):
        Journal.create(str(tmp_path / "j"), segment_format="parquet")
    with pytest.raises(JournalError, match="unknown segment format"):
        Journal.create(str(tmp_path / "k"), segment_format="csv")


def test_open_refuses_what_is_not_a_journal(tmp_path: Path) -> None:
    with pytest.raises(NotAJournalError, match=r"no journal\.json"):
        Journal.open(str(tmp_path))
    (tmp_path / "journal.json").write_text("{not json")
    with pytest.raises(NotAJournalError, match="not valid JSON"):
        Journal.open(str(tmp_path))
    (tmp_path / "journal.json").write_text('{"format": "purezmq-journal", "version": 99}')
    with pytest.raises(NotAJournalError, match="version 99"):
        Journal.open(str(tmp_path))


def test_streams_are_listed_sorted(journal: Journal) -> None:
    for s in ["zeta", "alpha", "mid"]:
        fill(journal, s, 3)
    os.makedirs(os.path.join(journal.root, "streams", "not-a-stream-dir"))
    assert journal.streams() == ["alpha", "mid", "zeta"]


@pytest.mark.parametrize(("start", "end"), [(0, 35), (3, 17), (10, 20), (9, 11), (34, 35), (5, 5)])
def test_read_returns_exactly_the_range(journal: Journal, start: int, end: int) -> None:
    fill(journal, "s", 35, per_segment=10)
    batches = list(journal.read("s", start, end))
    seqs = [x for b in batches for x in b.column("seq").to_pylist()]
    values = [x for b in batches for x in b.column("value").to_pylist()]
    assert seqs == list(range(start, end))
    assert values == [f"s-{i}".encode() for i in range(start, end)]
    assert all(b.schema.equals(SEGMENT_SCHEMA) for b in batches)


def test_read_past_the_end_is_clipped_and_defaults_read_everything(journal: Journal) -> None:
    fill(journal, "s", 12, per_segment=5)
    assert sum(b.num_rows for b in journal.read("s", 10, 1000)) == 2
    assert sum(b.num_rows for b in journal.read("s")) == 12
    assert list(journal.read("missing")) == []


def test_retention_by_size_keeps_the_newest_and_reports_loss(journal: Journal) -> None:
    fill(journal, "s", 50, per_segment=10)
    size = journal.segments("s")[0].size
    gone = journal.apply_retention(max_bytes=int(size * 2.5))
    assert [(s, g.first) for s, g in gone] == [("s", 0), ("s", 10), ("s", 20)]
    assert journal.bounds("s") == (30, 50)
    with pytest.raises(DataLossError, match=r"\[25, 40\) is not retained"):
        list(journal.read("s", 25, 40))
    assert journal.apply_retention(max_bytes=0) and journal.bounds("s") == (40, 50)
    with journal.writer("s") as w:  # numbering survives: the newest segment stays
        assert w.append([b"x"]) == 50


def test_retention_by_age(journal: Journal) -> None:
    fill(journal, "s", 30, per_segment=10)
    segs = journal.segments("s")
    old = time.time() - 3600
    for g in segs[:2]:
        os.utime(journal.segment_path("s", g), (old, old))
    gone = journal.apply_retention(max_age_s=60)
    assert [g.first for _, g in gone] == [0, 10]
    assert journal.apply_retention(max_age_s=60) == []


def test_parquet_segments_round_trip(tmp_path: Path) -> None:
    j = Journal.create(str(tmp_path / "pq"), segment_format="parquet")
    fill(j, "s", 23, per_segment=10)
    assert {g.fmt for g in j.segments("s")} == {"parquet"}
    assert [m.value for m in j.messages("s", 5, 15)] == [f"s-{i}".encode() for i in range(5, 15)]


def test_corrupt_segments_are_reported_not_trimmed(journal: Journal) -> None:
    fill(journal, "s", 20, per_segment=10)
    seg = journal.segments("s")[1]
    path = journal.segment_path("s", seg)
    with open(path, "r+b") as f:
        f.truncate(seg.size // 2)
    with pytest.raises(CorruptSegmentError, match=r"checksum mismatch.*truncated"):
        list(journal.read("s", 0, 20))
    # A segment whose content does not match its name (a mislabelled copy, its
    # checksum right): the rows are checked against the name too.
    seg0 = journal.segments("s")[0]
    os.rename(path, path + ".bad")
    wrong = os.path.join(
        journal.partition_path("s"),
        f"seg-00000000000000000010-00000000000000000020-{seg0.crc:08x}.arrow",
    )
    with open(journal.segment_path("s", seg0), "rb") as src, open(wrong, "wb") as dst:
        dst.write(src.read())
    with pytest.raises(CorruptSegmentError, match=r"its name promises 10\.\.19"):
        list(journal.read("s", 10, 20))


def test_any_pyarrow_filesystem(tmp_path: Path) -> None:
    """The generic path (used for s3://, gs://, hdfs://...) through pyarrow's LocalFileSystem."""
    fs = pafs.LocalFileSystem()
    j = Journal.create(str(tmp_path / "g"), filesystem=fs)
    assert not j.fs.local
    fill(j, "s", 15, per_segment=10)
    again = Journal.open(str(tmp_path / "g"))  # and a plain local open reads it back
    assert again.journal_id == j.journal_id
    assert [m.seq for m in again.messages("s")] == list(range(15))
    assert not [n for n in os.listdir(again.partition_path("s")) if n.startswith(".tmp-")]


def test_in_memory_filesystem_via_mock() -> None:
    mock = getattr(pafs, "_MockFileSystem", None)
    if mock is None:
        pytest.skip("this pyarrow has no _MockFileSystem")
    j = Journal.create("/j", filesystem=mock())
    fill(j, "s", 7, per_segment=3)
    assert [g.count for g in j.segments("s")] == [3, 3, 1]
    assert [m.value for m in j.messages("s", 2, 5)] == [b"s-2", b"s-3", b"s-4"]


def test_messages_have_arrow_types_spark_accepts(journal: Journal) -> None:
    fill(journal, "s", 3)
    batch = next(journal.read("s"))
    assert batch.schema.field("timestamp").type == pa.timestamp("us", tz="UTC")
    assert batch.schema.field("value").type == pa.binary()
    assert batch.schema.field("seq").type == pa.int64()


def test_a_scheme_pyarrow_lacks_goes_through_fsspec() -> None:
    """memory:// has no pyarrow filesystem: fsspec's, wrapped for pyarrow, is used."""
    pytest.importorskip("fsspec")
    j = Journal.create("memory://pz-journal-test")
    assert not j.fs.local
    fill(j, "s", 12, per_segment=5)
    again = Journal.open("memory://pz-journal-test")
    assert again.journal_id == j.journal_id
    assert [m.value for m in again.messages("s", 9, 12)] == [b"s-9", b"s-10", b"s-11"]


def test_an_unknown_scheme_is_a_clear_error() -> None:
    with pytest.raises((ValueError, OSError), match="nosuchscheme"):
        Journal.open("nosuchscheme://x/j")
