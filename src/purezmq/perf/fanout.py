"""PUB/SUB fan-out: one publisher, K subscribers in P processes.

``fanout_pub <endpoint> <size> <count> --sub-procs P`` binds a PUB (and a
PULL for control on loopback tcp), writes both endpoints to the ready file,
then:

1. sends *probe* messages every 5 ms until each of the P subscriber
   processes reported that every one of its SUB sockets received one (so no
   subscriber misses the start: the slow-joiner problem, solved without
   sleeping);
2. notes the shared clock, sends `count` data messages of `size` bytes as
   fast as ``send`` returns;
3. sends an end marker (again every 50 ms, in case the HWM dropped it) until
   every subscriber process sent its report, and prints one report for all.

``fanout_sub <endpoint> <size> <count> --sockets K --control EP`` hosts K SUB
sockets (subscribed to everything) in one process, polls them with the
implementation's Poller and drains each ready socket with non-blocking
receives, counting data messages per socket until each saw the end marker.

The first byte of every message says what it is (data 0, probe 1, end 2),
so messages are at least one byte. The figure is the aggregate delivery
rate: data messages received by all subscribers / (last subscriber's end -
publisher's start), on a clock shared by the processes. Messages are never
dropped silently: ``dropped`` = count x K - delivered is reported.

HWM: both sides default to 0 (unbounded) here, so both implementations
deliver every message and the rate compares the work of fanning out, not
how much each one dropped. ``--hwm N`` sets SNDHWM on the PUB and RCVHWM on
the SUBs to N instead (drops then appear in ``dropped``).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ._common import DATA, END, PROBE, endpoint_of, impl, report, shared_clock, touch


def _hwm(args: argparse.Namespace) -> int:
    return 0 if args.hwm is None else int(args.hwm)


def _drain_control(zmq: Any, ctl: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while True:
        try:
            raw = ctl.recv(zmq.NOBLOCK)
        except zmq.Again:
            return out
        out.append(json.loads(raw))


def fanout_pub(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    ctx = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    pub.setsockopt(zmq.SNDHWM, _hwm(args))
    pub.bind(args.endpoint)
    ctl = ctx.socket(zmq.PULL)
    ctl.bind(args.control or "tcp://127.0.0.1:*")
    touch(args.ready_file, endpoint_of(zmq, pub), endpoint_of(zmq, ctl))
    deadline = shared_clock() + args.timeout
    tail = b"\0" * (args.size - 1)
    probe, data, end = bytes([PROBE]) + tail, bytes([DATA]) + tail, bytes([END]) + tail
    ready = 0
    while ready < args.sub_procs and shared_clock() < deadline:
        pub.send(probe)
        if ctl.poll(5):
            ready += sum(1 for m in _drain_control(zmq, ctl) if m["kind"] == "ready")
    complete = ready == args.sub_procs
    t_start = t_sent = shared_clock()
    results: list[dict[str, Any]] = []
    if complete:
        send = pub.send
        for _ in range(args.count):
            send(data)
        t_sent = shared_clock()
        while len(results) < args.sub_procs and shared_clock() < deadline:
            pub.send(end)
            if ctl.poll(50):
                results += [m for m in _drain_control(zmq, ctl) if m["kind"] == "done"]
    complete = complete and len(results) == args.sub_procs
    pub.close(linger=0)
    ctl.close(linger=0)
    ctx.term()
    data_out = _summary(args, ready, results, t_start, t_sent)
    data_out["complete"] = complete and all(r["complete"] for r in results)
    text = [
        f"message size: {args.size} [B]",
        f"message count: {args.count}",
        f"subscribers: {data_out['subscribers']} in {args.sub_procs} processes",
        f"delivered: {data_out['delivered']} (dropped {data_out['dropped']})",
        f"delivery rate: {data_out['msg_per_s']:.0f} [msg/s] (all subscribers)",
        f"publisher send rate: {data_out['pub_msg_per_s']:.0f} [msg/s]",
    ]
    out = report(args, text, data_out)
    if not out["complete"]:
        raise SystemExit(1)
    return out


def _summary(
    args: argparse.Namespace,
    ready: int,
    results: list[dict[str, Any]],
    t_start: float,
    t_sent: float,
) -> dict[str, Any]:
    subscribers = sum(r["sockets"] for r in results)
    delivered = sum(r["delivered"] for r in results)
    t_done = max((r["t_done"] for r in results), default=t_sent)
    elapsed = t_done - t_start
    send_time = t_sent - t_start
    return {
        "size": args.size,
        "count": args.count,
        "hwm": _hwm(args),
        "sub_procs": args.sub_procs,
        "ready_procs": ready,
        "subscribers": subscribers,
        "delivered": delivered,
        "expected": args.count * subscribers,
        "dropped": args.count * subscribers - delivered,
        "elapsed_s": elapsed,
        "msg_per_s": delivered / elapsed if elapsed > 0 else 0.0,
        "per_sub_msg_per_s": delivered / subscribers / elapsed if elapsed > 0 else 0.0,
        "pub_msg_per_s": args.count / send_time if send_time > 0 else 0.0,
        "min_per_socket": min((r["min_per_socket"] for r in results), default=0),
    }


def fanout_sub(args: argparse.Namespace) -> dict[str, Any]:
    zmq = impl(args.impl)
    if not args.control:
        raise SystemExit("fanout_sub needs --control (the publisher's control endpoint)")
    ctx = zmq.Context()
    subs = []
    for _ in range(args.sockets):
        s = ctx.socket(zmq.SUB)
        s.setsockopt(zmq.RCVHWM, _hwm(args))
        s.setsockopt(zmq.SUBSCRIBE, b"")
        s.connect(args.endpoint)
        subs.append(s)
    ctl = ctx.socket(zmq.PUSH)
    ctl.connect(args.control)
    state = _receive_all(zmq, args, subs, ctl)
    result = {
        "kind": "done",
        "pid": os.getpid(),
        "sockets": len(subs),
        "delivered": sum(state["counts"]),
        "min_per_socket": min(state["counts"]),
        "t_first": state["t_first"],
        "t_done": state["t_done"],
        "complete": state["complete"],
    }
    ctl.send(json.dumps(result).encode())
    ctl.close(linger=5000)
    for s in subs:
        s.close(linger=0)
    ctx.term()
    text = [f"sockets: {len(subs)}", f"delivered: {result['delivered']}"]
    return report(args, text, result)


def _receive_all(zmq: Any, args: argparse.Namespace, subs: list[Any], ctl: Any) -> dict[str, Any]:
    k = len(subs)
    index = {id(s): i for i, s in enumerate(subs)}
    counts, seen, done = [0] * k, [False] * k, [False] * k
    n_seen = n_done = 0
    t_first = t_done = 0.0
    poller = zmq.Poller()
    for s in subs:
        poller.register(s, zmq.POLLIN)
    noblock, again = zmq.NOBLOCK, zmq.Again
    deadline = shared_clock() + args.timeout
    while n_done < k and shared_clock() < deadline:
        for sock, _ in poller.poll(100):
            i = index[id(sock)]
            recv = sock.recv
            n = 0
            for _ in range(1000):
                try:
                    tag = recv(noblock)[0]
                except again:
                    break
                if tag == DATA:
                    n += 1
                elif tag == PROBE:
                    if not seen[i]:
                        seen[i] = True
                        n_seen += 1
                        if n_seen == k:
                            ctl.send(b'{"kind": "ready"}')
                elif not done[i]:
                    done[i] = True
                    n_done += 1
                    t_done = shared_clock()
            if n:
                if not t_first:
                    t_first = shared_clock()
                counts[i] += n
    return {
        "counts": counts,
        "t_first": t_first,
        "t_done": t_done,
        "complete": n_done == k,
    }
