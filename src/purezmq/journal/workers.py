"""``capture --partitions N``: N capture processes, one writer per partition.

One Python process journals at most about 100k messages/s (it parses,
appends and encodes under one GIL), so a stream that needs more gets N
partitions, each written by its own process. The parent only starts the
workers (``capture ... --partition k``), relays their JSON events, forwards
SIGTERM/SIGINT and sums their statistics; it touches no message. How
messages spread over the workers is ZeroMQ's own doing: workers that
connect to the same PUSH endpoints are load-balanced by PUSH, and SUB
workers each keep the messages whose key frame hashes to their partition.
A bound endpoint cannot be shared by N processes, so each worker binds its
own: ``--bind`` is given once per worker, or with a wildcard port
(``tcp://*:*``), and the combined ``ready`` event lists what each bound.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

from .errors import JournalError

if TYPE_CHECKING:
    from purezmq.cli.progress import Progress


def _child_args(a: argparse.Namespace, k: int, binds: list[str]) -> list[str]:
    args = ["capture", a.path, a.stream, "--type", a.type, "--partitions", str(a.partitions),
            "--partition", str(k), "--events", "--seal-bytes", str(a.seal_bytes),
            "--seal-ms", str(a.seal_ms)]  # fmt: skip
    for ep in a.connect:
        args += ["--connect", ep]
    for ep in binds:
        args += ["--bind", ep]
    for t in a.topic:
        args += ["--topic", t]
    optional = {"--format": a.format, "--seal-count": a.seal_count,
                "--retention-age": a.retention_age, "--retention-bytes": a.retention_bytes,
                "--max-messages": a.max_messages, "--key-frame": a.key_frame,
                "--retention-hard-age": a.retention_hard_age,
                "--retention-hard-bytes": a.retention_hard_bytes}  # fmt: skip
    for flag, value in optional.items():
        if value is not None:
            args += [flag, str(value)]
    if a.ack:
        args.append("--ack")
    if a.headers:
        args.append("--headers")
    for name in a.header:
        args += ["--header", name]
    if a.stats_ms:
        args += ["--stats-ms", str(a.stats_ms)]
    return args


def worker_binds(binds: list[str], n: int) -> list[list[str]]:
    """The endpoints each of `n` workers binds: all wildcards, or one given per worker."""
    if not binds:
        return [[] for _ in range(n)]
    if all(ep.endswith(":*") for ep in binds):
        return [list(binds) for _ in range(n)]
    if len(binds) == n:
        return [[ep] for ep in binds]
    raise JournalError(
        f"--partitions {n} with --bind: N processes cannot bind one endpoint; give --bind "
        f"once per worker ({n} endpoints, in partition order) or a wildcard port (tcp://*:*), "
        "or let the workers --connect to the producers"
    )


def _emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, sort_keys=True), flush=True)


def run_workers(a: argparse.Namespace, journal_id: str, bar: Progress | None = None) -> int:
    """Run `a.partitions` capture workers until they stop; returns the exit status.

    `bar` (when shown) counts what all workers received, from their stats
    events (asked for every 200 ms unless --stats-ms says otherwise)."""
    n = a.partitions
    binds = worker_binds(a.bind, n)
    cmd = [sys.executable, "-m", "purezmq.journal"]
    counting = bar is not None and bar.kind != "off"
    extra = ["--stats-ms", "200"] if counting and not a.stats_ms else []
    procs = [
        subprocess.Popen(
            [*cmd, *_child_args(a, k, binds[k]), *extra], stdout=subprocess.PIPE, text=True
        )
        for k in range(n)
    ]
    received: dict[int, int] = {}
    lock = threading.Lock()
    ready: dict[int, Any] = {}
    stopped: dict[int, Any] = {}

    def relay(k: int, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            ev["partition"] = k
            with lock:
                if ev.get("event") == "ready":
                    ready[k] = ev.get("endpoints", {})
                    if len(ready) == n and a.events:
                        _emit({"event": "ready", "journalId": journal_id, "partitions": n,
                               "endpoints": {str(p): ready[p] for p in sorted(ready)}})  # fmt: skip
                    continue
                if ev.get("event") in ("stats", "stopped") and bar is not None and counting:
                    got = sum(int(st.get("received", 0)) for st in ev.get("stats", {}).values())
                    received[k] = got
                    bar.advance(sum(received.values()) - bar.count)
                if ev.get("event") == "stopped":
                    stopped[k] = ev.get("stats", {})
                    continue
                if ev.get("event") == "stats" and extra:
                    continue  # asked for the progress bar only
                if a.events:
                    _emit(ev)

    threads = [
        threading.Thread(target=relay, args=(k, p), daemon=True) for k, p in enumerate(procs)
    ]
    for t in threads:
        t.start()

    def forward(signum: int, _frame: Any) -> None:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    status = 0
    for p in procs:
        rc = p.wait()
        if rc != 0:
            status = 1
            forward(signal.SIGTERM, None)  # one worker failed: stop the others cleanly
    for t in threads:
        t.join(10)
    totals: dict[str, dict[str, int]] = {}
    for stats in stopped.values():
        for stream, st in stats.items():
            tot = totals.setdefault(stream, {})
            for key, value in st.items():
                tot[key] = tot.get(key, 0) + int(value)
    _emit({"event": "stopped", "stats": totals,
           "partitions": {str(k): stopped[k] for k in sorted(stopped)}})  # fmt: skip
    return status
