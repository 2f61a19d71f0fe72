"""ZmqStreamWriter and ZmqBatchWriter without a JVM: input validation, write()
and commit() over real sockets.

write() normally reads the batch and query ids (batch writes: the partition
and attempt) from Spark's TaskContext; here `_task_ids` (`_task_attempt`) is
replaced so the same code runs in the test process.
"""

from __future__ import annotations

import pickle
import threading
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

import purezmq as zmq
from purezmq.spark import sink
from purezmq.spark.consumer import CommittedBatch, SinkReceiver
from purezmq.spark.options import OptionError, SinkOptions
from purezmq.spark.sink import (
    BATCH_WRITE_BATCH_ID,
    ZmqBatchWriter,
    ZmqCommitMessage,
    ZmqStreamWriter,
    check_input,
    rows_to_frames,
)


def schema(**cols: Any) -> StructType:
    return StructType([StructField(k, v) for k, v in cols.items()])


def test_input_columns_are_validated() -> None:
    o = SinkOptions.parse({"endpoint": "tcp://a:1"})
    assert check_input(schema(value=StringType(), other=IntegerType()), o) == (True, False, False)
    assert check_input(schema(frames=ArrayType(BinaryType()), topic=BinaryType()), o) == (
        False, True, True,
    )  # fmt: skip
    with pytest.raises(OptionError, match="needs a 'value' column"):
        check_input(schema(v=BinaryType()), o)
    with pytest.raises(OptionError, match="'value' must be binary or string"):
        check_input(schema(value=IntegerType()), o)
    with pytest.raises(OptionError, match="'frames' must be array"):
        check_input(schema(frames=BinaryType()), o)
    pub = SinkOptions.parse({"endpoint": "tcp://a:1", "socketType": "PUB"})
    with pytest.raises(OptionError, match="PUB sink needs a topic"):
        check_input(schema(value=BinaryType()), pub)


def test_rows_become_frames() -> None:
    batch = pa.RecordBatch.from_pydict({
        "value": ["a", None, "c"],
        "frames": [None, [b"x", b"y"], []],
    })  # fmt: skip
    assert list(rows_to_frames(batch, True, True)) == [[b"a"], [b"x", b"y"], [b"c"]]
    bad = pa.RecordBatch.from_pydict({"value": pa.array([None], pa.binary())})
    with pytest.raises(ValueError, match="neither frames nor a non-null value"):
        list(rows_to_frames(bad, True, False))


@pytest.fixture
def router(ctx: zmq.Context) -> Iterator[tuple[str, SinkReceiver, list[CommittedBatch]]]:
    sock = ctx.socket(zmq.ROUTER)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    recv = SinkReceiver(sock)
    done: list[CommittedBatch] = []
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            done.extend(recv.poll(50))

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    yield f"tcp://127.0.0.1:{port}", recv, done
    stop.set()
    t.join(5)
    sock.close(linger=0)


def test_write_then_commit_delivers_a_batch_exactly_once(
    router: tuple[str, SinkReceiver, list[CommittedBatch]], monkeypatch: pytest.MonkeyPatch
) -> None:
    ep, recv, done = router
    o = SinkOptions.parse({"endpoint": ep, "ackMode": "router", "commitMarker": "true"})
    w = ZmqStreamWriter(o, schema(value=BinaryType()))
    msgs = []
    for part, attempt in ((0, 0), (1, 0), (1, 1)):  # partition 1 is retried
        monkeypatch.setattr(sink, "_task_ids", lambda p=part, a=attempt: ("q1", 9, p, a))
        rows = [pa.RecordBatch.from_pydict({"value": [b"p%d-%d" % (part, i) for i in range(50)]})]
        msgs.append(w.write(iter(rows)))
    assert all(isinstance(m, ZmqCommitMessage) and m.count == 50 for m in msgs)
    assert recv.stats.messages == 150
    # Spark commits with the successful attempt of each partition (attempt 1 for p1).
    w.commit([msgs[0], msgs[2]], 9)
    from tests.conftest import wait_until

    wait_until(lambda: len(done) == 1)
    (batch,) = done
    assert (batch.query, batch.batch, len(batch)) == ("q1", 9, 100)
    assert {d.header.attempt for d in batch if d.header.part == 1} == {1}
    assert recv.stats.discarded_attempts == 1
    w.commit([msgs[0], msgs[2]], 9)  # a repeated commit (replayed batch) changes nothing
    wait_until(lambda: recv.stats.repeated_markers == 1)
    assert len(done) == 1


