"""The CLI: init, ls, cat, verify, retain, capture and replay through main(argv)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import purezmq as zmq
from purezmq.journal import Journal
from purezmq.journal.cli import main, parse_age, parse_size
from tests.conftest import wait_until

from .conftest import fill


def test_init_ls_cat_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "j")
    assert main(["init", path, "--format", "parquet"]) == 0
    fill(Journal.open(path), "s", 12, per_segment=5)
    capsys.readouterr()
    assert main(["ls", path, "--segments"]) == 0
    out = capsys.readouterr().out
    assert "format=parquet" in out and "s/0: seqs [0, 12)  3 segments" in out
    assert main(["cat", path, "s", "--from", "3", "--to", "5", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["seq"] for x in lines] == [3, 4] and lines[0]["frames"] == ["cy0z"]  # b"s-3"
    assert main(["verify", path]) == 0
    assert "ok  s/0" in capsys.readouterr().out


def test_retain_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "j")
    fill(Journal.create(path), "s", 30, per_segment=10)
    assert main(["retain", path]) == 2
    assert main(["retain", path, "--max-bytes", "0"]) == 0
    assert capsys.readouterr().out.count("deleted") == 2
    assert main(["cat", path, "s", "--from", "0"]) == 1
    assert "not retained" in capsys.readouterr().err
    assert main(["ls", str(tmp_path / "nothing")]) == 1
    assert "not a purezmq journal" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["capture", path, "s", "--type", "PUB", "--bind", "tcp://*:1"])


def test_size_and_age_units() -> None:
    assert (
        parse_size("16M") == 16 << 20 and parse_size("512") == 512 and parse_size("2GiB") == 2 << 30
    )
    assert parse_age("7d") == 7 * 86400 and parse_age("15m") == 900 and parse_age("30") == 30


def test_capture_process_seals_what_it_holds_on_sigterm(tmp_path: Path) -> None:
    path = str(tmp_path / "j")
    proc = subprocess.Popen(
        [sys.executable, "-m", "purezmq.journal", "capture", path, "feed", "--type", "PULL",
         "--bind", "tcp://127.0.0.1:*", "--seal-ms", "600000", "--events", "--stats-ms", "20"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline())
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.connect(ready["endpoints"]["feed"][0])
    for i in range(100):
        push.send(b"%d" % i)
    push.close(linger=5000)
    ctx.term()
    for line in proc.stdout:  # wait until the capture holds all 100 (in memory only)
        event = json.loads(line)
        if event["event"] == "stats" and event["stats"]["feed"]["received"] == 100:
            break
    j = Journal.open(path)
    assert j.count("feed") == 0  # sealing is 10 minutes away
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    out = [json.loads(x) for x in proc.stdout.read().splitlines()]
    stopped = out[-1]
    assert stopped["event"] == "stopped"
    assert stopped["stats"]["feed"]["received"] == 100 == stopped["stats"]["feed"]["sealed"]
    assert j.count("feed") == 100



def _capture(path: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "purezmq.journal", "capture", path, "feed", "--type", "PULL",
         "--bind", "tcp://127.0.0.1:*", "--events", "--progress", "plain", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _send_to_ready(proc: subprocess.Popen[str], n: int) -> None:
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline())
    endpoints = ready["endpoints"]
    if "partitions" in ready:  # several workers, each with its own endpoints
        endpoints = {"feed": [ep for p in endpoints.values() for ep in p["feed"]]}
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    for ep in endpoints["feed"]:
        push.connect(ep)
    for i in range(n):
        push.send(b"%d" % i)
    push.close(linger=10000)
    ctx.term()


def test_capture_and_replay_show_progress_on_stderr(tmp_path: Path) -> None:
    """--progress plain: the count of captured and replayed messages on
    stderr, while stdout keeps its JSON events."""
    path = str(tmp_path / "j")
    proc = _capture(path, "--max-messages", "60")
    _send_to_ready(proc, 60)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err.rstrip().splitlines()[-1].endswith("captured: 60/60"), err
    assert [json.loads(line)["event"] for line in out.splitlines()][-1] == "stopped"

    ctx = zmq.Context()
    pull = ctx.socket(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    replayed = subprocess.run(
        [sys.executable, "-m", "purezmq.journal", "replay", path, "feed",
         "--connect", f"tcp://127.0.0.1:{port}", "--progress", "plain"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stderr
    assert "replayed: 60/60" in replayed.stderr, replayed.stderr
    assert sorted(int(pull.recv()) for _ in range(60)) == list(range(60))
    ctx.destroy(linger=0)


def test_progress_of_partitioned_capture_sums_the_workers(tmp_path: Path) -> None:
    """With --partitions, the bar counts what all workers received (from
    stats events it asks them for, and does not print as events)."""
    path = str(tmp_path / "j")
    proc = _capture(path, "--partitions", "2")
    _send_to_ready(proc, 60)
    # Sealed within --seal-ms (the default: 1 s).
    wait_until(lambda: Journal.open(path).count("feed") == 60, timeout=60, interval=0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err.rstrip().splitlines()[-1].endswith("captured: 60"), err
    events = [json.loads(line)["event"] for line in out.splitlines()]
    assert "stats" not in events and events[-1] == "stopped"
