"""Capture with 1, 2 and 4 partitions, and journal bytes per message before/after.

    python examples/pipeline/bench_partitions.py [--n 300000] [--reps 3] [--json OUT]

1. Aggregate capture rate: one PUSH socket in this process binds tcp and
   sends n messages as fast as it can; ``python -m purezmq.journal capture
   --partitions N --connect`` runs N worker processes that PUSH spreads the
   messages over. The clock runs from the first send until every worker has
   reported the last of its messages sealed (``sealed`` events summed to n).
   Messages are random bytes of 100 B and 1 KiB.
2. Journal bytes per message, on the same payloads: the segments the
   current writer seals (format 2: each frame once, CRC32C in the name)
   against segments encoded as format 1 did (``value`` stored again beside
   ``frames``), both Arrow IPC with 8 MiB seals.

Everything runs on this machine, side by side in one run; nothing is
asserted. The producer shares the machine's cores with the workers, so on a
2-core VM more than 2 workers compete with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import pyarrow as pa

import purezmq as zmq
from purezmq.journal import Journal


def capture_rate(size: int, n: int, partitions: int) -> float:
    """msgs/s from the first send to the last message sealed, over all partitions."""
    pool = [os.urandom(size) for _ in range(1000)]
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.setsockopt(zmq.SNDHWM, 100_000)
    ep = f"tcp://127.0.0.1:{push.bind_to_random_port('tcp://127.0.0.1')}"
    # Watch handshakes from before the workers start, so none is missed.
    mon = push.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    path = tempfile.mkdtemp(prefix="pzj-parts-")
    proc = subprocess.Popen(
        [sys.executable, "-m", "purezmq.journal", "capture", path, "s", "--type", "PULL",
         "--connect", ep, "--partitions", str(partitions), "--seal-ms", "200", "--events"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    sealed = [0]
    done, ready = threading.Event(), threading.Event()

    def events() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            ev = json.loads(line)
            if ev["event"] == "ready":
                ready.set()
            elif ev["event"] == "sealed":
                sealed[0] += ev["end"] - ev["first"]
                if sealed[0] >= n:
                    done.set()

    threading.Thread(target=events, daemon=True).start()
    if not ready.wait(60):
        raise RuntimeError("capture did not start")
    for _ in range(partitions):  # every worker connected before the clock starts
        if not mon.poll(30_000):
            raise RuntimeError("a worker did not connect")
        mon.recv_multipart()
    push.disable_monitor()
    mon.close()
    t0 = time.perf_counter()
    for i in range(n):
        push.send(pool[i % 1000])
    if not done.wait(300):
        raise RuntimeError(f"only {sealed[0]} of {n} sealed")
    dt = time.perf_counter() - t0
    proc.terminate()
    proc.wait(60)
    push.close(0)
    ctx.term()
    return n / dt


def v1_segment_bytes(frames: list[list[bytes]], first: int) -> int:
    """The size of an Arrow segment as format 1 encoded it (value and topic beside frames)."""
    ftype = pa.list_(pa.field("element", pa.binary()))
    n = len(frames)
    batch = pa.RecordBatch.from_arrays(
        [pa.array(range(first, first + n), pa.int64()),
         pa.array([time.time_ns() // 1000] * n, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
         pa.array([None] * n, pa.binary()), pa.array([f[-1] for f in frames], pa.binary()),
         pa.array(frames, ftype)],
        names=["seq", "timestamp", "topic", "value", "frames"],
    )  # fmt: skip
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, batch.schema) as w:
        w.write_batch(batch)
    return int(sink.getvalue().size)


def bytes_per_message(size: int, n: int) -> dict[str, float]:
    """Journal bytes per message, format 2 (written by the writer) and format 1 (re-encoded)."""
    pool = [os.urandom(size) for _ in range(1000)]
    j = Journal.create(tempfile.mkdtemp(prefix="pzj-bytes-"))
    with j.writer("s", seal_age_s=3600) as w:
        for i in range(n):
            w.append([pool[i % 1000]])
    segs = j.segments("s")
    after = sum(g.size for g in segs)
    before = sum(v1_segment_bytes([[pool[i % 1000]] for i in range(g.first, g.end)], g.first)
                 for g in segs)  # fmt: skip
    return {"size": size, "messages": n, "v1_bytes_per_msg": before / n,
            "v2_bytes_per_msg": after / n, "v1_total": before, "v2_total": after}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", metavar="OUT")
    a = ap.parse_args()
    out: dict[str, Any] = {"purezmq_compiled": bool(getattr(zmq, "COMPILED", False)),
                           "capture": [], "bytes": []}  # fmt: skip
    for size in (100, 1024):
        out["bytes"].append(bytes_per_message(size, a.n))
        print(json.dumps(out["bytes"][-1]), flush=True)
    for size in (100, 1024):
        runs: dict[int, list[float]] = {1: [], 2: [], 4: []}
        for _ in range(a.reps):  # interleaved, so load changes hit every count alike
            for parts, rates in runs.items():
                rates.append(capture_rate(size, a.n, parts))
        for parts, rates in runs.items():
            row = {"size": size, "partitions": parts, "median_msgs_per_s": statistics.median(rates),
                   "runs": [round(r) for r in rates]}  # fmt: skip
            out["capture"].append(row)
            print(json.dumps(row), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
