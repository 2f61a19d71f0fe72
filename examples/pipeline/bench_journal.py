"""Journal append throughput: python examples/pipeline/bench_journal.py [--json]

Measures, on this machine:

1. ``StreamWriter.append`` alone (messages already in Python), for several
   message sizes, Arrow IPC and Parquet segments: what the journal itself
   costs, sealing (encode + write + fsync + rename + directory fsync) included.
2. The capture path end to end: a PUSH socket in this process sends over tcp
   to ``python -m purezmq.journal capture`` (a separate process, PULL), and
   the clock stops when the last message is sealed (its event is printed).

Numbers are what they are on the machine that runs this; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import purezmq as zmq
from purezmq.journal import Journal


def payloads(size: int) -> list[bytes]:
    """Random payloads, made before the clock starts: 32 MiB of them (at most 100k), so
    neither compression nor Parquet's dictionary encoding can shrink the data."""
    return [os.urandom(size) for _ in range(min(100_000, (32 << 20) // size))]


def bench_append(size: int, fmt: str, n: int, seal_bytes: int) -> dict[str, float]:
    """Append n messages of `size` bytes; returns msgs/s and MB/s (seals included)."""
    j = Journal.create(tempfile.mkdtemp(prefix="pzj-bench-"), segment_format=fmt)
    pool = payloads(size)
    t0 = time.perf_counter()
    with j.writer("s", seal_bytes=seal_bytes, seal_age_s=3600) as w:
        for i in range(n):
            w.append([pool[i % len(pool)]])
    dt = time.perf_counter() - t0
    segs = len(j.segments("s"))
    return {"size": size, "format": fmt, "msgs": n, "segments": segs,
            "msgs_per_s": n / dt, "mb_per_s": n * size / dt / 1e6}  # fmt: skip


def bench_capture(size: int, n: int) -> dict[str, float]:
    """PUSH over tcp -> capture process (PULL) -> sealed segments; msgs/s end to end."""
    path = tempfile.mkdtemp(prefix="pzj-cap-")
    proc = subprocess.Popen(
        [sys.executable, "-m", "purezmq.journal", "capture", path, "s", "--type", "PULL",
         "--bind", "tcp://127.0.0.1:*", "--seal-ms", "200", "--events"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline())
    done = threading.Event()

    def watch() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            e = json.loads(line)
            if e["event"] == "sealed" and e["end"] >= n:
                done.set()

    threading.Thread(target=watch, daemon=True).start()
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.connect(ready["endpoints"]["s"][0])
    pool = payloads(size)
    t0 = time.perf_counter()
    for i in range(n):
        push.send(pool[i % len(pool)])
    sent = time.perf_counter() - t0
    done.wait(120)
    dt = time.perf_counter() - t0
    proc.terminate()
    proc.wait(30)
    push.close()
    ctx.term()
    return {"size": size, "msgs": n, "send_s": sent, "sealed_s": dt, "msgs_per_s": n / dt}


def main() -> None:
    """Run both benchmarks and print a table (or JSON)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-n", type=int, default=200_000)
    a = ap.parse_args()
    rows = []
    for fmt in ("arrow", "parquet"):
        for size in (64, 1024, 16384):
            n = a.n if size <= 1024 else a.n // 10
            rows.append(bench_append(size, fmt, n, 8 << 20))
    caps = [bench_capture(size, a.n if size <= 1024 else a.n // 10) for size in (64, 1024, 16384)]
    if a.json:
        print(json.dumps({"append": rows, "capture": caps}, indent=2))
        return
    print("StreamWriter.append (8 MiB segments, seal = encode+write+fsync+rename+dir fsync)")
    for r in rows:
        print(f"  {r['format']:<8} {r['size']:>6} B  {r['msgs_per_s']:>10,.0f} msg/s  "
              f"{r['mb_per_s']:>7.1f} MB/s  ({r['segments']} segments)")  # fmt: skip
    print("capture process: PUSH -> tcp -> PULL -> journal, until the last seal")
    for c in caps:
        took = f"sent in {c['send_s']:.2f} s, sealed by {c['sealed_s']:.2f} s"
        print(f"  {c['size']:>6} B  {c['msgs_per_s']:>10,.0f} msg/s  ({c['msgs']} msgs, {took})")


if __name__ == "__main__":
    main()
