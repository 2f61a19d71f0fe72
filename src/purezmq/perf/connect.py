"""Connection set-up: how long a user waits for a new connection to work.

Two processes:

- ``conn_server <endpoint>`` binds a ROUTER and echoes every message to the
  peer that sent it, until a peer sends ``bye`` (answered, then it exits).
- ``conn_client <endpoint> <size> <count>`` times `count` set-ups, one
  after another: a fresh DEALER socket, ``connect``, one round trip of a
  `size`-byte message (so the greeting, the security handshake - NULL - and
  the first message in each direction are all in it) and ``close``. That is
  what an application pays for a connection it opens to ask one question;
  the context is made once, outside the timing, as an application would.
  Then, with ``--burst M``, it opens M DEALERs at once, each connecting and
  sending one message, and times until every answer is in: connects per
  second when many connections are set up together (the I/O thread's share
  rather than the round trips').

The report gives the mean set-up time in µs (the headline), p50/p99, the
set-ups per second sequentially and the burst's connects per second.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from ._common import endpoint_of, impl, raise_fd_limit, report, shared_clock, touch

BYE = b"bye"


def conn_server(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    raise_fd_limit(4096)
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.bind(args.endpoint)
    touch(args.ready_file, endpoint_of(zmq, router))
    deadline = shared_clock() + args.timeout
    served = 0
    while True:
        left = deadline - shared_clock()
        if left <= 0 or not router.poll(int(left * 1000)):
            raise SystemExit(f"timed out after {served} round trips")
        ident, body = router.recv_multipart()
        router.send_multipart([ident, body])
        if body == BYE:
            break
        served += 1
    router.close(linger=2000)
    ctx.term()
    return report(args, [f"round trips served: {served}"], {"served": served})


def _one(zmq: Any, ctx: Any, endpoint: str, msg: bytes) -> None:
    s = ctx.socket(zmq.DEALER)
    s.connect(endpoint)
    s.send(msg)
    s.recv()
    s.close(linger=0)


def _burst(zmq: Any, ctx: Any, endpoint: str, msg: bytes, n: int, deadline: float) -> float:
    """Seconds from the first socket created to the last answer received."""
    poller = zmq.Poller()
    t0 = time.perf_counter()
    socks = []
    for _ in range(n):
        s = ctx.socket(zmq.DEALER)
        s.connect(endpoint)
        s.send(msg)
        poller.register(s, zmq.POLLIN)
        socks.append(s)
    got = 0
    while got < n:
        left = deadline - shared_clock()
        if left <= 0:
            raise SystemExit(f"timed out in the burst ({got}/{n} answers)")
        for s, _ in poller.poll(int(left * 1000)):
            s.recv()
            poller.unregister(s)
            got += 1
    elapsed = time.perf_counter() - t0
    for s in socks:
        s.close(linger=0)
    return elapsed


def conn_client(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    raise_fd_limit(2 * args.burst + 256)
    ctx = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, max(1024, args.burst + 64))
    msg = b"\0" * args.size
    deadline = shared_clock() + args.timeout
    for _ in range(min(args.warmup, args.count)):
        _one(zmq, ctx, args.endpoint, msg)
    clock = time.perf_counter
    samples = []
    for _ in range(args.count):
        t0 = clock()
        _one(zmq, ctx, args.endpoint, msg)
        samples.append(clock() - t0)
        if shared_clock() > deadline:
            raise SystemExit(f"timed out after {len(samples)} set-ups")
    burst_s = _burst(zmq, ctx, args.endpoint, msg, args.burst, deadline) if args.burst else 0.0
    _one(zmq, ctx, args.endpoint, BYE)
    ctx.term()
    us = sorted(x * 1e6 for x in samples)
    mean = sum(us) / len(us)
    data = {
        "size": args.size,
        "count": args.count,
        "setup_us": mean,
        "p50_us": us[len(us) // 2],
        "p99_us": us[min(len(us) - 1, int(len(us) * 0.99))],
        "min_us": us[0],
        "setups_per_s": 1e6 / mean if mean > 0 else 0.0,
        "burst": args.burst,
        "burst_s": burst_s,
        "burst_per_s": args.burst / burst_s if burst_s > 0 else 0.0,
        "warmup": args.warmup,
    }
    text = [
        f"set-ups: {args.count} (socket, connect, {args.size} B round trip, close)",
        f"mean set-up: {mean:.1f} [us] (p50 {data['p50_us']:.1f}, p99 {data['p99_us']:.1f})",
        f"set-ups per second: {data['setups_per_s']:.0f}",
    ]
    if args.burst:
        text.append(f"burst of {args.burst}: {data['burst_per_s']:.0f} [connects/s]")
    return report(args, text, data)
