"""Hypothesis properties of the strategies: lb fairness and conservation,
fq multipart atomicity and fairness (the trie oracles are in test_trie.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Pipe

from .helpers import Recorder, strategy_pipe


def has_room(p: Pipe) -> bool:
    return not p.out_hwm or p.outbound_size < p.out_hwm


class LbOwner(Recorder):
    def __init__(self, lb: LoadBalancer) -> None:
        super().__init__()
        self.lb = lb

    def write_activated(self, pipe: Pipe) -> None:
        self.lb.activated(pipe)


_lb_op = st.one_of(
    st.tuples(st.just("send"), st.integers(1, 3)),
    st.tuples(st.just("drain"), st.integers(0, 4), st.integers(1, 3)),
)


@settings(max_examples=300)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5), st.lists(_lb_op, max_size=80))
def test_lb_round_robin_is_fair_and_conserves_messages(
    hwms: list[int], ops: list[tuple[int | str, ...]]
) -> None:
    lb = LoadBalancer()
    owner = LbOwner(lb)
    mine, peers = [], []
    for hwm in hwms:
        a, b, _ = strategy_pipe(owner, sndhwm=hwm)
        lb.attach(a)
        mine.append(a)
        peers.append(b)
    received: list[list[list[bytes]]] = [[] for _ in hwms]
    expected: list[list[list[bytes]]] = [[] for _ in hwms]
    deliveries: list[tuple[int, frozenset[int]]] = []  # (pipe index, eligible set)
    for n, op in enumerate(ops):
        if op[0] == "send":
            eligible = frozenset(i for i, p in enumerate(mine) if p in lb._active and has_room(p))
            frames = [b"%d.%d" % (n, k) for k in range(int(op[1]))]
            ok = True
            for k, frame in enumerate(frames):
                ok = lb.send(frame, k < len(frames) - 1)
                if not ok:
                    assert k == 0
                    break
            # EAGAIN exactly when no active pipe had room.
            assert ok == bool(eligible)
            if ok:
                target = mine.index(lb.last_pipe)  # type: ignore[arg-type]
                assert target in eligible
                expected[target].append(frames)
                deliveries.append((target, eligible))
        else:
            i = int(op[1]) % len(peers)
            for _ in range(int(op[2])):
                msg = peers[i].read()
                if msg is not None:
                    received[i].append(msg)
    for i, p in enumerate(peers):
        while (msg := p.read()) is not None:
            received[i].append(msg)
    # Conservation: every accepted message arrived whole, once, in order.
    assert received == expected
    # Fairness: between two messages to P, every pipe eligible throughout got one.
    last_seen: dict[int, int] = {}
    for s, (target, _) in enumerate(deliveries):
        if target in last_seen:
            start = last_seen[target]
            window = deliveries[start : s + 1]
            always = frozenset.intersection(*(e for _, e in window)) - {target}
            served = {t for t, _ in deliveries[start + 1 : s]}
            assert always <= served, (target, always, served)
        last_seen[target] = s


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 3)), max_size=40))
def test_lb_pipe_dying_mid_message_never_leaks_a_partial_message(
    plan: list[tuple[int, int]],
) -> None:
    """Terminate the pipe taking a message after some of its frames: nothing of
    that message arrives anywhere, everything else arrives whole."""
    lb = LoadBalancer()
    mine, peers = [], []
    for _ in range(3):
        a, b, _ = strategy_pipe(Recorder())
        lb.attach(a)
        mine.append(a)
        peers.append(b)
    delivered: list[list[bytes]] = []
    for n, (kill_after, nframes) in enumerate(plan):
        frames = [b"%d.%d" % (n, k) for k in range(nframes + 1)]
        if not lb.send(frames[0], True):
            break
        target = lb.last_pipe
        assert target is not None
        killed = kill_after < nframes
        for k, frame in enumerate(frames[1:], start=1):
            if k - 1 == kill_after:
                lb.terminated(target)
            assert lb.send(frame, k < len(frames) - 1)
        if not killed:
            delivered.append(frames)
    got = [m for p in peers for m in iter(p.read, None)]
    assert sorted(got) == sorted(delivered)


class FqOwner(Recorder):
    def __init__(self, fq: FairQueue) -> None:
        super().__init__()
        self.fq = fq

    def read_activated(self, pipe: Pipe) -> None:
        self.fq.activated(pipe)


_fq_op = st.one_of(
    st.tuples(st.just("write"), st.integers(0, 3), st.integers(1, 4)),
    st.tuples(st.just("recv"), st.integers(1, 3)),
    st.tuples(st.just("poll"), st.just(0)),
)


@settings(max_examples=300)
@given(st.integers(1, 4), st.lists(_fq_op, max_size=80))
def test_fq_delivers_whole_messages_fairly(npipes: int, ops: list[tuple[int | str, ...]]) -> None:
    fq = FairQueue()
    owner = FqOwner(fq)
    mine, peers = [], []
    for _ in range(npipes):
        a, b, _ = strategy_pipe(owner)
        fq.attach(a)
        mine.append(a)
        peers.append(b)
    sent: list[list[list[bytes]]] = [[] for _ in range(npipes)]
    got: list[list[list[bytes]]] = [[] for _ in range(npipes)]
    order: list[tuple[int, frozenset[int]]] = []  # (source, pipes non-empty before)
    for n, op in enumerate(ops):
        if op[0] == "write":
            i = int(op[1]) % npipes
            msg = [b"%d.%d.%d" % (i, n, k) for k in range(int(op[2]))]
            assert peers[i].write(msg)
            sent[i].append(msg)
        elif op[0] == "poll":
            assert fq.has_in() == any(p.inbound_size for p in mine)
        else:
            for _ in range(int(op[1])):
                waiting = frozenset(i for i, p in enumerate(mine) if p.inbound_size)
                msg = fq.recv()
                assert (msg is None) == (not waiting)
                if msg is None:
                    break
                src = mine.index(fq.last_pipe)  # type: ignore[arg-type]
                got[src].append(msg)
                order.append((src, waiting))
    # Atomicity and per-pipe order: each pipe's messages came out whole, in order.
    for i in range(npipes):
        assert got[i] == sent[i][: len(got[i])]
    # Fairness: between two messages from P, every pipe non-empty throughout gave one.
    last: dict[int, int] = {}
    for s, (src, _) in enumerate(order):
        if src in last:
            window = order[last[src] : s + 1]
            always = frozenset.intersection(*(w for _, w in window)) - {src}
            served = {t for t, _ in order[last[src] + 1 : s]}
            assert always <= served
        last[src] = s
