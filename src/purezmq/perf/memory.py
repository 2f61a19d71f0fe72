"""Memory scenarios: idle connections, and a PUB whose subscriber stopped.

Idle connections (two processes):

- ``idle_router <endpoint> <connections>`` binds a ROUTER, waits until
  `connections` peers said hello, answers each (so every connection is
  handshaken both ways), stays idle for ``--idle`` seconds and measures its
  RSS and the CPU it used while idle; then waits for the peer's "bye".
- ``idle_dealers <endpoint> <connections>`` opens that many DEALER sockets
  in one context, each connected to the ROUTER, waits for every answer,
  idles and measures the same, then says "bye" and waits for the ack (so
  both sides measure while all connections are up).

Stalled subscriber (two processes):

- ``stall_pub <endpoint> <size> <count>`` binds a PUB (SNDHWM ``--hwm``,
  default 1000) and a PAIR for control, probes until the subscriber is
  there, then sends `count` messages of `size` bytes as fast as it can while
  the subscriber does not read, sampling its own RSS every count/100
  messages (the series shows whether memory plateaus); then tells the
  subscriber to drain, sends end markers until it reports, and prints sent,
  delivered and dropped, RSS before, peak and after.
- ``stall_sub <endpoint> --control EP`` connects a SUB (RCVHWM ``--hwm``),
  reads until the first probe, says "ready", stops reading until told to
  drain, measures its RSS, then counts what was kept for it.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from ._common import (
    DATA,
    END,
    PROBE,
    cpu_seconds,
    endpoint_of,
    impl,
    raise_fd_limit,
    report,
    rss_kib,
    shared_clock,
    touch,
)


def _proc_status(field: str) -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def _idle_measure(args: argparse.Namespace) -> dict[str, Any]:
    rss_connected = rss_kib()
    cpu0, t0 = cpu_seconds(), time.perf_counter()
    time.sleep(args.idle)
    cpu, wall = cpu_seconds() - cpu0, time.perf_counter() - t0
    return {
        "rss_connected_kib": rss_connected,
        "rss_idle_kib": rss_kib(),
        "idle_s": wall,
        "idle_cpu_pct": 100.0 * cpu / wall if wall > 0 else 0.0,
        "threads": _proc_status("Threads"),
        "open_fds": _open_fds(),
    }


def _idle_report(args: argparse.Namespace, rss_start: int, m: dict[str, Any]) -> dict[str, Any]:
    n = args.connections
    growth = m["rss_idle_kib"] - rss_start
    data = {"connections": n, "rss_start_kib": rss_start, **m}
    data.update(growth_kib=growth, per_connection_kib=growth / n if n else 0.0)
    text = [
        f"connections: {n}",
        f"RSS: {rss_start} KiB before, {m['rss_idle_kib']} KiB with the connections idle",
        f"per connection: {data['per_connection_kib']:.1f} KiB",
        f"CPU while idle: {m['idle_cpu_pct']:.2f} %",
    ]
    return report(args, text, data)


def _poll_or_die(sock: Any, deadline: float, what: str) -> None:
    left = deadline - shared_clock()
    if left <= 0 or not sock.poll(int(left * 1000)):
        raise SystemExit(f"timed out waiting for {what}")


def idle_router(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    raise_fd_limit(args.connections + 256)
    ctx = zmq.Context()
    rss_start = rss_kib()
    router = ctx.socket(zmq.ROUTER)
    router.bind(args.endpoint)
    touch(args.ready_file, endpoint_of(zmq, router))
    deadline = shared_clock() + args.timeout
    peers: list[bytes] = []
    while len(peers) < args.connections:
        _poll_or_die(router, deadline, f"hellos ({len(peers)}/{args.connections})")
        peers.append(router.recv_multipart()[0])
    for ident in peers:
        router.send_multipart([ident, b"welcome"])
    measured = _idle_measure(args)
    _poll_or_die(router, deadline, "bye")
    ident = router.recv_multipart()[0]
    router.send_multipart([ident, b"ack"])
    out = _idle_report(args, rss_start, measured)
    router.close(linger=2000)
    ctx.term()
    return out


def idle_dealers(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    n = args.connections
    raise_fd_limit(3 * n + 256)
    ctx = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, n + 64)
    rss_start = rss_kib()
    dealers = []
    for _ in range(n):
        d = ctx.socket(zmq.DEALER)
        d.connect(args.endpoint)
        d.send(b"hello")
        dealers.append(d)
    poller = zmq.Poller()
    for d in dealers:
        poller.register(d, zmq.POLLIN)
    deadline = shared_clock() + args.timeout
    got = 0
    while got < n:
        left = deadline - shared_clock()
        if left <= 0:
            raise SystemExit(f"timed out waiting for answers ({got}/{n})")
        for d, _ in poller.poll(int(left * 1000)):
            d.recv()
            poller.unregister(d)
            got += 1
    measured = _idle_measure(args)
    dealers[0].send(b"bye")
    _poll_or_die(dealers[0], deadline, "ack")
    dealers[0].recv()
    out = _idle_report(args, rss_start, measured)
    for d in dealers:
        d.close(linger=0)
    ctx.term()
    return out


# ------------------------------------------------------------- stalled SUB
def _stall_hwm(args: argparse.Namespace) -> int:
    return 1000 if args.hwm is None else int(args.hwm)


def stall_pub(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    hwm = _stall_hwm(args)
    pub = ctx.socket(zmq.PUB)
    pub.setsockopt(zmq.SNDHWM, hwm)
    pub.bind(args.endpoint)
    ctl = ctx.socket(zmq.PAIR)
    ctl.bind(args.control or "tcp://127.0.0.1:*")
    touch(args.ready_file, endpoint_of(zmq, pub), endpoint_of(zmq, ctl))
    deadline = shared_clock() + args.timeout
    tail = b"\0" * (args.size - 1)
    while not ctl.poll(5):
        if shared_clock() > deadline:
            raise SystemExit("timed out waiting for the subscriber")
        pub.send(bytes([PROBE]) + tail)
    ctl.recv()
    rss_base = rss_kib()
    series, sent, t_send, aborted = _flood(args, pub, bytes([DATA]), tail, rss_base)
    t0 = shared_clock()
    for _ in range(5):  # let queued output settle, keep sampling
        time.sleep(0.2)
        series.append([sent, rss_kib(), round(shared_clock() - t0 + t_send, 4)])
    ctl.send(b"drain")
    sub_report: dict[str, Any] = {}
    end = bytes([END]) + tail
    while not sub_report:
        if shared_clock() > deadline:
            raise SystemExit("timed out waiting for the subscriber's count")
        pub.send(end)
        if ctl.poll(20):
            sub_report = json.loads(ctl.recv())
    pub.close(linger=0)
    ctl.close(linger=0)
    ctx.term()
    rss = [r for _, r, _ in series]
    delivered = int(sub_report["delivered"])
    data = {
        "size": args.size,
        "count": args.count,
        "hwm": hwm,
        "sent": sent,
        "delivered": delivered,
        "dropped": sent - delivered,
        "send_s": t_send,
        "pub_msg_per_s": sent / t_send if t_send > 0 else 0.0,
        "rss_base_kib": rss_base,
        "rss_peak_kib": max(rss),
        "rss_final_kib": rss[-1],
        "growth_kib": max(rss) - rss_base,
        "hwm_bytes_kib": hwm * args.size / 1024,
        "aborted_rss_limit": aborted,
        "series": series,
        "sub": sub_report,
    }
    text = [
        f"sent {sent} x {args.size} B, delivered {delivered}, dropped {sent - delivered}",
        f"PUB RSS: {rss_base} KiB before, peak {max(rss)} KiB, final {rss[-1]} KiB",
        f"SNDHWM x size = {data['hwm_bytes_kib']:.0f} KiB",
    ]
    return report(args, text, data)


def _flood(
    args: argparse.Namespace, pub: Any, head: bytes, tail: bytes, rss_base: int
) -> tuple[list[list[float]], int, float, bool]:
    """Send `count` messages, sampling RSS; stop early above --rss-limit-mb.

    Every message is a new bytes object (head + tail), as in an application
    that publishes fresh data: an implementation that queues references
    rather than copies must not look lighter because it queued one object
    a thousand times."""
    step = max(1, args.count // 100)
    limit = args.rss_limit_mb * 1024
    series: list[list[float]] = [[0, rss_base, 0.0]]
    send = pub.send
    t0 = shared_clock()
    sent = 0
    aborted = False
    while sent < args.count:
        for _ in range(min(step, args.count - sent)):
            send(head + tail)
        sent += min(step, args.count - sent)
        rss = rss_kib()
        series.append([sent, rss, round(shared_clock() - t0, 4)])
        if rss - rss_base > limit:
            aborted = True
            break
    return series, sent, shared_clock() - t0, aborted


def stall_sub(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    if not args.control:
        raise SystemExit("stall_sub needs --control (the publisher's control endpoint)")
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.RCVHWM, _stall_hwm(args))
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(args.endpoint)
    ctl = ctx.socket(zmq.PAIR)
    ctl.connect(args.control)
    rss_start = rss_kib()
    deadline = shared_clock() + args.timeout
    while True:
        _poll_or_die(sub, deadline, "a probe")
        if sub.recv()[0] == PROBE:
            break
    ctl.send(b"ready")
    _poll_or_die(ctl, deadline, "the drain order")  # not reading meanwhile
    ctl.recv()
    rss_stalled = rss_kib()
    delivered = 0
    while True:
        _poll_or_die(sub, deadline, "the end marker")
        tag = sub.recv()[0]
        if tag == DATA:
            delivered += 1
        elif tag == END:
            break
    result = {"delivered": delivered, "rss_start_kib": rss_start, "rss_stalled_kib": rss_stalled}
    ctl.send(json.dumps(result).encode())
    ctl.close(linger=2000)
    sub.close(linger=0)
    ctx.term()
    return report(args, [f"delivered: {delivered}"], result)
