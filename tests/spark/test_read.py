"""Executor-side reading: exact slices, the exact Arrow schema Spark demands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from purezmq.journal import CorruptSegmentError, DataLossError, JournalUnreachableError
from purezmq.spark.offsets import JournalOffset
from purezmq.spark.options import SourceOptions
from purezmq.spark.planning import Planner
from purezmq.spark.read import output_schema, read_slice

from .conftest import make_journal

SPARK_SCHEMA = StructType([
    StructField("stream", StringType()), StructField("partition", IntegerType()),
    StructField("seq", LongType()),
    StructField("timestamp", TimestampType()), StructField("topic", BinaryType()),
    StructField("value", BinaryType()), StructField("frames", ArrayType(BinaryType())),
])  # fmt: skip


HEADERS = StructField("headers", ArrayType(StructType([
    StructField("key", StringType()), StructField("value", BinaryType())])))  # fmt: skip


def test_output_schema_equals_what_spark_checks() -> None:
    # Spark compares the first batch's schema with this, exactly (SPARK-55583).
    assert to_arrow_schema(SPARK_SCHEMA, timezone="UTC").equals(output_schema(True))
    no_frames = StructType(SPARK_SCHEMA.fields[:-1])
    assert to_arrow_schema(no_frames, timezone="UTC").equals(output_schema(False))
    # includeHeaders: Kafka's headers column, last.
    for frames, fields in ((True, SPARK_SCHEMA.fields), (False, no_frames.fields)):
        spark = to_arrow_schema(StructType([*fields, HEADERS]), timezone="UTC")
        assert spark.equals(output_schema(frames, include_headers=True))


@pytest.mark.parametrize("frames", ["true", "false"])
def test_read_slice_yields_exactly_the_planned_rows(tmp_path: Path, frames: str) -> None:
    j = make_journal(tmp_path / "j", {"a": 100}, per_segment=30)
    p = Planner(j, SourceOptions.parse({"path": j.uri, "minPartitions": "3",
                                        "includeFrames": frames}, streaming=True))  # fmt: skip
    plans = p.plan(
        JournalOffset(j.journal_id, {("a", 0): 7}), JournalOffset(j.journal_id, {("a", 0): 93})
    )
    rows = []
    for plan in plans:
        for batch in read_slice(plan):
            assert batch.schema.equals(output_schema(frames == "true"))
            rows.extend(batch.to_pylist())
    assert [r["seq"] for r in rows] == list(range(7, 93))
    assert {(r["stream"], r["partition"]) for r in rows} == {("a", 0)}
    assert [r["value"] for r in rows] == [f"a-{i}".encode() for i in range(7, 93)]
    assert all(r["topic"] == b"k" for r in rows)
    if frames == "true":
        assert rows[0]["frames"] == [b"k", b"a-7"]
    assert rows[0]["timestamp"].timestamp() == pytest.approx(1_700_000_000.000007)


def test_segment_deleted_after_planning(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 60}, per_segment=20)
    for fail, expect in (("true", None), ("false", list(range(20, 60)))):
        p = Planner(j, SourceOptions.parse({"path": j.uri, "failOnDataLoss": fail},
                                           streaming=True))  # fmt: skip
        (plan,) = p.plan(JournalOffset(j.journal_id), JournalOffset(j.journal_id, {("a", 0): 60}))
        first = j.segment_path("a", plan.segments[0])
        with open(first, "rb") as f:
            data = f.read()
        os.unlink(first)  # retention ran between planning and the task
        try:
            if expect is None:
                with pytest.raises(DataLossError, match="gone"):
                    list(read_slice(plan))
            else:
                seqs = [s for b in read_slice(plan) for s in b.column("seq").to_pylist()]
                assert seqs == expect
        finally:
            with open(first, "wb") as f:
                f.write(data)


def test_nothing_to_read_is_no_rows() -> None:
    # Spark calls read(InputPartition(None)) when partitions() planned none (an
    # empty journal, startingOffsets=latest, start == end): it used to crash.
    assert list(read_slice(None)) == []


def test_unreachable_storage_fails_even_with_fail_on_data_loss_false(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 60}, per_segment=20)
    p = Planner(j, SourceOptions.parse({"path": j.uri, "failOnDataLoss": "false"},
                                       streaming=True))  # fmt: skip
    (plan,) = p.plan(JournalOffset(j.journal_id), JournalOffset(j.journal_id, {("a", 0): 60}))
    os.rename(j.root, str(tmp_path / "moved"))  # this executor does not see the journal
    with pytest.raises(JournalUnreachableError, match="cannot be read from here"):
        list(read_slice(plan))


@pytest.mark.parametrize("damage", ["flipped", "truncated"])
def test_a_corrupt_segment_fails_or_is_skipped(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    # A truncated segment could not be skipped even with failOnDataLoss=false (issue 15).
    j = make_journal(tmp_path / "j", {"a": 60}, per_segment=20)
    seg = j.segments("a")[1]
    path = j.segment_path("a", seg)
    data = bytearray(Path(path).read_bytes())
    if damage == "flipped":
        data[-30] ^= 0x04
    else:
        del data[len(data) // 2 :]
    Path(path).write_bytes(bytes(data))
    for fail in ("true", "false"):
        p = Planner(j, SourceOptions.parse({"path": j.uri, "failOnDataLoss": fail},
                                           streaming=True))  # fmt: skip
        (plan,) = p.plan(JournalOffset(j.journal_id), JournalOffset(j.journal_id, {("a", 0): 60}))
        if fail == "true":
            with pytest.raises(CorruptSegmentError, match=r"checksum mismatch.*failOnDataLoss"):
                list(read_slice(plan))
        else:
            with caplog.at_level("WARNING", logger="purezmq.spark"):
                seqs = [s for b in read_slice(plan) for s in b.column("seq").to_pylist()]
            assert seqs == [*range(20), *range(40, 60)]  # only the damaged segment is skipped
            assert [r.levelname for r in caplog.records if seg.name in r.getMessage()] == [
                "WARNING"]  # fmt: skip
