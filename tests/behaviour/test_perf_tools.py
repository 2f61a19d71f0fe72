"""The perf tools (``python -m purezmq.perf``) measure what they say.

No timing is asserted here: these tests check that each tool moves the
number of messages it was asked to, reports libzmq's figures in the right
shape, runs on both implementations, and refuses bad arguments with a usage
error. The numbers themselves live in benchmarks/ (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from purezmq.perf import tools

PERF = [sys.executable, "-m", "purezmq.perf"]


def _run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert tools.main([*argv, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1, out
    data: dict[str, Any] = json.loads(out[0])
    return data


def _wait_file(path: Path, proc: subprocess.Popen[str], timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"binder exited early: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.01)
    return path.read_text().splitlines()[0]


def _pair(
    tmp_path: Path, local: list[str], remote: list[str], impl: str, extra: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run a local_* tool, wait until it is bound, run the remote_* tool."""
    ready, done = tmp_path / "ready", tmp_path / "done"
    common = ["--impl", impl, "--json", *extra]
    lflags = ["--ready-file", str(ready)]
    rflags: list[str] = []
    if local[0] == "local_thr":
        lflags += ["--done-file", str(done)]
        rflags += ["--hold-file", str(done)]
    lp = subprocess.Popen([*PERF, *local, *common, *lflags], stdout=subprocess.PIPE, text=True)
    try:
        endpoint = _wait_file(ready, lp)
        rp = subprocess.run(
            [*PERF, remote[0], endpoint, *remote[1:], *common, *rflags],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert rp.returncode == 0, rp.stderr
        lout, _ = lp.communicate(timeout=120)
    finally:
        if lp.poll() is None:
            lp.kill()
    assert lp.returncode == 0

    def parse(text: str) -> dict[str, Any]:
        lines = text.strip().splitlines()
        return json.loads(lines[0]) if lines else {}

    return parse(lout), parse(rp.stdout)


def _binder_then(
    tmp_path: Path, binder: list[str], connector: Callable[[list[str]], list[str]]
) -> dict[str, Any]:
    """Start `binder` (a perf tool that writes its endpoints to a ready file),
    then run the tool `connector(endpoints)` to its end; return the binder's
    last JSON line."""
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        [*PERF, *binder, "--ready-file", str(ready)], stdout=subprocess.PIPE, text=True
    )
    try:
        _wait_file(ready, proc)
        endpoints = ready.read_text().splitlines()
        other = subprocess.run(
            [*PERF, *connector(endpoints)], capture_output=True, text=True, timeout=120
        )
        assert other.returncode == 0, other.stderr
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    data: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return data


def test_inproc_thr_counts_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run_main(capsys, "inproc_thr", "64", "2000")
    assert data["tool"] == "inproc_thr" and data["impl"] == "purezmq"
    assert data["size"] == 64 and data["count"] == 2000
    assert data["msg_per_s"] > 0
    # Mb/s is derived from the rate, as libzmq's local_thr prints it.
    assert data["mbit_per_s"] == pytest.approx(data["msg_per_s"] * 64 * 8 / 1e6)


