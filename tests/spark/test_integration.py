"""format("zmq") on a real local SparkSession (one for the whole run).

Every query uses Trigger.AvailableNow, so it ends by itself; every wait has
a timeout. Marked ``spark``: ``pytest -m "not spark"`` runs the rest.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import purezmq as zmq
from purezmq.spark import lag, skipped
from purezmq.spark.consumer import CommittedBatch, SinkReceiver

from .conftest import append, make_journal

pytestmark = [pytest.mark.spark, pytest.mark.timeout(300)]

EXPECTED_SCHEMA = (
    "struct<stream:string,partition:int,seq:bigint,timestamp:timestamp,topic:binary,"
    "value:binary,frames:array<binary>>"
)


def run(spark: Any, path: str, sink: str, ck: Path, *, name: str | None = None,
        select: str | None = None, opts: dict[str, str] | None = None,
        sink_opts: dict[str, str] | None = None) -> Any:  # fmt: skip
    """Run one AvailableNow query journal -> sink; return it once terminated."""
    df = spark.readStream.format("zmq").option("path", path).option("startingOffsets", "earliest")
    for k, v in (opts or {}).items():
        df = df.option(k, v)
    frame = df.load()
    if select:
        frame = frame.selectExpr(*select.split(";"))
    w = frame.writeStream.format(sink).option("checkpointLocation", str(ck))
    if name:
        w = w.queryName(name)
    for k, v in (sink_opts or {}).items():
        w = w.option(k, v)
    q = w.trigger(availableNow=True).start()
    q.awaitTermination(180)
    return q


def input_rows(q: Any) -> list[int]:
    return [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]]


def test_all_rows_exactly_once_with_the_exact_schema(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 200})
    q = run(spark, j.uri, "memory", tmp_path / "ck", name="exact")
    df = spark.table("exact")
    assert df.schema.simpleString() == EXPECTED_SCHEMA
    rows = df.collect()
    assert len(rows) == 500
    assert sorted((r.stream, r.seq) for r in rows) == [("a", i) for i in range(300)] + [
        ("b", i) for i in range(200)
    ]
    assert all(r.value == f"{r.stream}-{r.seq}".encode() and r.topic == b"k" for r in rows)
    assert all(list(r.frames) == [b"k", r.value] for r in rows)
    assert lag(q.lastProgress) == {"a": 0, "b": 0}
    # Batch reads give the same rows.
    assert spark.read.format("zmq").option("path", j.uri).load().count() == 500


def test_max_offsets_per_trigger_and_lag(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 200})
    q = run(spark, j.uri, "memory", tmp_path / "ck", name="capped",
            opts={"maxOffsetsPerTrigger": "150"})  # fmt: skip
    assert input_rows(q) == [150, 150, 150, 50]
    first = next(p for p in q.recentProgress if p["numInputRows"])
    assert lag(first) == {"a": 210, "b": 140}  # lag reported while catching up
    assert spark.table("capped").count() == 500


def test_restart_from_checkpoint_continues_without_rereading(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100})
    out, ck = str(tmp_path / "out"), tmp_path / "ck"
    q1 = run(spark, j.uri, "parquet", ck, select="stream;seq", sink_opts={"path": out})
    append(j, "a", 100, 160)
    q2 = run(spark, j.uri, "parquet", ck, select="stream;seq", sink_opts={"path": out})
    assert sum(input_rows(q1)) == 100 and sum(input_rows(q2)) == 60
    seqs = sorted(r.seq for r in spark.read.parquet(out).collect())
    assert seqs == list(range(160))


class FlakyReceiver:
    """A ROUTER consumer that goes down (drops everything, acks nothing) after
    `fail_after` data messages, until `recover()`; its assembler state survives."""

    def __init__(self, ctx: zmq.Context, fail_after: int) -> None:
        self.sock = ctx.socket(zmq.ROUTER)
        self.endpoint = f"tcp://127.0.0.1:{self.sock.bind_to_random_port('tcp://127.0.0.1')}"
        self.recv = SinkReceiver(self.sock)
        self.fail_after = fail_after
        self.down = False
        self.lost = 0
        self.batches: list[CommittedBatch] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self.down and self.recv.stats.messages >= self.fail_after:
                self.down = True
            if self.down:
                if self.sock.poll(50):
                    self.sock.recv_multipart()
                    self.lost += 1
                continue
            self.batches.extend(self.recv.poll(50, max_messages=1))

    def recover(self) -> None:
        self.fail_after = 1 << 60
        self.down = False

    def close(self) -> None:
        self._stop.set()
        self._t.join(5)
        self.sock.close(linger=0)


def test_sink_failure_mid_query_then_restart_is_exactly_once(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 600})
    ctx = zmq.Context()
    consumer = FlakyReceiver(ctx, fail_after=250)  # dies in the middle of batch 2
    sink_opts = {"endpoint": consumer.endpoint, "ackMode": "router", "commitMarker": "true",
                 "ackTimeoutMs": "500", "ackRetries": "1", "sendTimeoutMs": "5000"}  # fmt: skip
    opts = {"maxOffsetsPerTrigger": "100"}
    try:
        with pytest.raises(Exception, match="unacknowledged"):
            run(spark, j.uri, "zmq", tmp_path / "ck", select="value", opts=opts,
                sink_opts=sink_opts)  # fmt: skip
        assert consumer.down and consumer.lost > 0
        committed_before = [b.batch for b in consumer.batches]
        assert committed_before == [0, 1]
        consumer.recover()
        run(spark, j.uri, "zmq", tmp_path / "ck", select="value", opts=opts, sink_opts=sink_opts)
        values = [d.value for b in consumer.batches for d in b]
        assert sorted(values) == sorted(f"a-{i}".encode() for i in range(600))
        assert len(values) == len(set(values)) == 600  # each message exactly once
        assert [b.batch for b in consumer.batches] == list(range(6))
        stats = consumer.recv.stats
        # The failed attempt of batch 2 had delivered part of its rows: they were dropped.
        assert stats.messages > 600 and stats.committed_messages == 600
    finally:
        consumer.close()
        ctx.destroy(linger=0)


def test_fail_on_data_loss_both_ways(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100}, per_segment=50)
    out, ck = str(tmp_path / "out"), tmp_path / "ck"
    run(spark, j.uri, "parquet", ck, select="seq", sink_opts={"path": out})
    append(j, "a", 100, 200, per_segment=50)
    deleted = j.apply_retention(max_bytes=j.segments("a")[-1].size)  # unread [100, 150) goes
    assert [g.first for _, g in deleted] == [0, 50, 100]
    with pytest.raises(Exception, match="failOnDataLoss=false"):
        run(spark, j.uri, "parquet", ck, select="seq", sink_opts={"path": out})
    q = run(spark, j.uri, "parquet", ck, select="seq", sink_opts={"path": out},
            opts={"failOnDataLoss": "false"})  # fmt: skip
    assert q.exception() is None
    seqs = sorted(r.seq for r in spark.read.parquet(out).collect())
    assert seqs == list(range(100)) + list(range(150, 200))
    assert [skipped(p) for p in q.recentProgress if p["numInputRows"]] == [50]  # in progress


def test_fail_on_data_loss_false_skips_only_what_is_gone(spark: Any, tmp_path: Path) -> None:
    """A missing middle segment and a corrupt one: every intact seq is read, the
    rest is skipped and shows in the progress (it used to read only 400 of 900)."""
    j = make_journal(tmp_path / "j", {"a": 1000}, per_segment=100)
    segs = j.segments("a")
    os.unlink(j.segment_path("a", segs[5]))  # [500, 600) deleted
    bad = Path(j.segment_path("a", segs[7]))  # [700, 800) damaged
    data = bytearray(bad.read_bytes())
    data[len(data) // 3] ^= 0x01
    bad.write_bytes(bytes(data))
    q = run(spark, j.uri, "memory", tmp_path / "ck", name="lenient",
            opts={"failOnDataLoss": "false"})  # fmt: skip
    seqs = sorted(r.seq for r in spark.table("lenient").select("seq").collect())
    assert seqs == [*range(500), *range(600, 700), *range(800, 1000)]
    assert sum(skipped(p) for p in q.recentProgress) == 200
    with pytest.raises(Exception, match="checksum mismatch"):
        spark.read.format("zmq").option("path", j.uri).option(
            "startingOffsets", '{"a": 600}').load().count()  # fmt: skip


def test_empty_ranges_read_no_rows(spark: Any, tmp_path: Path) -> None:
    """Each of these used to crash with 'NoneType' object has no attribute 'path'."""
    from purezmq.journal import Journal

    empty = Journal.create(str(tmp_path / "empty"))
    assert spark.read.format("zmq").option("path", empty.uri).load().count() == 0
    j = make_journal(tmp_path / "j", {"a": 50})
    latest = spark.read.format("zmq").option("path", j.uri).option("startingOffsets", "latest")
    assert latest.load().count() == 0
    same = (spark.read.format("zmq").option("path", j.uri)
            .option("startingOffsets", '{"a": 20}')
            .option("endingOffsets", '{"a": 20}'))  # fmt: skip
    assert same.load().count() == 0


def test_a_journal_on_s3(spark: Any, s3_endpoint: str, tmp_path: Path) -> None:
    from tests.journal.s3server import new_bucket

    uri = new_bucket(s3_endpoint, scheme="s3a")  # Hadoop's spelling works too
    j = make_journal(uri, {"a": 200}, per_segment=50)
    append(j, "a", 0, 100, partition=1)
    q = run(spark, uri, "memory", tmp_path / "ck", name="s3", opts={"maxOffsetsPerTrigger": "150"})
    rows = spark.table("s3").select("partition", "seq", "value").collect()
    assert sorted((r.partition, r.seq) for r in rows) == [(0, i) for i in range(200)] + [
        (1, i) for i in range(100)]  # fmt: skip
    assert input_rows(q) == [150, 150]


def test_names_and_offsets_are_checked_at_load(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"ids": 30})

    def reader() -> Any:  # DataFrameReader.option() changes the reader in place
        return spark.read.format("zmq").option("path", j.uri)

    with pytest.raises(Exception, match=r"'idz', not in the journal.*streams are: ids"):
        reader().option("streams", "idz").load()
    with pytest.raises(Exception, match=r"startingOffsets names 'idz'.*streams: ids"):
        spark.readStream.format("zmq").option("path", j.uri).option(
            "startingOffsets", '{"idz": 3}').load()  # fmt: skip
    with pytest.raises(Exception, match=r"seq 99 .* beyond its end.*nothing was deleted"):
        reader().option("endingOffsets", '{"ids": 99}').load().count()
    lenient = reader().option("endingOffsets", '{"ids": 99}').option("failOnDataLoss", "false")
    assert lenient.load().count() == 30


def test_sink_delivers_every_row_to_a_pull_receiver(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 200, "b": 100})
    ctx = zmq.Context()
    pull = ctx.socket(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    try:
        run(spark, j.uri, "zmq", tmp_path / "ck", select="value", opts={"minPartitions": "4"},
            sink_opts={"endpoint": f"tcp://127.0.0.1:{port}"})  # fmt: skip
        got = []
        while pull.poll(2000):
            got.append(pull.recv_multipart())
            if len(got) == 300:
                break
        from purezmq.spark.protocol import Header, decode

        headers = [decode(m[0]) for m in got]
        assert all(isinstance(h, Header) for h in headers)
        assert len({(h.part, h.index) for h in headers if isinstance(h, Header)}) == 300
        assert sorted(m[1] for m in got) == sorted(
            [f"a-{i}".encode() for i in range(200)] + [f"b-{i}".encode() for i in range(100)]
        )
        assert not pull.poll(200)  # nothing more: every row exactly once
    finally:
        ctx.destroy(linger=0)


class Collector:
    """A bound PULL socket with a SinkReceiver, polled by a thread (so senders never block)."""

    def __init__(self, ctx: zmq.Context) -> None:
        self.sock = ctx.socket(zmq.PULL)
        self.endpoint = f"tcp://127.0.0.1:{self.sock.bind_to_random_port('tcp://127.0.0.1')}"
        self.recv = SinkReceiver(self.sock)
        self.batches: list[CommittedBatch] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.batches.extend(self.recv.poll(50))

    def close(self) -> None:
        self._stop.set()
        self._t.join(5)
        self.sock.close(linger=0)


def test_batch_write_delivers_every_row_exactly_once(spark: Any) -> None:
    from tests.conftest import wait_until

    ctx = zmq.Context()
    c = Collector(ctx)
    try:
        df = spark.range(0, 600, numPartitions=3).selectExpr("CAST(id AS STRING) AS value")
        (df.write.format("zmq").mode("append").option("endpoint", c.endpoint)
           .option("commitMarker", "true").option("writeId", "backfill-1").save())  # fmt: skip
        wait_until(lambda: c.batches, timeout=30)
        (batch,) = c.batches
        assert (batch.query, batch.batch) == ("backfill-1", 0)
        assert sorted(int(d.value) for d in batch) == list(range(600))
        assert {d.header.part for d in batch} == {0, 1, 2}  # one sender per task
        assert (c.recv.stats.messages, c.recv.stats.duplicates) == (600, 0)  # each row sent once
        # The same write again (same writeId): every row travels, none is applied twice.
        (df.write.format("zmq").mode("append").option("endpoint", c.endpoint)
           .option("commitMarker", "true").option("writeId", "backfill-1").save())  # fmt: skip
        wait_until(lambda: c.recv.stats.messages == 1200, timeout=30)
        wait_until(lambda: c.recv.stats.repeated_markers == 1, timeout=30)
        assert len(c.batches) == 1 and c.recv.stats.replays == 600
        # Without writeId, the random id drawn on the driver reaches every task and the
        # commit (Spark pickles one writer instance to all of them): a new write, applied.
        df.write.format("zmq").mode("append").option("endpoint", c.endpoint).option(
            "commitMarker", "true"
        ).save()
        wait_until(lambda: len(c.batches) == 2, timeout=30)
        fresh = c.batches[1]
        assert fresh.query.startswith("write-") and len(fresh) == 600
        assert {d.header.query for d in fresh} == {fresh.query}
        # Spark's default save mode (ErrorIfExists) is refused by Spark itself for Python
        # sinks, and overwrite by the sink: neither sends anything.
        with pytest.raises(Exception, match="ErrorIfExists"):
            df.write.format("zmq").option("endpoint", c.endpoint).save()
        with pytest.raises(Exception, match="cannot overwrite"):
            df.write.format("zmq").mode("overwrite").option("endpoint", c.endpoint).save()
        assert c.recv.stats.messages == 1800
    finally:
        c.close()
        ctx.destroy(linger=0)


def test_parquet_segments_read_by_sparks_own_file_source(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 120, "b": 80}, per_segment=40, fmt="parquet")
    # Each frame is stored once: the value is the last frame, the topic (SUB) the first.
    schema = "seq BIGINT, timestamp TIMESTAMP, frames ARRAY<BINARY>, stream STRING, partition INT"
    q = (
        spark.readStream.schema(schema).parquet(f"{j.root}/streams")
        .selectExpr("*", "element_at(frames, -1) AS value")
        .writeStream.format("memory").queryName("pq")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True).start()
    )  # fmt: skip
    q.awaitTermination(180)
    rows = spark.table("pq").collect()
    assert sorted((r.stream, r.seq) for r in rows) == [("a", i) for i in range(120)] + [
        ("b", i) for i in range(80)
    ]
    assert all(r.value == f"{r.stream}-{r.seq}".encode() for r in rows)


def test_batch_read_with_ending_offsets_and_min_partitions(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 50})
    df = (spark.read.format("zmq").option("path", j.uri).option("streams", "a")
          .option("startingOffsets", '{"a": 20}').option("endingOffsets", '{"a": 220}')
          .option("minPartitions", "3").option("includeFrames", "false").load())  # fmt: skip
    assert "frames" not in df.columns
    assert df.rdd.getNumPartitions() >= 3
    assert sorted(r.seq for r in df.select("seq").collect()) == list(range(20, 220))


def test_bad_options_fail_at_start_with_a_clear_message(spark: Any, tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 1})
    with pytest.raises(Exception, match="endpoint is required"):
        run(spark, j.uri, "zmq", tmp_path / "ck", select="value")
    with pytest.raises(Exception, match="not a purezmq journal"):
        spark.read.format("zmq").option("path", str(tmp_path / "nope")).load().count()


@pytest.fixture(autouse=True)
def _no_leftover_queries(spark: Any) -> Iterator[None]:
    yield
    for q in spark.streams.active:
        q.stop()
