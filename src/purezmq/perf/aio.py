"""The throughput and latency tools on ``<impl>.asyncio`` (``--async``).

Same methods, arguments and reports as the synchronous tools, but every
send and receive is awaited: ``await sock.send(msg)``, ``await sock.recv()``
on ``purezmq.asyncio`` or ``zmq.asyncio`` sockets made inside the running
loop (the standard loop, or uvloop with ``--loop uvloop``). The inproc tools
run both ends as two tasks on one loop. Contexts are terminated after the
loop has finished, so a blocking ``term()`` never stalls the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

from ._common import endpoint_of, impl, impl_asyncio, run_loop, touch
from .tools import latency_report, throughput_report


async def _receive_timed(sock: Any, count: int) -> float:
    await sock.recv()
    start = time.perf_counter()
    recv = sock.recv
    for _ in range(count - 1):
        await recv()
    return time.perf_counter() - start


async def _send(sock: Any, size: int, count: int) -> None:
    msg = b"\0" * size
    send = sock.send
    for _ in range(count):
        await send(msg)


async def _echo(sock: Any, count: int) -> None:
    recv, send = sock.recv, sock.send
    for _ in range(count):
        await send(await recv())


async def _round_trips(sock: Any, size: int, count: int, warmup: int) -> list[float]:
    msg = b"\0" * size
    send, recv = sock.send, sock.recv
    for _ in range(warmup):
        await send(msg)
        await recv()
    clock = time.perf_counter
    samples = []
    for _ in range(count):
        t0 = clock()
        await send(msg)
        await recv()
        samples.append(clock() - t0)
    return samples


def _run(args: argparse.Namespace, body: Callable[[Any, Any], Any]) -> Any:
    """Run body(zmq, ctx) on a loop, then terminate the context."""
    zmq, azmq = impl(args.impl), impl_asyncio(args.impl)
    holder: list[Any] = []

    async def main() -> Any:
        ctx = azmq.Context()
        holder.append(ctx)
        return await body(zmq, ctx)

    try:
        return run_loop(main(), args.loop)
    finally:
        for ctx in holder:
            ctx.term()


# ----------------------------------------------------------------- throughput
def local_thr(args: argparse.Namespace) -> dict[str, Any]:
    async def body(zmq: Any, ctx: Any) -> float:
        sock = ctx.socket(zmq.PULL)
        sock.bind(args.endpoint)
        touch(args.ready_file, endpoint_of(zmq, sock))
        elapsed = await _receive_timed(sock, args.count)
        touch(args.done_file, "done")
        sock.close()
        return elapsed

    return throughput_report(args, _run(args, body))


def remote_thr(args: argparse.Namespace) -> dict[str, Any]:
    async def body(zmq: Any, ctx: Any) -> None:
        sock = ctx.socket(zmq.PUSH)
        sock.connect(args.endpoint)
        await _send(sock, args.size, args.count)
        deadline = time.monotonic() + args.timeout
        while args.hold_file and not os.path.exists(args.hold_file):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.005)  # keep the loop (and purezmq's connections) running
        sock.close(linger=-1)

    _run(args, body)
    return {}


def inproc_thr(args: argparse.Namespace) -> dict[str, Any]:
    async def body(zmq: Any, ctx: Any) -> float:
        sink = ctx.socket(zmq.PULL)
        sink.bind("inproc://thr_test")
        source = ctx.socket(zmq.PUSH)
        source.connect("inproc://thr_test")
        sender = asyncio.ensure_future(_send(source, args.size, args.count))
        elapsed = await _receive_timed(sink, args.count)
        await sender
        source.close(linger=-1)
        sink.close()
        return elapsed

    return throughput_report(args, _run(args, body))


# ----------------------------------------------------------------- latency
def local_lat(args: argparse.Namespace) -> dict[str, Any]:
    async def body(zmq: Any, ctx: Any) -> None:
        sock = ctx.socket(zmq.REP)
        sock.bind(args.endpoint)
        touch(args.ready_file, endpoint_of(zmq, sock))
        await _echo(sock, args.count + args.warmup)
        sock.close(linger=-1)

    _run(args, body)
    return {}


def remote_lat(args: argparse.Namespace) -> dict[str, Any]:
    async def body(zmq: Any, ctx: Any) -> list[float]:
        sock = ctx.socket(zmq.REQ)
        sock.connect(args.endpoint)
        rtts = await _round_trips(sock, args.size, args.count, args.warmup)
        sock.close()
        return rtts

    return latency_report(args, _run(args, body))


def inproc_lat(args: argparse.Namespace) -> dict[str, Any]:
    async def body(zmq: Any, ctx: Any) -> list[float]:
        rep = ctx.socket(zmq.REP)
        rep.bind("inproc://lat_test")
        req = ctx.socket(zmq.REQ)
        req.connect("inproc://lat_test")
        echo = asyncio.ensure_future(_echo(rep, args.count + args.warmup))
        rtts = await _round_trips(req, args.size, args.count, args.warmup)
        await echo
        req.close()
        rep.close()
        return rtts

    return latency_report(args, _run(args, body))


TOOLS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "local_thr": local_thr,
    "remote_thr": remote_thr,
    "inproc_thr": inproc_thr,
    "local_lat": local_lat,
    "remote_lat": remote_lat,
    "inproc_lat": inproc_lat,
}
