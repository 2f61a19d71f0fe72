"""Capture with 1, 2 and 4 partitions, and journal bytes per message before/after.

    python examples/pipeline/bench_partitions.py [--n 300000] [--reps 3] [--json OUT]
        [--sizes 100,1024] [--partitions 1,2,4] [--headers]
        [--capture-python before=/path/to/other/venv/bin/python ...] [--no-bytes]

1. Aggregate capture rate: one PUSH socket in this process binds tcp and
   sends n messages as fast as it can; ``python -m purezmq.journal capture
   --partitions N --connect`` runs N worker processes that PUSH spreads the
   messages over. The clock runs from the first send until every worker has
   reported the last of its messages sealed (``sealed`` events summed to n),
   so it includes the last segment's seal age (200 ms): use a large n for
   the steady rate. Messages are random bytes of 100 B and 1 KiB. Also
   reported: the CPU the capture processes used per message, and the
   machine's load average when the run started.
2. The sender alone: the same send loop into ``python -m purezmq.perf
   local_thr`` (a PULL that only counts), so a capture figure can be read
   against what the producer can do at all on this machine.
3. Journal bytes per message, on the same payloads: the segments the
   current writer seals (format 2: each frame once, CRC32C in the name)
   against segments encoded as format 1 did (``value`` stored again beside
   ``frames``), both Arrow IPC with 8 MiB seals.

``--capture-python "LABEL=PYTHON [capture args]"`` (repeatable) runs the
capture with other interpreters - other virtualenvs, other purezmq versions -
or other capture arguments (``--headers``), interleaved run by run with the
others, so load changes hit all alike (before/after figures); ``--headers``
makes every capture record headers. Everything runs on this
machine, side by side in one run; nothing is asserted. The producer shares
the machine's cores with the workers, so on a 2-core VM more than 2 workers
compete with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
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


def _cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds the processes `pids` used so far (Linux; 0 elsewhere)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (the capture parent and its workers)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(k) for k in f.read().split()]
    except OSError:
        return [pid]
    return [pid] + [p for k in kids for p in _tree(k)]


def capture_rate(
    size: int, n: int, partitions: int, command: str = sys.executable, headers: bool = False
) -> dict[str, float]:
    """msgs/s from the first send to the last message sealed, over all partitions,
    and the capture's CPU microseconds per message."""
    pool = [os.urandom(size) for _ in range(1000)]
    python, *extra = shlex.split(command)
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.setsockopt(zmq.SNDHWM, 100_000)
    ep = f"tcp://127.0.0.1:{push.bind_to_random_port('tcp://127.0.0.1')}"
    # Watch handshakes from before the workers start, so none is missed.
    mon = push.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    path = tempfile.mkdtemp(prefix="pzj-parts-")
    proc = subprocess.Popen(
        [python, "-m", "purezmq.journal", "capture", path, "s", "--type", "PULL",
         "--connect", ep, "--partitions", str(partitions), "--seal-ms", "200", "--events",
         *(["--headers"] if headers else []), *extra],
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
    pids = _tree(proc.pid)
    cpu0 = _cpu_s(pids)
    t0 = time.perf_counter()
    for i in range(n):
        push.send(pool[i % 1000])
    if not done.wait(300):
        raise RuntimeError(f"only {sealed[0]} of {n} sealed")
    dt = time.perf_counter() - t0
    cpu = _cpu_s(pids) - cpu0
    proc.terminate()
    proc.wait(60)
    push.close(0)
    ctx.term()
    stored = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path)
                 for f in files if f.startswith("seg-"))  # fmt: skip
    shutil.rmtree(path, ignore_errors=True)
    return {"rate": n / dt, "cpu_us_per_msg": cpu / n * 1e6, "bytes_per_msg": stored / n}


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


def sender_alone(size: int, n: int) -> float:
    """msgs/s of this process's send loop into a PULL that only counts (perf's local_thr)."""
    pool = [os.urandom(size) for _ in range(1000)]
    tmp = tempfile.mkdtemp(prefix="pzj-send-")
    ready, done = os.path.join(tmp, "ready"), os.path.join(tmp, "done")
    proc = subprocess.Popen(
        [sys.executable, "-m", "purezmq.perf", "--ready-file", ready, "--done-file", done,
         "local_thr", "tcp://127.0.0.1:0", str(size), str(n)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (endpoint := _read(ready)):
        if time.monotonic() > deadline:
            raise RuntimeError("local_thr did not start")
        time.sleep(0.01)
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.setsockopt(zmq.SNDHWM, 100_000)
    push.connect(endpoint)
    push.send(pool[0])  # the connection is up before the clock starts
    n -= 1
    t0 = time.perf_counter()
    for i in range(n):
        push.send(pool[i % 1000])
    while not os.path.exists(done):
        if time.perf_counter() - t0 > 300:
            raise RuntimeError("local_thr did not finish")
        time.sleep(0.001)
    dt = time.perf_counter() - t0
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
    ap.add_argument("--sizes", default="100,1024", help="payload sizes, comma-separated")
    ap.add_argument("--partitions", default="1,2,4", help="partition counts, comma-separated")
    ap.add_argument(
        "--capture-python",
        action="append",
        default=[],
        metavar="LABEL=PYTHON [ARGS]",
        help="run the capture with this interpreter (and capture arguments) too "
        "(repeatable, interleaved)",
    )
    ap.add_argument("--headers", action="store_true", help="the capture records headers")
    ap.add_argument("--no-bytes", action="store_true", help="skip the bytes-per-message part")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    counts = [int(x) for x in a.partitions.split(",")]
    pythons = dict(x.split("=", 1) for x in a.capture_python) or {"this": sys.executable}
    out: dict[str, Any] = {"purezmq_compiled": bool(getattr(zmq, "COMPILED", False)),
                           "load_avg_start": os.getloadavg(), "n": a.n, "capture": [],
                           "bytes": [], "sender_alone": []}  # fmt: skip
    for size in sizes if not a.no_bytes else []:
        out["bytes"].append(bytes_per_message(size, a.n))
        print(json.dumps(out["bytes"][-1]), flush=True)
    for size in sizes:
        keys = [(label, parts) for parts in counts for label in pythons]
        runs: dict[tuple[str, int], list[dict[str, float]]] = {k: [] for k in keys}
        alone: list[float] = []
        for rep in range(a.reps):  # interleaved, rotating, so load changes hit every case alike
            order = keys[rep % len(keys) :] + keys[: rep % len(keys)]
            for label, parts in order:
                runs[label, parts].append(capture_rate(size, a.n, parts, pythons[label], a.headers))
            alone.append(sender_alone(size, a.n))
        for (label, parts), got in runs.items():
            rates = [r["rate"] for r in got]
            row = {"size": size, "capture": label, "partitions": parts,
                   "median_msgs_per_s": statistics.median(rates),
                   "runs": [round(r) for r in rates],
                   "median_cpu_us_per_msg": statistics.median(r["cpu_us_per_msg"] for r in got),
                   "bytes_per_msg": statistics.median(r["bytes_per_msg"] for r in got),
                   "load_avg_end": os.getloadavg()[0]}  # fmt: skip
            out["capture"].append(row)
            print(json.dumps(row), flush=True)
        row = {"size": size, "sender_alone_median_msgs_per_s": statistics.median(alone),
               "runs": [round(r) for r in alone]}  # fmt: skip
        out["sender_alone"].append(row)
        print(json.dumps(row), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
