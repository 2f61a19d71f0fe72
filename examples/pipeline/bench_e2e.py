"""End-to-end throughput: python examples/pipeline/bench_e2e.py [-n N] [--reps R] [--json OUT]

Measures, in one run on this machine, with the same N small messages:

(a) sockets -> journal: a PUSH socket in this process sends N messages over
    tcp to ``python -m purezmq.journal capture`` (a separate process, PULL);
    timed from the first send until the capture reports the last message
    sealed. Repeated; the last capture's journal feeds (b).
(b) journal -> Spark -> sink: ``spark.readStream.format("zmq")`` over that
    journal, a light transformation, ``writeStream.format("zmq")`` (PUSH,
    commit markers) to a PULL `SinkReceiver` in this process, under
    ``Trigger.AvailableNow``; timed from ``start()`` until the receiver holds
    the committed batch with all N rows.
(c) the baseline: the same rows written once as Parquet files (one per
    journal segment, pyarrow) read by Spark's built-in
    ``spark.readStream.format("parquet")``, same schema, transformation, sink
    and trigger.
(b') and (c'): (b) and (c) with Spark's ``noop`` sink, which isolates the
    source: the zmq sink and the receiver are the same Python code in (b)
    and (c), so they dilute the difference between the sources.

Spark runs ``local[2]`` with the settings of tests/spark/conftest.py (via
`purezmq.spark.session.local_session`: SPARK_LOCAL_IP=127.0.0.1, UI off).
One untimed run of every query comes first (JVM JIT, Python worker start,
page cache); then the four queries run ``--reps`` times, interleaved and
in a rotating order so background load spreads over all of them, and the
table shows medians. Every (b)/(c) run checks that each row arrived exactly
once. Numbers are what they are on the machine that runs this; nothing is
asserted about speed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import purezmq as zmq
from purezmq.journal import Journal
from purezmq.spark.consumer import CommittedBatch, SinkReceiver
from purezmq.spark.demo import STREAM, CaptureProcess

# The light transformation applied by every query: it reads seq and value, so a
# columnar source may prune the other columns (a Python source cannot).
TRANSFORM = "concat(CAST(seq AS STRING), ':', upper(CAST(value AS STRING))) AS value"
SCHEMA_DDL = (
    "stream STRING, seq BIGINT, timestamp TIMESTAMP, topic BINARY, value BINARY, "
    "frames ARRAY<BINARY>"
)  # what format("zmq") yields; the Parquet files hold exactly these columns


def payloads(n: int, size: int) -> list[bytes]:
    """N distinct printable payloads (base64 of random bytes), made before any clock starts.

    Printable, so ``upper(CAST(value AS STRING))`` is meaningful; random, so
    Parquet's encodings cannot shrink them much more than a real payload's.
    """
    raw = os.urandom(n * size)
    return [base64.b64encode(raw[i * size : (i + 1) * size])[:size] for i in range(n)]


# ------------------------------------------------------------------ (a) capture
def capture(work: str, data: list[bytes], seal_ms: int) -> tuple[str, dict[str, float]]:
    """PUSH -> tcp -> capture process (PULL) -> sealed Arrow segments; returns the journal."""
    path = os.path.join(work, f"journal-{time.monotonic_ns()}")
    Journal.create(path)
    cap = CaptureProcess(path, seal_ms=seal_ms)
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.setsockopt(zmq.SNDTIMEO, 30_000)  # a vanished capture fails the benchmark, no hang
    push.connect(cap.endpoint)
    n = len(data)
    t0 = time.perf_counter()
    for msg in data:
        push.send(msg)
    sent = time.perf_counter() - t0
    deadline = time.monotonic() + 120
    while cap.sealed < n and time.monotonic() < deadline:
        time.sleep(0.002)  # the capture reports seals on stdout, read by a thread
    dt = time.perf_counter() - t0
    cap.stop()
    push.close(linger=0)
    ctx.term()
    if cap.sealed != n:
        raise RuntimeError(f"the capture sealed {cap.sealed} of {n} messages")
    return path, {
        "msgs": n,
        "send_s": sent,
        "sealed_s": dt,
        "msgs_per_s": n / dt,
        "segments": cap.segments,
    }


# ------------------------------------------------------------ Parquet baseline
def to_parquet(journal: str, out: str) -> dict[str, float]:
    """Write the rows format("zmq") yields, one Parquet file per journal segment.

    Uses the source's own executor code (`read_slice`) so the files hold
    exactly the rows and Arrow types Spark gets from the journal; the time it
    takes is also what the source's Python work costs outside Spark.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from purezmq.spark.options import SourceOptions
    from purezmq.spark.planning import Planner
    from purezmq.spark.positions import ending, starting
    from purezmq.spark.read import read_slice

    j = Journal.open(journal)
    opts = SourceOptions.parse({"path": journal}, streaming=False)
    planner = Planner(j, opts)
    start = starting(planner, "earliest")
    plans = planner.plan(start, ending(planner, "latest", start))
    t0 = time.perf_counter()
    batches = [b for plan in plans for b in read_slice(plan)]
    read_s = time.perf_counter() - t0
    table = pa.Table.from_batches(batches)
    first_seq = int(table.column("seq")[0].as_py())
    os.makedirs(out)
    t0 = time.perf_counter()
    segments = j.segments(STREAM)
    for seg in segments:
        tmp = os.path.join(out, f".tmp-{seg.first}.parquet")  # hidden until renamed
        pq.write_table(table.slice(seg.first - first_seq, seg.count), tmp)
        os.rename(tmp, os.path.join(out, f"part-{seg.first:012d}.parquet"))
    write_s = time.perf_counter() - t0
    return {
        "rows": table.num_rows,
        "files": len(segments),
        "read_slice_s": read_s,
        "read_slice_rows_per_s": table.num_rows / read_s,
        "write_s": write_s,
        "bytes": sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)),
    }


