"""The data pipeline, end to end on embedded Spark: ``python -m purezmq.spark.demo``.

    producers --PUSH--> capture (PULL) --> journal --> Spark Structured Streaming
      --> format("zmq") sink (DEALER, acks, commit markers) --> consumer (ROUTER)

1. Producers (threads, each with its own purezmq PUSH socket) send JSON
   events ``{"producer", "n", "key", "amount", "ts"}``.
2. The capture process (``python -m purezmq.journal capture``, a real
   separate process) journals them into sealed Arrow segments.
3. A streaming query reads the journal (``format("zmq")``), counts events and
   sums amounts per key over tumbling event-time windows, and writes the
   result table through the zmq sink after every micro-batch (Complete
   output mode: Python data source sinks take Append or Complete, and
   Complete makes every committed batch the whole, current answer).
4. The consumer swaps in each committed batch exactly once and prints it.

It ends by itself, prints what each stage saw, recomputes the aggregation
from the journal with a batch query, and exits 1 unless every count
reconciles: sent = journaled = read by Spark = aggregated = received.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any

import purezmq as zmq
from purezmq.journal import Journal

from .consumer import SinkReceiver

STREAM = "events"


def say(stage: str, text: str) -> None:
    """One line of the demo's running commentary."""
    print(f"[{stage:>8}] {text}", flush=True)


# ------------------------------------------------------------------ capture
class CaptureProcess:
    """The capture CLI as a child process; its JSON events are read by a thread."""

    def __init__(self, journal_path: str, seal_ms: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "purezmq.journal", "capture", journal_path, STREAM,
             "--type", "PULL", "--bind", "tcp://127.0.0.1:*", "--seal-ms", str(seal_ms),
             "--events"],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        ready = json.loads(self.proc.stdout.readline())
        self.endpoint: str = ready["endpoints"][STREAM][0]
        self.sealed = 0
        self.segments = 0
        self.final: dict[str, Any] = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            event = json.loads(line)
            if event["event"] == "sealed":
                self.sealed = event["end"]
                self.segments += 1
            elif event["event"] == "stopped":
                self.final = event["stats"][STREAM]

    def stop(self) -> None:
        """SIGTERM: the capture seals what it holds and reports its totals."""
        self.proc.terminate()
        self.proc.wait(30)
        self._reader.join(10)


# ---------------------------------------------------------------- producers
def produce(ctx: zmq.Context, endpoint: str, name: str, count: int, rate: float,
            keys: int, sent: Counter[str]) -> None:  # fmt: skip
    """One producer: `count` events at about `rate` per second over a PUSH socket."""
    rng = random.Random(name)
    push = ctx.socket(zmq.PUSH)
    push.setsockopt(zmq.SNDTIMEO, 30_000)  # a vanished capture fails us, never hangs us
    push.connect(endpoint)
    t0 = time.monotonic()
    for n in range(count):
        event = {
            "producer": name,
            "n": n,
            "key": f"sensor-{rng.randrange(keys)}",
            "amount": round(rng.uniform(0, 100), 2),
            "ts": int(time.time() * 1000),
        }
        push.send(json.dumps(event).encode())
        sent[name] += 1
        ahead = (n + 1) / rate - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
    push.close(linger=10_000)  # PUSH to a live PULL: everything goes out


# ----------------------------------------------------------------- consumer
class Consumer:
    """ROUTER + SinkReceiver in a thread: applies each committed batch once."""

    def __init__(self, ctx: zmq.Context, quiet: bool) -> None:
        self.sock = ctx.socket(zmq.ROUTER)
        port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.receiver = SinkReceiver(self.sock)
        self.table: dict[tuple[str, str], tuple[int, float]] = {}  # (window, key) -> latest
        self.batches = 0
        self.updates = 0
        self.quiet = quiet
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            for batch in self.receiver.poll(100):
                rows = [json.loads(d.value) for d in batch]
                # Complete mode: a committed batch is the whole table; swap it in at once.
                self.table = {(r["window"], r["key"]): (r["count"], r["total"]) for r in rows}
                self.batches += 1
                self.updates += len(rows)
                if rows and not self.quiet:
                    top = max(rows, key=lambda r: (r["window"], r["count"]))
                    say("consumer", f"batch {batch.batch}: table of {len(rows)} (window, key) "
                        f"counts, {self.total} events; newest: {top['key']} @ "
                        f"{top['window'][11:19]} = {top['count']}")  # fmt: skip

    def stop(self) -> None:
        """Stop the thread and close the socket."""
        self._stop.set()
        self._t.join(5)
        self.sock.close(linger=0)

    @property
    def total(self) -> int:
        """Events counted in the latest value of every (window, key)."""
        return sum(c for c, _ in self.table.values())


# -------------------------------------------------------------------- spark
def aggregate(df: Any, window_s: int) -> Any:
    """Parse events, count them and sum amounts per key over event-time windows."""
    from pyspark.sql import functions as F

    schema = "producer STRING, n BIGINT, key STRING, amount DOUBLE, ts BIGINT"
    events = (
        df.select(F.from_json(F.col("value").cast("string"), schema).alias("e")).select("e.*")
        .withColumn("event_time", F.timestamp_millis("ts"))
    )  # fmt: skip
    return events.groupBy(F.window("event_time", f"{window_s} seconds"), "key").agg(
        F.count("*").alias("count"), F.round(F.sum("amount"), 2).alias("total")
    )


