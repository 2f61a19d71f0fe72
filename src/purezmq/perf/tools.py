"""The perf tools themselves (see the package docstring).

Every tool takes the module to measure as a parameter, so the same code
measures purezmq and pyzmq: only the import differs. This module holds the
synchronous throughput and latency tools, the argument parser and the tool
table; ``aio`` has their asyncio twins, ``fanout`` the PUB/SUB fan-out pair
and ``memory`` the memory scenarios.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ._common import endpoint_of, hold, impl, report, touch


# ----------------------------------------------------------------- throughput
def _receive_timed(sock: Any, count: int) -> float:
    """libzmq's local_thr: time from the first message to the last."""
    sock.recv()
    start = time.perf_counter()
    recv = sock.recv
    for _ in range(count - 1):
        recv()
    return time.perf_counter() - start


def _send(sock: Any, size: int, count: int) -> None:
    msg = b"\0" * size
    send = sock.send
    for _ in range(count):
        send(msg)


def throughput_report(args: argparse.Namespace, elapsed: float) -> dict[str, Any]:
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
    data["elapsed_s"] = elapsed
    return report(args, text, data)


def local_thr(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.PULL)
    sock.bind(args.endpoint)
    touch(args.ready_file, endpoint_of(zmq, sock))
    elapsed = _receive_timed(sock, args.count)
    touch(args.done_file, "done")
    sock.close()
    ctx.term()
    return throughput_report(args, elapsed)


def remote_thr(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.PUSH)
    sock.connect(args.endpoint)
    _send(sock, args.size, args.count)
    hold(args.hold_file, args.timeout)
    sock.close(linger=-1)
    ctx.term()
    return {}