# ------------------------------------------------------------------ Spark runs
@dataclass
class Run:
    """One timed query."""

    name: str
    rows: int
    seconds: float
    query_s: float
    parts: int = 0  # tasks that sent rows (zmq sink only)
    durations_ms: dict[str, int] = field(default_factory=dict)
    before_first_trigger_s: float = 0.0  # start() until the first trigger began

    @property
    def rows_per_s(self) -> float:
        """Throughput of this run."""
        return self.rows / self.seconds

    @property
    def in_trigger_rows_per_s(self) -> float:
        """Throughput inside the query's triggers: what a long-running query sees."""
        return self.rows / (self.durations_ms.get("triggerExecution", 1) / 1000)

    @property
    def outside_triggers_s(self) -> float:
        """Query time not spent in a trigger: starting the query (for a Python
        source, its runner process), ending it, and the receiver's last part."""
        return self.seconds - self.durations_ms.get("triggerExecution", 0) / 1000


class Receiver:
    """A PULL SinkReceiver in a thread; notes when the committed rows reach `expect`."""

    def __init__(self, ctx: zmq.Context, expect: int) -> None:
        self.sock = ctx.socket(zmq.PULL)
        self.endpoint = f"tcp://127.0.0.1:{self.sock.bind_to_random_port('tcp://127.0.0.1')}"
        self.recv = SinkReceiver(self.sock)
        self.expect = expect
        self.batches: list[CommittedBatch] = []
        self.done_at: float | None = None
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            got = self.recv.poll(50)
            if got:
                self.batches.extend(got)
                if self.done_at is None and self.recv.stats.committed_messages >= self.expect:
                    self.done_at = time.perf_counter()
                    return

    def wait(self, timeout: float) -> None:
        """Until every row is committed (or `timeout`)."""
        self._t.join(timeout)

    def close(self) -> None:
        """Stop the thread, close the socket."""
        self._stop.set()
        self._t.join(5)
        self.sock.close(linger=0)

    def check(self) -> int:
        """Every seq exactly once (values are "<seq>:<PAYLOAD>"); returns the tasks seen."""
        msgs = [d for b in self.batches for d in b]
        seqs = sorted(int(d.value.split(b":", 1)[0]) for d in msgs)
        if seqs != list(range(self.expect)) or self.recv.stats.duplicates:
            raise RuntimeError(
                f"sink delivered {len(seqs)} rows ({len(set(seqs))} distinct) of {self.expect}"
            )
        return len({d.header.part for d in msgs})