def test_abort_marker_is_best_effort(monkeypatch: pytest.MonkeyPatch) -> None:
    o = SinkOptions.parse({"endpoint": "tcp://127.0.0.1:1", "commitMarker": "true",
                           "sendTimeoutMs": "100"})  # fmt: skip
    w = ZmqStreamWriter(o, schema(value=BinaryType()))
    w.abort([None, None], 3)  # nobody listens: logged, not raised
    with pytest.raises(Exception, match="sendTimeoutMs=100"):
        w.commit([], 3)  # but a commit that cannot be published fails the batch


# ------------------------------------------------------------ batch writes
def test_batch_writer_shares_one_write_id_and_refuses_overwrite() -> None:
    from purezmq.spark.source import ZmqDataSource

    cols = schema(value=BinaryType())
    a = ZmqDataSource({"endpoint": "tcp://a:1"}).writer(cols, False)
    b = ZmqDataSource({"endpoint": "tcp://a:1"}).writer(cols, False)
    assert isinstance(a, ZmqBatchWriter) and isinstance(b, ZmqBatchWriter)
    assert a.write_id.startswith("write-") and a.write_id != b.write_id
    # Spark pickles the driver's instance to every task and to commit(): the id travels.
    assert pickle.loads(pickle.dumps(a)).write_id == a.write_id
    named = ZmqDataSource({"endpoint": "tcp://a:1", "writeId": "nightly-7"}).writer(cols, False)
    assert isinstance(named, ZmqBatchWriter) and named.write_id == "nightly-7"
    with pytest.raises(OptionError, match="cannot overwrite"):
        ZmqDataSource({"endpoint": "tcp://a:1"}).writer(cols, True)
    with pytest.raises(OptionError, match="needs a 'value' column"):
        ZmqDataSource({"endpoint": "tcp://a:1"}).writer(schema(v=BinaryType()), False)


def _batch_write(w: ZmqBatchWriter, monkeypatch: pytest.MonkeyPatch, part: int, attempt: int,
                 n: int = 40) -> ZmqCommitMessage:  # fmt: skip
    monkeypatch.setattr(sink, "_task_attempt", lambda: (part, attempt))
    rows = [pa.RecordBatch.from_pydict({"value": [b"p%d-%d" % (part, i) for i in range(n)]})]
    return w.write(iter(rows))


def test_batch_write_then_commit_delivers_the_write_once(
    router: tuple[str, SinkReceiver, list[CommittedBatch]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import wait_until

    ep, recv, done = router
    o = SinkOptions.parse({"endpoint": ep, "ackMode": "router", "commitMarker": "true",
                           "writeId": "w1"}, streaming=False)  # fmt: skip
    w = ZmqBatchWriter(o, schema(value=BinaryType()))
    m0 = _batch_write(w, monkeypatch, 0, 0)
    _batch_write(w, monkeypatch, 1, 0)  # this attempt "failed" after sending everything
    m1 = _batch_write(w, monkeypatch, 1, 1)
    assert (m0.query, m0.batch, m0.count) == ("w1", BATCH_WRITE_BATCH_ID, 40)
    w.commit([m0, m1])
    wait_until(lambda: len(done) == 1)
    (batch,) = done
    assert (batch.query, batch.batch, len(batch)) == ("w1", BATCH_WRITE_BATCH_ID, 80)
    assert sorted(d.value for d in batch) == sorted(
        [b"p0-%d" % i for i in range(40)] + [b"p1-%d" % i for i in range(40)]
    )
    assert {d.header.attempt for d in batch if d.header.part == 1} == {1}
    # The same write run again under the same writeId is a replay: dropped whole.
    w2 = ZmqBatchWriter(o, schema(value=BinaryType()))
    w2.commit([_batch_write(w2, monkeypatch, 0, 0)])
    wait_until(lambda: recv.stats.repeated_markers == 1)
    assert len(done) == 1 and recv.stats.replays == 40


def test_batch_abort_is_best_effort_and_a_failed_commit_raises() -> None:
    o = SinkOptions.parse({"endpoint": "tcp://127.0.0.1:1", "commitMarker": "true",
                           "sendTimeoutMs": "100"}, streaming=False)  # fmt: skip
    w = ZmqBatchWriter(o, schema(value=BinaryType()))
    w.abort([None])  # nobody listens: logged, not raised
    with pytest.raises(Exception, match="sendTimeoutMs=100"):
        w.commit([])