def test_inproc_lat_reports_mean_and_percentiles(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run_main(capsys, "inproc_lat", "16", "300", "--warmup", "20")
    assert data["count"] == 300 and data["warmup"] == 20
    assert 0 < data["min_us"] <= data["p50_us"] <= data["p99_us"]
    assert data["min_us"] <= data["latency_us"]


def test_text_output_has_libzmqs_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert tools.main(["inproc_thr", "1", "100"]) == 0
    out = capsys.readouterr().out
    for line in ("message size: 1 [B]", "message count: 100", "[msg/s]", "[Mb/s]"):
        assert line in out


def test_async_inproc_thr(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run_main(capsys, "inproc_thr", "64", "1000", "--async")
    assert data["async"] is True and data["loop"] == "asyncio"
    assert data["count"] == 1000 and data["msg_per_s"] > 0


@pytest.mark.parametrize("impl", ["purezmq", "zmq"])
def test_tcp_throughput_pair(tmp_path: Path, impl: str) -> None:
    local, remote = _pair(
        tmp_path,
        ["local_thr", "tcp://127.0.0.1:*", "128", "5000"],
        ["remote_thr", "128", "5000"],
        impl,
        [],
    )
    assert local["impl"] == impl and local["count"] == 5000 and local["msg_per_s"] > 0
    assert remote == {}


def test_ipc_latency_pair(tmp_path: Path) -> None:
    ep = f"ipc://{tmp_path}/lat.ipc"
    local, remote = _pair(
        tmp_path,
        ["local_lat", ep, "32", "200"],
        ["remote_lat", "32", "200"],
        "purezmq",
        ["--warmup", "10"],
    )
    assert local == {}
    assert remote["count"] == 200 and remote["p50_us"] <= remote["p99_us"]


def test_fanout_delivers_to_every_subscriber(tmp_path: Path) -> None:
    common = ["64", "2000", "--json", "--timeout", "60"]
    data = _binder_then(
        tmp_path,
        ["fanout_pub", "tcp://127.0.0.1:*", *common, "--sub-procs", "1"],
        lambda eps: ["fanout_sub", eps[0], *common, "--sockets", "3", "--control", eps[1]],
    )
    assert data["subscribers"] == 3
    assert data["dropped"] == 0  # unbounded HWM by default: nothing may be lost
    assert data["msg_per_s"] > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["local_thr", "tcp://127.0.0.1:*", "64"],  # a missing count
        ["inproc_thr", "x", "10"],  # a size that is not a number
        ["inproc_thr", "64", "1"],  # fewer than two messages cannot be timed
        ["fanout_pub", "tcp://127.0.0.1:*", "0", "10"],  # no room for the type tag
        ["idle_router", "tcp://127.0.0.1:*", "10", "--async"],  # no async variant
    ],
)
def test_bad_arguments_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        tools.main(argv)
    assert exc.value.code == 2
    assert "usage" in capsys.readouterr().err


def test_idle_connections_pair_takes_no_size(tmp_path: Path) -> None:
    """idle_router/idle_dealers take a connection count, not a size: the
    fan-out tools' 1-byte minimum must not apply, and the pair reports RSS."""
    common = ["5", "--json", "--idle", "0.2", "--timeout", "60"]
    data = _binder_then(
        tmp_path,
        ["idle_router", "tcp://127.0.0.1:*", *common],
        lambda eps: ["idle_dealers", eps[0], *common],
    )
    assert data["connections"] == 5
    assert data["rss_idle_kib"] > 0 and data["idle_cpu_pct"] >= 0


@pytest.mark.parametrize("impl", ["purezmq", "zmq"])
def test_connection_setup_pair(tmp_path: Path, impl: str) -> None:
    """conn_client's every set-up (warm-up, timed, burst) is one round trip
    the server answered on a connection of its own; the server stops at bye."""
    ready = tmp_path / "ready"
    common = ["--impl", impl, "--json", "--timeout", "60"]
    server = subprocess.Popen(
        [*PERF, "conn_server", f"ipc://{tmp_path}/conn.ipc", *common, "--ready-file", str(ready)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        endpoint = _wait_file(ready, server)
        client = subprocess.run(
            [*PERF, "conn_client", endpoint, "8", "30", *common, "--warmup", "5", "--burst", "20"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert client.returncode == 0, client.stderr
        out, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0
    served = json.loads(out.strip().splitlines()[-1])
    data = json.loads(client.stdout.strip().splitlines()[-1])
    assert served["served"] == 5 + 30 + 20
    assert data["tool"] == "conn_client" and data["count"] == 30 and data["burst"] == 20
    assert 0 < data["min_us"] <= data["p50_us"] <= data["p99_us"]
    assert data["setup_us"] >= data["min_us"] and data["burst_per_s"] > 0
