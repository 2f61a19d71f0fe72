"""Micro-benchmark of the routing layer: ns per message (not collected by pytest).

    .venv/bin/python benchmarks/micro/run.py routing [--quick]
    .venv/bin/python benchmarks/micro/routing.py [--quick]

Each case runs batches of messages through real pipes with nobody on the
other side but the benchmark: sends are timed with the peer's queue emptied
between batches (untimed), receives are timed on queues filled beforehand.
The numbers are the best of several repeats, so they show the cost of the
routing code itself, not of a whole socket.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from purezmq._routing.dist import Distributor
from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.patterns import (
    Dealer,
    Pub,
    Pull,
    Push,
    Rep,
    Req,
    Router,
    Sub,
)
from purezmq._routing.patterns.base import Pattern
from purezmq._routing.pipe import Pipe, pipepair
from purezmq._routing.trie import MTrie, Trie

BATCH = 1000
REPEATS = 7


class Null:
    """An owner that ignores every event."""

    def read_activated(self, pipe: Pipe) -> None: ...
    def write_activated(self, pipe: Pipe) -> None: ...
    def pipe_closed(self, pipe: Pipe) -> None: ...
    def hiccuped(self, pipe: Pipe) -> None: ...


NULL = Null()


def pairs(n: int) -> tuple[list[Pipe], list[Pipe]]:
    mine, theirs = [], []
    for _ in range(n):
        a, b = pipepair(NULL, NULL)
        mine.append(a)
        theirs.append(b)
    return mine, theirs


def clear(ends: list[Pipe]) -> None:
    for end in ends:
        end._in.clear()


def timed(run: Callable[[], None], reset: Callable[[], None], per_batch: int = BATCH) -> float:
    """Best ns per message over REPEATS batches."""
    best = float("inf")
    for _ in range(REPEATS):
        reset()
        t0 = time.perf_counter_ns()
        run()
        best = min(best, (time.perf_counter_ns() - t0) / per_batch)
    return best


def fill(ends: list[Pipe], msg: list[Any], n: int) -> Callable[[], None]:
    def reset() -> None:
        for end in ends:
            q = end._out
            q.clear()
            q.extend([list(msg) for _ in range(n // len(ends))])

    return reset


# ------------------------------------------------------------------ strategies
def bench_lb(npipes: int) -> float:
    lb = LoadBalancer()
    mine, theirs = pairs(npipes)
    for p in mine:
        lb.attach(p)
    send = lb.send

    def run() -> None:
        for _ in range(BATCH):
            send(b"x", False)

    return timed(run, lambda: clear(theirs))


def bench_fq(npipes: int) -> float:
    fq = FairQueue()
    mine, theirs = pairs(npipes)
    for p in mine:
        fq.attach(p)
    recv = fq.recv

    def run() -> None:
        for _ in range(BATCH):
            recv()

    return timed(run, fill(theirs, [b"x"], BATCH))


def bench_dist(npipes: int) -> float:
    d = Distributor()
    mine, theirs = pairs(npipes)
    for p in mine:
        d.attach(p)
    send = d.send_to_all

    def run() -> None:
        for _ in range(BATCH):
            send(b"x", False)

    return timed(run, lambda: clear(theirs))


def bench_trie(subs: list[bytes], data: bytes) -> float:
    t = Trie()
    for s in subs:
        t.add(s)
    check = t.check

    def run() -> None:
        for _ in range(BATCH):
            check(data)

    return timed(run, lambda: None)


def bench_mtrie(subs: list[bytes], data: bytes, npipes: int = 1) -> float:
    m = MTrie()
    mine, _ = pairs(npipes)
    for s in subs:
        for p in mine:
            m.add(s, p)
    match = m.match

    def run() -> None:
        for _ in range(BATCH):
            match(data)

    return timed(run, lambda: None)


# ------------------------------------------------------------------ patterns
def attach(pattern: Pattern, n: int) -> tuple[list[Pipe], list[Pipe]]:
    mine, theirs = pairs(n)
    for p in mine:
        p.peer_identity = b"peer%d" % len(mine)
        pattern.attach_pipe(p, False)
    return mine, theirs


def bench_send(pattern: Pattern, n: int, frames: list[Any], whole: bool) -> float:
    _, theirs = attach(pattern, n)
    if whole:
        send_msg = pattern.send_msg

        def run() -> None:
            for _ in range(BATCH):
                send_msg(list(frames))

    else:
        send = pattern.send
        last = len(frames) - 1

        def run() -> None:
            for _ in range(BATCH):
                for i, f in enumerate(frames):
                    send(f, i < last)

    return timed(run, lambda: clear(theirs))


def bench_recv(pattern: Pattern, n: int, msg: list[Any]) -> float:
    _, theirs = attach(pattern, n)
    recv = pattern.recv

    def run() -> None:
        for _ in range(BATCH):
            recv()

    return timed(run, fill(theirs, msg, BATCH))


def bench_pub(nsubs: int, topic: bytes) -> float:
    pub = Pub()
    mine, theirs = attach(pub, nsubs)
    for end in theirs:
        end.write([b"\x01" + topic])
    for p in mine:
        pub.read_activated(p)
    send = pub.send

    def run() -> None:
        for _ in range(BATCH):
            send(b"topic.1", False)

    return timed(run, lambda: clear(theirs))


def bench_sub(topic: bytes) -> float:
    sub = Sub()
    sub.set_option("subscribe", topic)
    _, theirs = attach(sub, 1)
    clear(theirs)
    recv = sub.recv

    def run() -> None:
        for _ in range(BATCH):
            recv()

    return timed(run, fill(theirs, [b"topic.1 payload"], BATCH))


class Forward(Null):
    """Owner forwarding activations to a pattern (the socket layer's job)."""

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern

    def read_activated(self, pipe: Pipe) -> None:
        self.pattern.read_activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self.pattern.write_activated(pipe)


def bench_reqrep() -> float:
    """One request/reply cycle seen from both patterns (4 pattern calls)."""
    req, rep = Req(), Rep()
    a, b = pipepair(Forward(req), Forward(rep))
    req.attach_pipe(a, True)
    rep.attach_pipe(b, False)

    def run() -> None:
        for _ in range(BATCH):
            req.send_msg([b"q"])
            rep.recv()
            rep.send_msg([b"r"])
            req.recv()

    return timed(run, lambda: None)


CASES: list[tuple[str, Callable[[], float]]] = [
    ("lb.send 1 pipe", lambda: bench_lb(1)),
    ("lb.send 4 pipes", lambda: bench_lb(4)),
    ("fq.recv 1 pipe", lambda: bench_fq(1)),
    ("fq.recv 4 pipes", lambda: bench_fq(4)),
    ("dist.send_to_all 1 pipe", lambda: bench_dist(1)),
    ("dist.send_to_all 10 pipes", lambda: bench_dist(10)),
    ("trie.check b'' sub", lambda: bench_trie([b""], b"topic.1 payload")),
    ("trie.check 1 sub hit", lambda: bench_trie([b"topic"], b"topic.1 payload")),
    ("trie.check 1 sub miss", lambda: bench_trie([b"other"], b"topic.1 payload")),
    (
        "trie.check 100 subs same len",
        lambda: bench_trie([b"topic.%02d" % i for i in range(100)], b"topic.42 payload"),
    ),
    ("mtrie.match b'' sub", lambda: bench_mtrie([b""], b"topic.1 payload")),
    ("mtrie.match 1 sub hit", lambda: bench_mtrie([b"topic"], b"topic.1 payload")),
    (
        "mtrie.match 100 subs, 3 lengths",
        lambda: bench_mtrie([b"t.%d" % i for i in range(100)], b"t.42 payload"),
    ),
    ("PUSH send 1 frame", lambda: bench_send(Push(), 1, [b"x"], whole=False)),
    ("PUSH send_msg 1 frame", lambda: bench_send(Push(), 1, [b"x"], whole=True)),
    ("PUSH send 3 frames", lambda: bench_send(Push(), 1, [b"a", b"b", b"c"], whole=False)),
    ("PULL recv", lambda: bench_recv(Pull(), 1, [b"x"])),
    ("DEALER send_msg", lambda: bench_send(Dealer(), 2, [b"x"], whole=True)),
    ("DEALER recv", lambda: bench_recv(Dealer(), 2, [b"x"])),
    ("ROUTER send_msg", lambda: bench_send(Router(), 1, [b"peer1", b"x"], whole=True)),
    ("ROUTER send 2 frames", lambda: bench_send(Router(), 1, [b"peer1", b"x"], whole=False)),
    ("ROUTER recv", lambda: bench_recv(Router(), 1, [b"x"])),
    ("PUB send 1 sub", lambda: bench_pub(1, b"topic")),
    ("PUB send 10 subs", lambda: bench_pub(10, b"topic")),
    ("SUB recv (matching)", lambda: bench_sub(b"topic")),
    ("REQ+REP cycle (4 calls)", bench_reqrep),
]


def main(argv: list[str] | None = None) -> None:
    global REPEATS
    if "--quick" in (sys.argv[1:] if argv is None else argv):
        REPEATS = 2
    width = max(len(name) for name, _ in CASES)
    print(f"{'case':<{width}}  ns/msg")
    for name, case in CASES:
        print(f"{name:<{width}}  {case():7.0f}")


if __name__ == "__main__":
    main()
