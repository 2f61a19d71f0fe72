"""``capture --partitions N``: N capture processes, one writer per partition.

PULL workers connected to one PUSH share its messages (PUSH load-balances);
SUB workers each keep the messages whose key frame hashes to their partition.
Every message lands in exactly one partition, and each partition is dense.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import purezmq as zmq
from purezmq.journal import Journal
from purezmq.journal.capture import partition_of
from purezmq.utils.monitor import recv_monitor_message
from tests.conftest import wait_until

pytestmark = pytest.mark.timeout(120)


class Workers:
    """`capture --partitions N --events` as a process, its events read by a thread."""

    def __init__(self, path: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "purezmq.journal", "capture", path, *args, "--events",
             "--stats-ms", "50"],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.events: list[dict[str, Any]] = []
        self.stats: dict[int, int] = {}
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            ev = json.loads(line)
            self.events.append(ev)
            if ev["event"] == "stats":
                self.stats[ev["partition"]] = sum(
                    s["received"] + s["other_partitions"] for s in ev["stats"].values()
                )

    def seen(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == kind]

    def stop(self) -> dict[str, Any]:
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(30) == 0
        self._t.join(10)
        (stopped,) = self.seen("stopped")
        return stopped


def _handshakes(mon: Any, sock: Any, n: int) -> None:
    """Wait until `sock` completed `n` handshakes (every worker is connected)."""
    for _ in range(n):
        assert mon.poll(20_000), "a capture worker did not connect"
        recv_monitor_message(mon)
    sock.disable_monitor()
    mon.close()


def test_pull_workers_share_one_push(tmp_path: Path) -> None:
    path = str(tmp_path / "j")
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    ep = f"tcp://127.0.0.1:{push.bind_to_random_port('tcp://127.0.0.1')}"
    mon = push.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)  # before any worker connects
    w = Workers(path, "s", "--type", "PULL", "--connect", ep, "--partitions", "2",
                "--seal-ms", "100")  # fmt: skip
    try:
        _handshakes(mon, push, 2)
        for i in range(400):
            push.send(b"m%d" % i)
        wait_until(lambda: sum(w.stats.values()) == 400, timeout=30)
    finally:
        stopped = w.stop()
        push.close(0)
        ctx.term()
    assert w.seen("ready")[0]["partitions"] == 2
    assert stopped["stats"]["s"]["sealed"] == 400
    j = Journal.open(path)
    assert j.partitions("s") == [0, 1]
    values = {p: [m.value for m in j.messages("s", partition=p)] for p in (0, 1)}
    assert all(values.values())  # both workers took a share
    assert sorted(values[0] + values[1]) == sorted(b"m%d" % i for i in range(400))
    assert [j.bounds("s", p)[1] for p in (0, 1)] == [len(values[0]), len(values[1])]  # dense


def test_sub_workers_partition_by_key(tmp_path: Path) -> None:
    path = str(tmp_path / "j")
    ctx = zmq.Context()
    pub = ctx.socket(zmq.XPUB)  # XPUB: we see each worker's subscription arrive
    pub.setsockopt(zmq.XPUB_VERBOSE, 1)  # all three, not only the first
    ep = f"tcp://127.0.0.1:{pub.bind_to_random_port('tcp://127.0.0.1')}"
    w = Workers(path, "md", "--type", "SUB", "--connect", ep, "--partitions", "3",
                "--seal-ms", "100")  # fmt: skip
    try:
        for _ in range(3):
            assert pub.poll(20_000), "a SUB worker did not subscribe"
            pub.recv()
        keys = [b"key-%d" % k for k in range(12)]
        for i in range(360):
            pub.send_multipart([keys[i % 12], b"%d" % i])
        wait_until(lambda: sum(w.stats.values()) == 3 * 360, timeout=30)  # each saw all
    finally:
        stopped = w.stop()
        pub.close(0)
        ctx.term()
    assert stopped["stats"]["md"]["received"] == 360  # journaled once in total
    j = Journal.open(path)
    got: dict[bytes, set[int]] = {}
    n = 0
    for p in j.partitions("md"):
        for m in j.messages("md", partition=p):
            got.setdefault(m.topic or b"", set()).add(p)
            n += 1
    assert n == 360
    assert got == {k: {partition_of(k, 3)} for k in keys}  # same key, same partition


def test_bind_needs_one_endpoint_per_worker(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "purezmq.journal", "capture", str(tmp_path / "j"), "s", "--type",
         "PULL", "--bind", "tcp://127.0.0.1:5999", "--partitions", "2"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert out.returncode == 1 and "once per worker" in out.stderr