def inproc_thr(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    sink = ctx.socket(zmq.PULL)
    sink.bind("inproc://thr_test")

    def sender() -> None:
        s = ctx.socket(zmq.PUSH)
        s.connect("inproc://thr_test")
        _send(s, args.size, args.count)
        s.close(linger=-1)

    t = threading.Thread(target=sender)
    t.start()
    elapsed = _receive_timed(sink, args.count)
    t.join()
    sink.close()
    ctx.term()
    return throughput_report(args, elapsed)


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


def latency_report(args: argparse.Namespace, rtts: list[float]) -> dict[str, Any]:
    """libzmq's figure (half the mean round trip) plus percentiles of RTT/2."""
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
    data.update(p50_us=p50, p99_us=p99, min_us=halves[0], warmup=args.warmup)
    return report(args, text, data)


def local_lat(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REP)
    sock.bind(args.endpoint)
    touch(args.ready_file, endpoint_of(zmq, sock))
    _echo(sock, args.count + args.warmup)
    sock.close(linger=-1)
    ctx.term()
    return {}


def remote_lat(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REQ)
    sock.connect(args.endpoint)
    rtts = _round_trips(sock, args.size, args.count, args.warmup)
    sock.close()
    ctx.term()
    return latency_report(args, rtts)


def inproc_lat(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
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
    return latency_report(args, rtts)


# ----------------------------------------------------------------- the table
Tool = Callable[[argparse.Namespace], dict[str, Any]]

#: tool -> (positional arguments, whether --async applies)
_SHAPES: dict[str, tuple[tuple[str, ...], bool]] = {
    "local_thr": (("endpoint", "size", "count"), True),
    "remote_thr": (("endpoint", "size", "count"), True),
    "inproc_thr": (("size", "count"), True),
    "local_lat": (("endpoint", "size", "count"), True),
    "remote_lat": (("endpoint", "size", "count"), True),
    "inproc_lat": (("size", "count"), True),
    "fanout_pub": (("endpoint", "size", "count"), False),
    "fanout_sub": (("endpoint", "size", "count"), False),
    "idle_router": (("endpoint", "connections"), False),
    "idle_dealers": (("endpoint", "connections"), False),
    "stall_pub": (("endpoint", "size", "count"), False),
    "stall_sub": (("endpoint",), False),
    "conn_server": (("endpoint",), False),
    "conn_client": (("endpoint", "size", "count"), False),
}


def _tool(name: str, use_async: bool) -> Tool:
    from . import aio, connect, fanout, memory

    sync: dict[str, Tool] = {
        "local_thr": local_thr,
        "remote_thr": remote_thr,
        "inproc_thr": inproc_thr,
        "local_lat": local_lat,
        "remote_lat": remote_lat,
        "inproc_lat": inproc_lat,
        "fanout_pub": fanout.fanout_pub,
        "fanout_sub": fanout.fanout_sub,
        "idle_router": memory.idle_router,
        "idle_dealers": memory.idle_dealers,
        "stall_pub": memory.stall_pub,
        "stall_sub": memory.stall_sub,
        "conn_server": connect.conn_server,
        "conn_client": connect.conn_client,
    }
    if use_async:
        return aio.TOOLS[name]
    return sync[name]


TOOLS = sorted(_SHAPES)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m purezmq.perf",
        description="libzmq's perf tools (local_thr, remote_thr, local_lat, remote_lat, "
        "inproc_thr, inproc_lat) on purezmq or, with --impl zmq, on pyzmq; --async runs "
        "them on <impl>.asyncio. Also: fanout_pub/fanout_sub (PUB/SUB fan-out), "
        "idle_router/idle_dealers (memory of idle connections), stall_pub/stall_sub "
        "(memory of a PUB whose subscriber stopped reading), conn_server/conn_client "
        "(connection set-up time and connects per second).",
    )
    p.add_argument("tool", choices=TOOLS)
    p.add_argument("args", nargs="+", help="[endpoint] message-size message/roundtrip-count")
    p.add_argument("--impl", default="purezmq", help="module to measure (purezmq or zmq)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--warmup", type=int, default=1000, help="untimed round trips (latency)")
    p.add_argument("--ready-file", help="write the bound endpoint(s) here once bound")
    p.add_argument("--done-file", help="local_thr: write this file once every message is in")
    p.add_argument(
        "--hold-file",
        help="remote_thr: keep the connection open until this file exists (see _common.hold)",
    )
    p.add_argument(
        "--async",
        dest="use_async",
        action="store_true",
        help="use <impl>.asyncio with awaitable send/recv (thr and lat tools)",
    )
    p.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    g = p.add_argument_group("fan-out and memory tools")
    g.add_argument("--sub-procs", type=int, default=1, help="fanout_pub: subscriber processes")
    g.add_argument("--sockets", type=int, default=1, help="fanout_sub: SUB sockets here")
    g.add_argument("--control", help="control endpoint printed in the publisher's ready file")
    g.add_argument(
        "--hwm",
        type=int,
        default=None,
        help="SNDHWM/RCVHWM for fanout (default 0: unbounded) and stall (default 1000)",
    )
    g.add_argument("--timeout", type=float, default=120.0, help="give up after this [s]")
    g.add_argument("--idle", type=float, default=2.0, help="idle seconds before measuring")
    g.add_argument("--rss-limit-mb", type=int, default=2048, help="stall_pub: stop above")
    g.add_argument(
        "--burst",
        type=int,
        default=0,
        help="conn_client: then open this many connections at once (connects per second)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    names, asyncable = _SHAPES[args.tool]
    if args.use_async and not asyncable:
        parser.error(f"{args.tool} has no --async variant")
    if len(args.args) != len(names):
        parser.error(f"usage: {args.tool} " + " ".join(f"<{n}>" for n in names))
    values = dict(zip(names, args.args, strict=True))
    args.endpoint = values.get("endpoint")
    try:
        args.size = int(values.get("size", 0))
        args.count = int(values.get("count", 2))
        args.connections = int(values.get("connections", 0))
    except ValueError:
        parser.error("message size and counts must be integers")
    if args.size < 0 or args.count < 2:
        parser.error("message size must be >= 0 and count >= 2")
    if "size" in values and args.tool.startswith(("fanout", "stall")) and args.size < 1:
        parser.error(f"{args.tool} needs messages of at least 1 byte (a type tag)")
    _tool(args.tool, args.use_async)(args)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