def run_query(
    spark: Any,
    kind: str,
    sink: str,
    journal: str,
    parquet: str,
    work: str,
    n: int,
    ctx: zmq.Context,
) -> Run:
    """One AvailableNow query from a fresh checkpoint: source `kind`, sink `sink`."""
    if kind == "zmq":
        df = (
            spark.readStream.format("zmq")
            .option("path", journal)
            .option("startingOffsets", "earliest")
            .option("minPartitions", "2")
            .load()
        )
    else:
        df = spark.readStream.schema(SCHEMA_DDL).format("parquet").load(parquet)
    out = df.selectExpr(TRANSFORM)
    ck = tempfile.mkdtemp(prefix="ck-", dir=work)
    w = out.writeStream.option("checkpointLocation", ck).trigger(availableNow=True)
    receiver = None
    if sink == "zmq":
        receiver = Receiver(ctx, n)
        w = w.format("zmq").option("endpoint", receiver.endpoint).option("commitMarker", "true")
    else:
        w = w.format("noop")
    try:
        t0 = time.perf_counter()
        wall0 = time.time()
        q = w.start()
        if receiver is not None:
            receiver.wait(600)
        q.awaitTermination(600)
        t_end = time.perf_counter()
        if q.exception() is not None:
            raise RuntimeError(f"{kind}->{sink} failed: {q.exception()}")
        done = receiver.done_at if receiver is not None else t_end
        if done is None:
            raise RuntimeError(f"{kind}->{sink}: the receiver never got all {n} rows")
        parts = receiver.check() if receiver is not None else 0
        data = [p for p in q.recentProgress if p["numInputRows"]]
        rows = sum(p["numInputRows"] for p in data)
        if rows != n:
            raise RuntimeError(f"{kind}->{sink} read {rows} rows, expected {n}")
        durations: dict[str, int] = {}
        for p in data:
            for k, v in p["durationMs"].items():
                durations[k] = durations.get(k, 0) + int(v)
        first = datetime.fromisoformat(q.recentProgress[0]["timestamp"]).timestamp()
        return Run(f"{kind}->{sink}", n, done - t0, t_end - t0, parts, durations, first - wall0)
    finally:
        if receiver is not None:
            receiver.close()
        shutil.rmtree(ck, ignore_errors=True)


def tiny_source() -> Any:
    """A minimal Python streaming source (one row, nothing of purezmq imported).

    Timing a query over it shows what Spark's Python source machinery costs
    by itself at query start (the source runner process Spark launches for
    every query run), apart from anything purezmq does.
    """
    from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

    class TinyReader(DataSourceStreamReader):
        def initialOffset(self) -> dict[str, int]:  # noqa: N802 - Spark's API
            return {"n": 0}

        def latestOffset(self, start: dict[str, int], limit: Any) -> dict[str, int]:  # noqa: N802
            return {"n": 1}

        def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
            return [InputPartition(0)] if start["n"] < end["n"] else []

        def read(self, partition: InputPartition) -> Any:
            yield (0,)

    class Tiny(DataSource):
        @classmethod
        def name(cls) -> str:
            return "pz_bench_tiny"

        def schema(self) -> str:
            return "id BIGINT"

        def streamReader(self, schema: Any) -> DataSourceStreamReader:  # noqa: N802
            return TinyReader()

    return Tiny


def probe_runner(spark: Any, work: str, reps: int) -> list[dict[str, float]]:
    """Time AvailableNow queries over `tiny_source` (noop sink): start-up cost alone."""
    spark.dataSource.register(tiny_source())
    out = []
    for _ in range(reps + 1):  # the first one is a warm-up
        ck = tempfile.mkdtemp(prefix="ck-", dir=work)
        w = (
            spark.readStream.format("pz_bench_tiny").load().writeStream.format("noop")
            .option("checkpointLocation", ck).trigger(availableNow=True)
        )  # fmt: skip
        wall0, t0 = time.time(), time.perf_counter()
        q = w.start()
        q.awaitTermination(600)
        dt = time.perf_counter() - t0
        first = datetime.fromisoformat(q.recentProgress[0]["timestamp"]).timestamp()
        trig = sum(p["durationMs"]["triggerExecution"] for p in q.recentProgress) / 1000
        out.append({"wall_s": dt, "before_first_trigger_s": first - wall0, "trigger_s": trig})
        shutil.rmtree(ck, ignore_errors=True)
    return out[1:]


# ---------------------------------------------------------------------- report
QUERIES = [("zmq", "zmq"), ("parquet", "zmq"), ("zmq", "noop"), ("parquet", "noop")]
LABELS = {
    "zmq->zmq": '(b) journal `format("zmq")` -> zmq sink -> PULL receiver',
    "parquet->zmq": '(c) Parquet `format("parquet")` -> zmq sink -> PULL receiver',
    "zmq->noop": '(b\') journal `format("zmq")` -> `noop` sink',
    "parquet->noop": '(c\') Parquet `format("parquet")` -> `noop` sink',
}


