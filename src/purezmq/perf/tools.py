"""The perf tools themselves (see the package docstring).

Every tool takes the module to measure as a parameter, so the same code
measures purezmq and pyzmq: only the import differs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import threading
import time
from types import ModuleType
from typing import Any


def _impl(name: str) -> ModuleType:
    return importlib.import_module(name)


def _report(args: argparse.Namespace, text: list[str], data: dict[str, Any]) -> dict[str, Any]:
    data = {"tool": args.tool, "impl": args.impl, **data}
    if args.json:
        print(json.dumps(data), flush=True)
    else:
        print("\n".join(text), flush=True)
    return data


# ----------------------------------------------------------------- throughput
def _receive_timed(sock: Any, count: int) -> float:
    """libzmq's local_thr: time from the first message to the last."""
    sock.recv()
    start = time.perf_counter()
    recv = sock.recv
    for _ in range(count - 1):
        recv()
    return time.perf_counter() - start


def _send(zmq: ModuleType, sock: Any, size: int, count: int) -> None:
    msg = b"\0" * size
    send = sock.send
    for _ in range(count):
        send(msg)


def _throughput_report(args: argparse.Namespace, elapsed: float) -> dict[str, Any]:
    size, count = args.size, args.count
    rate = (count - 1) / elapsed if elapsed > 0 else float("inf")
    mbps = rate * size * 8 / 1e6
    text = [
        f"message size: {size} [B]",
        f"message count: {count}",
        f"mean throughput: {rate:.0f} [msg/s]",
        f"mean throughput: {mbps:.3f} [Mb/s]",
    ]
    data = {"size": size, "count": count, "msg_per_s": rate, "mbit_per_s": mbps}
    return _report(args, text, data)


def local_thr(args: argparse.Namespace) -> dict[str, Any]:
    zmq = _impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.PULL)
    sock.bind(args.endpoint)
    if args.ready_file:
        _touch(args.ready_file, sock.get(zmq.LAST_ENDPOINT).decode())
    elapsed = _receive_timed(sock, args.count)
    sock.close()
    ctx.term()
    return _throughput_report(args, elapsed)


def remote_thr(args: argparse.Namespace) -> dict[str, Any]:
    zmq = _impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.PUSH)
    sock.connect(args.endpoint)
    _send(zmq, sock, args.size, args.count)
    sock.close(linger=-1)
    ctx.term()
    return {}


def inproc_thr(args: argparse.Namespace) -> dict[str, Any]:
    zmq = _impl(args.impl)
    ctx = zmq.Context()
    sink = ctx.socket(zmq.PULL)
    sink.bind("inproc://thr_test")

    def sender() -> None:
        s = ctx.socket(zmq.PUSH)
        s.connect("inproc://thr_test")
        _send(zmq, s, args.size, args.count)
        s.close(linger=-1)

    t = threading.Thread(target=sender)
    t.start()
    elapsed = _receive_timed(sink, args.count)
    t.join()
    sink.close()
    ctx.term()
    return _throughput_report(args, elapsed)


# ----------------------------------------------------------------- latency
def _echo(sock: Any, count: int) -> None:
    recv, send = sock.recv, sock.send
    for _ in range(count):
        send(recv())


def _round_trips(sock: Any, size: int, count: int, warmup: int) -> list[float]:
    msg = b"\0" * size
    send, recv = sock.send, sock.recv
    for _ in range(warmup):
        send(msg)
        recv()
    clock = time.perf_counter
    samples = []
    for _ in range(count):
        t0 = clock()
        send(msg)
        recv()
        samples.append(clock() - t0)
    return samples


def _latency_report(args: argparse.Namespace, rtts: list[float]) -> dict[str, Any]:
    halves = sorted(r / 2 * 1e6 for r in rtts)
    mean = sum(halves) / len(halves)
    p50 = halves[len(halves) // 2]
    p99 = halves[min(len(halves) - 1, int(len(halves) * 0.99))]
    text = [
        f"message size: {args.size} [B]",
        f"roundtrip count: {args.count}",
        f"average latency: {mean:.3f} [us]",
        f"p50 latency: {p50:.3f} [us]",
        f"p99 latency: {p99:.3f} [us]",
    ]
    data = {"size": args.size, "count": args.count, "latency_us": mean}
    data.update(p50_us=p50, p99_us=p99)
    return _report(args, text, data)


def local_lat(args: argparse.Namespace) -> dict[str, Any]:
    zmq = _impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REP)
    sock.bind(args.endpoint)
    if args.ready_file:
        _touch(args.ready_file, sock.get(zmq.LAST_ENDPOINT).decode())
    _echo(sock, args.count + args.warmup)
    sock.close(linger=-1)
    ctx.term()
    return {}


def remote_lat(args: argparse.Namespace) -> dict[str, Any]:
    zmq = _impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REQ)
    sock.connect(args.endpoint)
    rtts = _round_trips(sock, args.size, args.count, args.warmup)
    sock.close()
    ctx.term()
    return _latency_report(args, rtts)


def inproc_lat(args: argparse.Namespace) -> dict[str, Any]:
    zmq = _impl(args.impl)
    ctx = zmq.Context()
    rep = ctx.socket(zmq.REP)
    rep.bind("inproc://lat_test")
    t = threading.Thread(target=_echo, args=(rep, args.count + args.warmup))
    t.start()
    req = ctx.socket(zmq.REQ)
    req.connect("inproc://lat_test")
    rtts = _round_trips(req, args.size, args.count, args.warmup)
    t.join()
    req.close()
    rep.close()
    ctx.term()
    return _latency_report(args, rtts)


def _touch(path: str, endpoint: str) -> None:
    """Tell a harness we are bound (and where): it starts the other side then."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(endpoint)


TOOLS = {
    "local_thr": (local_thr, True),
    "remote_thr": (remote_thr, True),
    "inproc_thr": (inproc_thr, False),
    "local_lat": (local_lat, True),
    "remote_lat": (remote_lat, True),
    "inproc_lat": (inproc_lat, False),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m purezmq.perf",
        description="libzmq's perf tools (local_thr, remote_thr, local_lat, remote_lat, "
        "inproc_thr, inproc_lat) on purezmq or, with --impl zmq, on pyzmq.",
    )
    p.add_argument("tool", choices=sorted(TOOLS))
    p.add_argument("args", nargs="+", help="[endpoint] message-size message/roundtrip-count")
    p.add_argument("--impl", default="purezmq", help="module to measure (purezmq or zmq)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--warmup", type=int, default=1000, help="untimed round trips (latency)")
    p.add_argument("--ready-file", help="write the bound endpoint here once bound")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    fn, needs_endpoint = TOOLS[args.tool]
    expected = 3 if needs_endpoint else 2
    if len(args.args) != expected:
        usage = "<endpoint> " if needs_endpoint else ""
        parser.error(f"usage: {args.tool} {usage}<message-size> <count>")
    if needs_endpoint:
        args.endpoint = args.args[0]
    try:
        args.size, args.count = int(args.args[-2]), int(args.args[-1])
    except ValueError:
        parser.error("message size and count must be integers")
    if args.size < 0 or args.count < 2:
        parser.error("message size must be >= 0 and count >= 2")
    fn(args)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
