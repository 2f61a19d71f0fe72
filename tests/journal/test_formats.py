"""Storage format: each frame stored once (version 2), version-1 journals still
readable and continued, partitions with one writer each, unreachable storage."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from purezmq.journal import (
    SEGMENT_SCHEMA,
    DataLossError,
    Journal,
    JournalUnreachableError,
    StreamLockedError,
    read_segments,
)

V1_SCHEMA = pa.schema(
    [("seq", pa.int64()), ("timestamp", pa.timestamp("us", tz="UTC")), ("topic", pa.binary()),
     ("value", pa.binary()), ("frames", pa.list_(pa.field("element", pa.binary())))],
    metadata={b"purezmq.journal.version": b"1"},
)  # fmt: skip


def make_v1_journal(root: Path, n: int = 10, per_segment: int = 5) -> None:
    """A journal exactly as purezmq's format version 1 wrote it (values twice)."""
    (root / "streams" / "stream=s").mkdir(parents=True)
    meta = {"format": "purezmq-journal", "version": 1, "journalId": "1" * 32,
            "segmentFormat": "arrow", "created": "2026-01-01T00:00:00+00:00"}  # fmt: skip
    (root / "journal.json").write_text(json.dumps(meta))
    for first in range(0, n, per_segment):
        seqs = list(range(first, min(n, first + per_segment)))
        batch = pa.RecordBatch.from_arrays(
            [pa.array(seqs, pa.int64()),
             pa.array([1_700_000_000_000_000 + s for s in seqs]).cast(V1_SCHEMA.field(1).type),
             pa.array([b"t"] * len(seqs)), pa.array([b"v%d" % s for s in seqs]),
             pa.array([[b"t", b"v%d" % s] for s in seqs], V1_SCHEMA.field(4).type)],
            schema=V1_SCHEMA,
        )  # fmt: skip
        name = f"seg-{seqs[0]:020d}-{seqs[-1] + 1:020d}.arrow"
        with pa.ipc.new_file(str(root / "streams" / "stream=s" / name), V1_SCHEMA) as w:
            w.write_batch(batch)


def test_a_version_1_journal_is_read_then_continued(tmp_path: Path) -> None:
    make_v1_journal(tmp_path / "old")
    j = Journal.open(str(tmp_path / "old"))
    assert j.partitions("s") == [0] and j.bounds("s") == (0, 10)
    msgs = list(j.messages("s"))
    assert [(m.seq, m.topic, m.value, m.frames) for m in msgs[:2]] == [
        (0, b"t", b"v0", [b"t", b"v0"]), (1, b"t", b"v1", [b"t", b"v1"])]  # fmt: skip
    with j.writer("s", seal_age_s=3600) as w:  # numbering goes on after the old segments
        assert w.append([b"t", b"v10"], topic=b"t") == 10
    assert json.loads((tmp_path / "old" / "journal.json").read_text())["version"] == 2
    assert [m.value for m in Journal.open(str(tmp_path / "old")).messages("s", 8)] == [
        b"v8", b"v9", b"v10"]  # fmt: skip
    segs = j.segments("s")
    assert [(g.subdir, g.crc is None) for g in segs] == [("", True)] * 2 + [("partition=0", False)]


@pytest.mark.parametrize("fmt", ["arrow", "parquet"])
def test_each_frame_is_stored_once(tmp_path: Path, fmt: str) -> None:
    j = Journal.create(str(tmp_path / "j"), segment_format=fmt)
    payload = [os.urandom(1024) for _ in range(200)]
    with j.writer("s", seal_age_s=3600) as w:
        for p in payload:
            w.append([p])
    (seg,) = j.segments("s")
    # Version 1 stored ~2 KiB per 1 KiB message (value and frames); once is ~1 KiB.
    assert seg.size < 200 * 1024 * 1.1
    assert [m.value for m in j.messages("s")] == payload
    batch = next(j.read("s"))
    assert batch.schema.equals(SEGMENT_SCHEMA)


def test_topics_that_are_not_frame_0_are_kept(journal: Journal) -> None:
    with journal.writer("s", seal_age_s=3600) as w:
        w.append([b"a", b"1"], topic=b"a")
        w.append([b"b", b"2"], topic=b"other")
        w.append([b"3"])
    assert [(m.topic, m.frames) for m in journal.messages("s")] == [
        (b"a", [b"a", b"1"]), (b"other", [b"b", b"2"]), (None, [b"3"])]  # fmt: skip


def test_partitions_have_their_own_seqs_and_writers(journal: Journal) -> None:
    with journal.writer("s", partition=0) as w0, journal.writer("s", partition=2) as w2:
        with pytest.raises(StreamLockedError):
            journal.writer("s", partition=2)
        assert [w0.append([b"a"]), w2.append([b"b"]), w2.append([b"c"])] == [0, 0, 1]
    assert journal.partitions("s") == [0, 2]
    assert journal.bounds("s", 2) == (0, 2) and journal.count("s") == 3
    assert [m.value for m in journal.messages("s", partition=2)] == [b"b", b"c"]
    assert {g.partition for g in journal.segments("s", 2)} == {2}
    assert os.path.isdir(os.path.join(journal.root, "streams", "stream=s", "partition=2"))


def test_unreachable_storage_is_an_error_never_data_loss(tmp_path: Path) -> None:
    j = Journal.create(str(tmp_path / "j"))
    with j.writer("s", seal_count=5, seal_age_s=3600) as w:
        for i in range(10):
            w.append([b"%d" % i])
    segs = j.segments("s")
    lost: list[DataLossError] = []
    # Another node, where the path holds nothing: not "0 rows".
    with pytest.raises(JournalUnreachableError, match="cannot be read from here"):
        list(read_segments(str(tmp_path / "elsewhere"), "s", segs, 0, 10, on_missing=lost.append))
    # The same path holding another journal.
    other = Journal.create(str(tmp_path / "other"))
    with pytest.raises(JournalUnreachableError, match="another journal"):
        list(read_segments(other.uri, "s", segs, 0, 10, journal_id=j.journal_id,
                           on_missing=lost.append))  # fmt: skip
    assert lost == []
    # The journal is there and the segment is not: that is data loss.
    os.unlink(j.segment_path("s", segs[0]))
    got = read_segments(j.uri, "s", segs, 0, 10, journal_id=j.journal_id, on_missing=lost.append)
    assert [x for b in got for x in b.column("seq").to_pylist()] == list(range(5, 10))
    assert len(lost) == 1 and "deleted by retention" in str(lost[0])