def median(xs: list[float]) -> float:
    """The median (nan for nothing)."""
    return statistics.median(xs) if xs else float("nan")


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    import pyarrow
    import pyspark

    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "pyspark": pyspark.__version__,
        "pyarrow": pyarrow.__version__,
        "purezmq": zmq.__file__,
        "git_head": head,
    }


def summarize(caps: list[dict[str, float]], runs: list[Run]) -> dict[str, Any]:
    """Medians per query, and the ratios the requirement asks about."""
    by: dict[str, list[Run]] = {}
    for r in runs:
        by.setdefault(r.name, []).append(r)
    med = {k: median([r.rows_per_s for r in v]) for k, v in by.items()}
    inside = {k: median([r.in_trigger_rows_per_s for r in v]) for k, v in by.items()}

    def ratio(m: dict[str, float], a: str, b: str) -> float:
        return m[a] / m[b] if a in m and b in m else float("nan")

    return {
        "capture_msgs_per_s": median([c["msgs_per_s"] for c in caps]),
        "rows_per_s": med,
        "seconds": {k: median([r.seconds for r in v]) for k, v in by.items()},
        "in_trigger_rows_per_s": inside,
        "ratio_b_c": ratio(med, "zmq->zmq", "parquet->zmq"),
        "ratio_b_c_noop": ratio(med, "zmq->noop", "parquet->noop"),
        "ratio_b_c_in_trigger": ratio(inside, "zmq->zmq", "parquet->zmq"),
        "ratio_b_c_noop_in_trigger": ratio(inside, "zmq->noop", "parquet->noop"),
    }


