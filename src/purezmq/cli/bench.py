"""``purezmq bench``: libzmq's perf tools, purezmq and pyzmq side by side.

For each transport and message size it runs the throughput pair (PULL
``local_thr`` binds, PUSH ``remote_thr`` connects) and the latency pair (REP
``local_lat``, REQ ``remote_lat``) as separate processes, as libzmq's tools
are meant to run, first on purezmq and then on pyzmq when it is installed
(``pip install pyzmq``), and prints one table with the ratio. Each tool is
``python -m purezmq.perf`` (see purezmq.perf); ``purezmq bench TOOL ARGS``
runs one of them directly, e.g. ``local_thr`` on one machine and
``remote_thr`` on another. For the full matrix with medians and charts,
see scripts/bench.sh.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

from purezmq.perf.tools import TOOLS
from purezmq.perf.tools import main as perf_main

from .common import HelpFormatter, fail, note, positive_int
from .progress import Progress, add_progress_argument

TRANSPORTS = ("tcp", "ipc", "inproc")


def _csv(kind: type, choices: tuple[str, ...] | None = None) -> Any:
    def parse(text: str) -> list[Any]:
        items = [kind(x.strip()) for x in text.split(",") if x.strip()]
        bad = [x for x in items if choices is not None and x not in choices]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected a comma-separated list"
                + (f" of {', '.join(choices)}" if choices else "")
            )
        return items

    return parse


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench", help="throughput and latency, purezmq and pyzmq side by side",
        description="Measure PUSH/PULL throughput and REQ/REP latency with libzmq's perf "
        "tools, each end a process of its own, on purezmq and (when installed) on pyzmq, "
        "and print them side by side. With TOOL, run one perf tool as "
        "'python -m purezmq.perf TOOL ARGS' would (for two machines).",
        epilog="examples:\n"
        "  purezmq bench\n"
        "  purezmq bench --transport tcp,ipc --size 64,1024 --count 200000\n"
        "  purezmq bench local_thr 'tcp://*:5555' 64 1000000     (then remote_thr elsewhere)\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    p.add_argument(
        "tool",
        nargs="?",
        choices=TOOLS,
        metavar="TOOL",
        help=f"run this perf tool alone: {', '.join(TOOLS)}",
    )
    p.add_argument(
        "tool_args",
        nargs=argparse.REMAINDER,
        metavar="ARGS",
        help="the tool's arguments (python -m purezmq.perf --help)",
    )
    p.add_argument(
        "--transport",
        type=_csv(str, TRANSPORTS),
        default=["tcp"],
        metavar="LIST",
        help="transports, comma-separated: tcp, ipc, inproc (default: tcp)",
    )
    p.add_argument(
        "--size",
        type=_csv(int),
        default=[64],
        metavar="BYTES",
        help="message sizes in bytes, comma-separated (default: 64)",
    )
    p.add_argument(
        "--count",
        type=positive_int,
        default=100_000,
        metavar="N",
        help="messages per throughput run (default: 100000)",
    )
    p.add_argument(
        "--roundtrips",
        type=positive_int,
        default=10_000,
        metavar="N",
        help="round trips per latency run (default: 10000)",
    )
    p.add_argument(
        "--impl",
        type=_csv(str, ("purezmq", "zmq")),
        default=None,
        metavar="LIST",
        help="what to measure: purezmq, zmq (pyzmq); default: both, pyzmq if installed",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="give up on a run after SECONDS (default: 300)",
    )
    p.add_argument("--json", action="store_true", help="print the results as one JSON array")
    add_progress_argument(p)
    p.set_defaults(run=run, parser=p)


def run(a: argparse.Namespace) -> int:
    if a.tool:
        return perf_main([a.tool, *a.tool_args])
    impls = a.impl or ["purezmq"] + (["zmq"] if importlib.util.find_spec("zmq") else [])
    if "zmq" in impls and importlib.util.find_spec("zmq") is None:
        fail("--impl zmq: pyzmq is not installed (pip install pyzmq)")
    if "zmq" not in impls and a.impl is None:
        note("pyzmq is not installed: measuring purezmq alone (pip install pyzmq to compare)")
    cells = [(t, s, k) for t in a.transport for s in a.size for k in ("thr", "lat")]
    results: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory(prefix="purezmq-bench-") as tmp,
        Progress(a.progress, "bench runs", len(cells) * len(impls)) as progress,
    ):
        for transport, size, kind in cells:
            for impl in impls:
                label = f"{impl} {transport} {size} B {kind}"
                results.append(_measure(impl, transport, size, kind, a, tmp))
                progress.advance(label=label)
    if a.json:
        print(json.dumps(results, indent=1))
    else:
        print(_table(results, impls))
    return 0


def _perf(impl: str, tool: str, *args: object, extra: tuple[str, ...] = ()) -> list[str]:
    return [sys.executable, "-m", "purezmq.perf", tool, *map(str, args), "--impl", impl,
            "--json", *extra]  # fmt: skip


def _measure(
    impl: str, transport: str, size: int, kind: str, a: argparse.Namespace, tmp: str
) -> dict[str, Any]:
    count = a.count if kind == "thr" else a.roundtrips
    if transport == "inproc":
        out = _run_alone(_perf(impl, f"inproc_{kind}", size, count), a.timeout)
    else:
        endpoint = (
            "tcp://127.0.0.1:*" if transport == "tcp"
            else f"ipc://{tmp}/{impl}-{size}-{kind}.ipc"
        )  # fmt: skip
        out = _run_pair(impl, kind, endpoint, size, count, a.timeout, tmp)
    value = out["msg_per_s"] if kind == "thr" else out["latency_us"]
    return {"impl": impl, "transport": transport, "size": size, "kind": kind,
            "count": count, "value": value,
            "unit": "msg/s" if kind == "thr" else "us (one way)"}  # fmt: skip


def _run_alone(cmd: list[str], timeout: float) -> dict[str, Any]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    return _result(cmd, proc.returncode, proc.stdout, proc.stderr)


def _result(cmd: list[str], code: int, out: str, err: str) -> dict[str, Any]:
    if code != 0:
        last = (err.strip().splitlines() or ["(no output)"])[-1]
        fail(f"{cmd[3]} --impl {cmd[cmd.index('--impl') + 1]} failed: {last}")
    data: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return data


def _run_pair(
    impl: str, kind: str, endpoint: str, size: int, count: int, timeout: float, tmp: str
) -> dict[str, Any]:
    """The binding tool first; once it wrote its endpoint, the connecting one.
    Throughput is reported by the receiver (local), latency by the REQ (remote)."""
    tag = f"{impl}-{size}-{kind}-{time.monotonic_ns()}"
    ready, done = os.path.join(tmp, tag + ".ready"), os.path.join(tmp, tag + ".done")
    extra = ("--ready-file", ready) + (("--done-file", done) if kind == "thr" else ())
    local_cmd = _perf(impl, f"local_{kind}", endpoint, size, count, extra=extra)
    local = subprocess.Popen(local_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        bound = _wait_ready(local, ready, timeout)
        hold = ("--hold-file", done) if kind == "thr" else ()
        remote_cmd = _perf(impl, f"remote_{kind}", bound, size, count, extra=hold)
        remote = subprocess.run(
            remote_cmd, capture_output=True, text=True, timeout=timeout, check=False
        )
        out, err = local.communicate(timeout=timeout)
    finally:
        if local.poll() is None:
            local.kill()
            local.wait()
    if kind == "thr":
        _result(remote_cmd, remote.returncode, "{}", remote.stderr)
        return _result(local_cmd, local.returncode, out, err)
    _result(local_cmd, local.returncode, "{}", err)
    return _result(remote_cmd, remote.returncode, remote.stdout, remote.stderr)


def _wait_ready(proc: subprocess.Popen[str], path: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr else ""
            fail(f"the binding perf tool exited early: {(err.strip().splitlines() or ['?'])[-1]}")
        if time.monotonic() > deadline:
            fail("the binding perf tool did not bind within --timeout")
        time.sleep(0.01)
    with open(path, encoding="utf-8") as f:
        return f.read().strip().splitlines()[0]


def _table(results: list[dict[str, Any]], impls: list[str]) -> str:
    names = {"purezmq": "purezmq", "zmq": "pyzmq"}
    header = ["transport", "size [B]", "measure", *[names[i] for i in impls]]
    if len(impls) == 2:
        header.append("purezmq/pyzmq")
    rows = []
    cells = sorted({(r["transport"], r["size"], r["kind"]) for r in results},
                   key=lambda c: (TRANSPORTS.index(c[0]), c[1], c[2] != "thr"))  # fmt: skip
    for transport, size, kind in cells:
        values = {r["impl"]: r["value"] for r in results
                  if (r["transport"], r["size"], r["kind"]) == (transport, size, kind)}  # fmt: skip
        what = "throughput [msg/s]" if kind == "thr" else "latency [us]"
        fmt = "{:,.0f}" if kind == "thr" else "{:,.1f}"
        row = [transport, str(size), what, *[fmt.format(values[i]) for i in impls]]
        if len(impls) == 2:
            ours, theirs = values["purezmq"], values["zmq"]
            # Higher is better for throughput, lower for latency: >1 means purezmq is ahead.
            ratio = ours / theirs if kind == "thr" else theirs / ours
            row.append(f"{ratio:.2f}x")
        rows.append(row)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            c.rjust(w) if i > 2 else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [header, *rows]
    ]
    note_line = "ratio > 1: purezmq ahead (more messages per second, or less latency)"
    return "\n".join(line.rstrip() for line in lines) + (
        "\n" + note_line if len(impls) == 2 else ""
    )