def to_messages(agg: Any) -> Any:
    """One JSON message per updated (window, key)."""
    from pyspark.sql import functions as F

    return agg.select(F.to_json(F.struct(
        F.date_format("window.start", "yyyy-MM-dd HH:mm:ss").alias("window"),
        "key", "count", "total",
    )).alias("value"))  # fmt: skip


def start_query(
    spark: Any, journal: str, endpoint: str, ck: str, window_s: int, max_rows: int
) -> Any:
    """The streaming job: journal -> aggregation -> zmq sink, a batch per second."""
    # Python data source sinks support Append and Complete output modes (no Update).
    df = (
        spark.readStream.format("zmq").option("path", journal)
        .option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", str(max_rows))
        .load()
    )  # fmt: skip
    return (
        to_messages(aggregate(df, window_s)).writeStream.format("zmq").outputMode("complete")
        .option("endpoint", endpoint).option("ackMode", "router").option("commitMarker", "true")
        .option("checkpointLocation", ck).trigger(processingTime="1 second").start()
    )  # fmt: skip


def spark_progress(q: Any, seen: dict[int, dict[str, Any]]) -> None:
    """Collect progress reports by batchId (each batch once)."""
    for p in q.recentProgress:
        seen[p["batchId"]] = p


def read_through(seen: dict[int, dict[str, Any]]) -> int:
    """The journal seq the query has read up to (its latest endOffset)."""
    if not seen:
        return 0
    from .offsets import JournalOffset

    end = seen[max(seen)].get("sources", [{}])[0].get("endOffset")
    if not end:
        return 0
    return sum(seq for (s, _), seq in JournalOffset.from_json(end).positions.items() if s == STREAM)


# --------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options of the demo."""
    ap = argparse.ArgumentParser(prog="python -m purezmq.spark.demo", description=__doc__)
    ap.add_argument("--producers", type=int, default=3)
    ap.add_argument("--events", type=int, default=3000, help="events per producer")
    ap.add_argument("--rate", type=float, default=150.0, help="events/s per producer")
    ap.add_argument("--keys", type=int, default=5, help="distinct sensor keys")
    ap.add_argument("--window", type=int, default=2, help="window length in seconds")
    ap.add_argument("--max-rows", type=int, default=1500, help="maxOffsetsPerTrigger")
    ap.add_argument("--workdir", default=None, help="keep journal and checkpoint here")
    ap.add_argument("--quiet", action="store_true", help="no per-batch consumer lines")
    ap.add_argument("--timeout", type=float, default=300.0, help="give up after N seconds")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the whole pipeline; 0 when every count reconciles."""
    from . import session
    from .pipeline_report import reconcile

    a = parse_args(argv)
    if not session.java_available():
        print("Spark needs Java 17+ (java on PATH or JAVA_HOME); scripts/demo.sh installs it.")
        return 1
    work = a.workdir or tempfile.mkdtemp(prefix="purezmq-pipeline-")
    journal_path, ck = os.path.join(work, "journal"), os.path.join(work, "checkpoint")
    Journal.create(journal_path)
    t_start = time.monotonic()
    deadline = t_start + a.timeout
    say("journal", f"{journal_path}")
    cap = CaptureProcess(journal_path, seal_ms=200)
    say("capture", f"pid {cap.proc.pid} PULL bound at {cap.endpoint}")
    ctx = zmq.Context()
    consumer = Consumer(ctx, a.quiet)
    say("consumer", f"ROUTER bound at {consumer.endpoint}")
    say("spark", "starting an embedded local[*] SparkSession (first start takes ~10 s)")
    spark = session.local_session("purezmq-pipeline", master="local[*]")
    t_warm = time.monotonic()
    spark.sparkContext.parallelize(range(4), 2).map(lambda x: x).count()  # start Python workers
    say("spark", f"ready; Python workers warmed up in {time.monotonic() - t_warm:.1f} s")
    q = start_query(spark, journal_path, consumer.endpoint, ck, a.window, a.max_rows)
    say("spark", f"streaming query {q.id} started; producers start now")
    sent: Counter[str] = Counter()
    producers = [
        threading.Thread(
            target=produce, args=(ctx, cap.endpoint, f"p{i + 1}", a.events, a.rate, a.keys, sent)
        )
        for i in range(a.producers)
    ]
    for t in producers:
        t.start()
    seen: dict[int, dict[str, Any]] = {}
    stopped_capture = False
    journal = Journal.open(journal_path)
    try:
        while time.monotonic() < deadline:
            time.sleep(1.0)
            spark_progress(q, seen)
            produced = sum(sent.values())
            end = journal.bounds(STREAM)[1]
            say("progress", f"t={time.monotonic() - t_start:4.0f}s  sent {produced}  journaled "
                f"{end}  spark read {read_through(seen)} ({len(seen)} batches)  consumer "
                f"{consumer.batches} batches / {consumer.total} events")  # fmt: skip
            if q.exception() is not None:
                first = str(q.exception()).strip().splitlines()[:3]
                say("spark", "the streaming query failed: " + " / ".join(first))
                return 1
            if not stopped_capture and not any(t.is_alive() for t in producers):
                if cap.final == {} and cap.sealed < produced:
                    continue  # the capture still seals what it received
                cap.stop()
                stopped_capture = True
                say("capture", f"stopped: {cap.final}")
            if stopped_capture and read_through(seen) >= end and consumer.total >= end:
                break
        q.stop()
        spark_progress(q, seen)
        return reconcile(spark, journal, sent, cap, consumer, seen, a.window, aggregate)
    finally:
        if not stopped_capture:
            cap.stop()
        consumer.stop()
        for t in producers:
            t.join(10)
        ctx.destroy(linger=0)
        spark.stop()
        if a.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