def table(
    n: int, size: int, caps: list[dict[str, float]], runs: list[Run], summary: dict[str, Any]
) -> str:
    """The results as a markdown table."""
    lines = [
        "| path | runs | median s | median rows/s | all runs rows/s |",
        "|---|---|---|---|---|",
    ]
    cap_all = ", ".join(f"{c['msgs_per_s']:,.0f}" for c in caps)
    lines.append(
        f"| (a) PUSH -> tcp -> capture (PULL) -> sealed journal, {n:,} x {size} B "
        f"| {len(caps)} | {median([c['sealed_s'] for c in caps]):.2f} "
        f"| {summary['capture_msgs_per_s']:,.0f} | {cap_all} |"
    )
    for name, label in LABELS.items():
        rs = [r for r in runs if r.name == name]
        if not rs:
            continue
        all_ = ", ".join(f"{r.rows_per_s:,.0f}" for r in rs)
        lines.append(
            f"| {label} | {len(rs)} | {summary['seconds'][name]:.2f} "
            f"| {summary['rows_per_s'][name]:,.0f} | {all_} |"
        )
    lines += [
        "",
        f"(b)/(c) = **{summary['ratio_b_c']:.2f}**; "
        f"(b')/(c') = **{summary['ratio_b_c_noop']:.2f}**; inside triggers only "
        f"(a long-running query): (b)/(c) = {summary['ratio_b_c_in_trigger']:.2f}, "
        f"(b')/(c') = {summary['ratio_b_c_noop_in_trigger']:.2f}",
        "",
        "Where the time goes (medians, ms; Spark's progress `durationMs`, summed over the",
        "query's batches; *outside triggers* = wall time minus `triggerExecution`):",
        "",
        "| query | wall | before 1st trigger | outside triggers | triggerExecution | addBatch "
        "| latestOffset + getBatch + queryPlanning | walCommit + commitOffsets "
        "| rows/s inside triggers |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in LABELS:
        rs = [r for r in runs if r.name == name]
        if not rs:
            continue

        def med(*keys: str, rs: list[Run] = rs) -> float:
            return median([float(sum(r.durations_ms.get(k, 0) for k in keys)) for r in rs])

        lines.append(
            f"| {name} | {median([r.seconds * 1000 for r in rs]):,.0f} "
            f"| {median([r.before_first_trigger_s * 1000 for r in rs]):,.0f} "
            f"| {median([r.outside_triggers_s * 1000 for r in rs]):,.0f} "
            f"| {med('triggerExecution'):,.0f} | {med('addBatch'):,.0f} "
            f"| {med('latestOffset', 'getBatch', 'queryPlanning'):,.0f} "
            f"| {med('walCommit', 'commitOffsets'):,.0f} "
            f"| {median([r.in_trigger_rows_per_s for r in rs]):,.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Capture, then the Spark queries; print a markdown table (and write JSON)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("-n", type=int, default=200_000, help="messages (rows)")
    ap.add_argument("--size", type=int, default=100, help="payload bytes")
    ap.add_argument("--reps", type=int, default=5, help="timed runs of each query")
    ap.add_argument("--capture-reps", type=int, default=3)
    ap.add_argument("--seal-ms", type=int, default=200, help="the capture's seal age")
    ap.add_argument("--json", metavar="OUT", help="also write the results here")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pz-e2e-")
    load: list[tuple[float, float, float]] = [os.getloadavg()]
    try:
        data = payloads(a.n, a.size)
        caps = []
        journal = ""
        for _ in range(a.capture_reps):
            if journal:
                shutil.rmtree(journal)
            journal, c = capture(work, data, a.seal_ms)
            caps.append(c)
            print(
                f"(a) capture: {c['msgs_per_s']:,.0f} msg/s ({c['segments']} segments)", flush=True
            )
        del data
        parquet = os.path.join(work, "parquet")
        pqinfo = to_parquet(journal, parquet)
        print(
            f"parquet: {pqinfo['files']} files, {pqinfo['bytes'] / 1e6:.1f} MB; "
            f"read_slice outside Spark: {pqinfo['read_slice_rows_per_s']:,.0f} rows/s",
            flush=True,
        )

        from purezmq.spark.session import local_session

        t0 = time.perf_counter()
        spark = local_session("purezmq-bench-e2e", master="local[2]")
        session_s = time.perf_counter() - t0
        worker_zmq = (
            spark.sparkContext.parallelize([0], 1)
            .map(lambda _: __import__("purezmq").__file__)
            .collect()[0]
        )  # which purezmq the Python workers import (and they start here)
        ctx = zmq.Context()
        runs: list[Run] = []
        warm: list[Run] = []
        try:
            for kind, sink in QUERIES:  # untimed: JIT, Python workers, page cache
                warm.append(run_query(spark, kind, sink, journal, parquet, work, a.n, ctx))
                print(f"warm-up {warm[-1].name}: {warm[-1].seconds:.2f} s", flush=True)
            for rep in range(a.reps):
                order = QUERIES[rep % len(QUERIES) :] + QUERIES[: rep % len(QUERIES)]
                for kind, sink in order:
                    r = run_query(spark, kind, sink, journal, parquet, work, a.n, ctx)
                    runs.append(r)
                    print(
                        f"rep {rep} {r.name}: {r.seconds:.2f} s, {r.rows_per_s:,.0f} rows/s"
                        f" (tasks {r.parts or '-'}; {r.durations_ms})",
                        flush=True,
                    )
                load.append(os.getloadavg())
            probe = probe_runner(spark, work, a.reps)
        finally:
            ctx.destroy(linger=0)
            spark.stop()
        summary = summarize(caps, runs)
        print()
        print(table(a.n, a.size, caps, runs, summary))
        pre = median([p["before_first_trigger_s"] for p in probe])
        print(
            f"\nA minimal Python streaming source (one row, no purezmq import; noop sink): "
            f"start() to first trigger {pre:.2f} s, "
            f"wall {median([p['wall_s'] for p in probe]):.2f} s (medians of {len(probe)})"
        )
        print(
            f"\nSparkSession start {session_s:.1f} s; load average (1/5/15 min) before/after: "
            f"{load[0]} / {load[-1]}; workers import {worker_zmq}"
        )
        if a.json:
            with open(a.json, "w") as f:
                json.dump(
                    {
                        "n": a.n,
                        "size": a.size,
                        "reps": a.reps,
                        "seal_ms": a.seal_ms,
                        "machine": machine(),
                        "worker_purezmq": worker_zmq,
                        "session_start_s": session_s,
                        "load_avg": load,
                        "capture": caps,
                        "parquet": pqinfo,
                        "tiny_python_source": probe,
                        "summary": summary,
                        "warmup": [asdict(r) for r in warm],
                        "runs": [
                            asdict(r)
                            | {
                                "rows_per_s": r.rows_per_s,
                                "in_trigger_rows_per_s": r.in_trigger_rows_per_s,
                            }
                            for r in runs
                        ],
                    },
                    f,
                    indent=2,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
