"""kill -9 safety: a capture process killed at random moments loses no sealed message
and leaves nothing a reader trips on.

Each round starts ``python -m purezmq.journal capture`` (a real subprocess),
feeds it over tcp, and SIGKILLs it after a random delay while messages pour
in and segments are being sealed. The capture prints a JSON line after each
seal completed (rename and directory fsync done); every range it reported
must be readable afterwards, byte for byte the same in every later round,
with dense seqs, and the next capture must continue the numbering.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import purezmq as zmq
from purezmq.journal import Journal
from purezmq.journal.layout import contiguous_runs
from tests.conftest import wait_until

ROUNDS = 5


def _start_capture(
    path: str,
) -> tuple[subprocess.Popen[str], str, list[dict[str, Any]], threading.Thread]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "purezmq.journal", "capture", path, "s", "--type", "PULL",
         "--bind", "tcp://127.0.0.1:*", "--seal-count", "37", "--seal-ms", "15", "--events"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline())
    assert ready["event"] == "ready", ready
    events: list[dict[str, Any]] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            events.append(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return proc, ready["endpoints"]["s"][0], events, reader


@pytest.mark.timeout(120)
def test_sigkill_at_random_points_loses_no_sealed_message(tmp_path: Path) -> None:
    seed = int(os.environ.get("PUREZMQ_CRASH_SEED", time.time_ns() % 10_000))
    rng = random.Random(seed)
    path = str(tmp_path / "j")
    Journal.create(path)
    ctx = zmq.Context()
    kept: list[bytes] = []  # what the journal held after the previous round
    counter = 0
    try:
        for rnd in range(ROUNDS):
            proc, endpoint, events, reader = _start_capture(path)
            start_seq = Journal.open(path).bounds("s")[1]
            push = ctx.socket(zmq.PUSH)
            push.setsockopt(zmq.SNDTIMEO, 50)
            push.connect(endpoint)
            stop = threading.Event()

            def feed(push: zmq.Socket = push, stop: threading.Event = stop) -> None:
                nonlocal counter
                while not stop.is_set():
                    try:
                        push.send(b"%d" % counter)
                        counter += 1
                    except zmq.Again:
                        pass

            feeder = threading.Thread(target=feed)
            feeder.start()
            wait_until(lambda ev=events: any(e["event"] == "sealed" for e in ev), timeout=10)
            time.sleep(rng.uniform(0.0, 0.5))  # the random moment of death
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            reader.join(10)  # every line the capture printed before dying
            stop.set()
            feeder.join(10)
            push.close(linger=0)
            sealed = [e for e in events if e["event"] == "sealed"]
            reported_end = max((e["end"] for e in sealed), default=start_seq)

            j = Journal.open(path)
            segs = j.segments("s")
            note = f"seed={seed} round={rnd}"
            # Dense, gap-free numbering from 0, and nothing reported sealed is missing.
            assert contiguous_runs(segs) in ([], [(0, segs[-1].end)]), note
            end = segs[-1].end if segs else 0
            assert end >= reported_end, note
            assert sealed and sealed[0]["first"] == start_seq, note  # numbering continued
            # Every visible segment reads completely (temp files are invisible).
            values = [m.value for m in j.messages("s")]
            assert len(values) == end, note
            # Sealed data never changes afterwards, and arrives in the order sent.
            assert values[: len(kept)] == kept, note
            ints = [int(v) for v in values]
            assert ints == sorted(ints) and len(set(ints)) == len(ints), note
            kept = values
        assert len(kept) > 0
    finally:
        ctx.destroy(linger=0)
