"""Spark end-to-end latency: python examples/pipeline/bench_latency.py [--json]

    producer (PUSH, fixed rate) -> capture process -> journal
      -> Spark Structured Streaming (local[2], format("zmq"), trigger every 0 s)
      -> format("zmq") sink (DEALER, ackMode=router, commit markers) -> consumer

Each message carries the time it was sent; the consumer takes the time a
message's batch is *committed* (its commit marker arrived with all its
messages), so the latency covers everything: the capture's sealing delay,
Spark's trigger, planning, task start, the sink's acknowledgements and the
commit. The first seconds (Spark's Python workers starting) are left out.
Numbers are what they are on this machine; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import threading
import time

import purezmq as zmq
from purezmq.journal import Journal
from purezmq.spark.consumer import SinkReceiver
from purezmq.spark.demo import CaptureProcess
from purezmq.spark.session import local_session


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def run(rate: float, seconds: float, warmup: float, seal_ms: int, trigger: str) -> dict[str, float]:
    """One measurement; returns latency percentiles in milliseconds."""
    work = tempfile.mkdtemp(prefix="pz-lat-")
    path = os.path.join(work, "journal")
    Journal.create(path)
    cap = CaptureProcess(path, seal_ms=seal_ms)
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    recv = SinkReceiver(router)
    latencies: list[float] = []
    stop = threading.Event()
    t_measure = [float("inf")]

    def consume() -> None:
        while not stop.is_set():
            for batch in recv.poll(50):
                now = time.time_ns()
                for d in batch:
                    sent = int(d.value)
                    if sent >= t_measure[0]:
                        latencies.append((now - sent) / 1e6)

    th = threading.Thread(target=consume, daemon=True)
    th.start()
    spark = local_session("purezmq-latency", master="local[2]")
    q = (
        spark.readStream.format("zmq").option("path", path).load().select("value")
        .writeStream.format("zmq").option("endpoint", f"tcp://127.0.0.1:{port}")
        .option("ackMode", "router").option("commitMarker", "true")
        .option("checkpointLocation", os.path.join(work, "ck"))
        .trigger(processingTime=trigger).start()
    )  # fmt: skip
    push = ctx.socket(zmq.PUSH)
    push.connect(cap.endpoint)
    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < warmup + seconds:
        if t_measure[0] == float("inf") and time.monotonic() - t0 >= warmup:
            t_measure[0] = time.time_ns()
        push.send(str(time.time_ns()).encode())
        n += 1
        ahead = n / rate - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
    time.sleep(3)  # let the last batches commit (a benchmark, not a test)
    triggers = [p["durationMs"]["triggerExecution"] for p in q.recentProgress if p["numInputRows"]]
    q.stop()
    spark.stop()
    stop.set()
    th.join(5)
    cap.stop()
    ctx.destroy(linger=0)
    shutil.rmtree(work, ignore_errors=True)
    return {
        "rate": rate, "seal_ms": seal_ms, "trigger": trigger, "measured": len(latencies),
        "p50_ms": pct(latencies, 50), "p90_ms": pct(latencies, 90), "p99_ms": pct(latencies, 99),
        "max_ms": max(latencies, default=float("nan")),
        "trigger_p50_ms": pct([float(t) for t in triggers[3:]], 50),
        "trigger_p90_ms": pct([float(t) for t in triggers[3:]], 90),
        "batches": len(triggers[3:]),
    }  # fmt: skip


def main() -> None:
    """Measure a couple of configurations and print them."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rate", type=float, default=1000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup", type=float, default=15)
    a = ap.parse_args()
    results = [run(a.rate, a.seconds, a.warmup, seal_ms, "0 seconds") for seal_ms in (50, 200)]
    if a.json:
        print(json.dumps(results, indent=2))
        return
    for r in results:
        print(f"rate {r['rate']:.0f}/s seal {r['seal_ms']} ms trigger '{r['trigger']}': "
              f"{r['measured']} msgs  p50 {r['p50_ms']:.0f} ms  p90 {r['p90_ms']:.0f} ms  "
              f"p99 {r['p99_ms']:.0f} ms  max {r['max_ms']:.0f} ms  "
              f"(micro-batch p50 {r['trigger_p50_ms']:.0f} ms, "
              f"p90 {r['trigger_p90_ms']:.0f} ms over {r['batches']})")  # fmt: skip


if __name__ == "__main__":
    main()
