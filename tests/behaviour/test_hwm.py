"""High-water marks, modelled on libzmq's tests/test_hwm.cpp,
test_sockopt_hwm.cpp and test_hwm_pubsub.cpp.

Over inproc the two sockets share one pipe whose limit is the sum of the
sender's SNDHWM and the receiver's RCVHWM (0 on either side: unlimited).
Over tcp/ipc each side has its own queue, and kernel buffers add some slack,
so only bounds are asserted there."""

from __future__ import annotations

import time

import pytest

import purezmq as zmq

from .conftest import bind_any, drain, inproc_name, sync_subscriptions, wait_for_peers, wait_until

MAX_SENDS = 10_000


def send_until_blocked(sock, limit=MAX_SENDS, payload=b""):
    n = 0
    while n < limit:
        try:
            sock.send(payload or b"%d" % n, zmq.NOBLOCK)
        except zmq.Again:
            break
        n += 1
    return n


def test_hwm_defaults(make):
    """test_hwm test_defaults: 1000 (SNDHWM) + 1000 (RCVHWM) over inproc."""
    pull = make(zmq.PULL)
    pull.bind("inproc://hwm-defaults")
    push = make(zmq.PUSH)
    push.connect("inproc://hwm-defaults")
    assert push.sndhwm == 1000
    assert pull.rcvhwm == 1000
    sent = send_until_blocked(push)
    assert sent == 2000
    assert len(drain(pull)) == sent


@pytest.mark.parametrize("order", ["bind_first", "connect_first"])
@pytest.mark.parametrize(
    ("sndhwm", "rcvhwm", "expected"),
    [(0, 0, MAX_SENDS), (1, 0, MAX_SENDS), (0, 1, MAX_SENDS), (1, 1, 2), (3, 5, 8)],
    ids=["infinite_both", "infinite_receive", "infinite_send", "finite_both", "sum"],
)
def test_hwm_inproc(make, order, sndhwm, rcvhwm, expected):
    """test_hwm count_msg: how many messages queue before the sender blocks."""
    ep = inproc_name()
    pull = make(zmq.PULL, rcvhwm=rcvhwm)
    push = make(zmq.PUSH, sndhwm=sndhwm)
    if order == "bind_first":
        pull.bind(ep)
        push.connect(ep)
    else:
        push.connect(ep)
        pull.bind(ep)
    sent = send_until_blocked(push)
    assert sent == expected
    got = drain(pull)
    assert len(got) == sent
    assert got[:3] == [[b"0"], [b"1"], [b"2"]][: min(3, sent)]
    # Now it is possible to send one more.
    push.send(b"one more")
    assert pull.recv() == b"one more"


def test_hwm_infinite_recv_connect_and_close_first(make):
    """Sent before the bind, with SNDHWM 1: one message is queued, and it is
    delivered even though the sender closed before the receiver bound."""
    ep = inproc_name()
    push = make(zmq.PUSH, sndhwm=1)
    push.linger = -1
    push.connect(ep)
    assert send_until_blocked(push) == 1
    push.close()
    pull = make(zmq.PULL, rcvhwm=0)
    pull.bind(ep)
    assert pull.recv() == b"0"
    assert pull.poll(0) == 0


def test_sockopt_hwm_change_before_connected(make):
    push = make(zmq.PUSH, sndhwm=2)
    pull = make(zmq.PULL, rcvhwm=2)
    ep = inproc_name()
    pull.connect(ep)
    push.bind(ep)
    assert push.sndhwm == 2
    assert send_until_blocked(push) == 4


def test_sockopt_hwm_change_after_connected(make):
    """A new SNDHWM applies to pipes that already exist."""
    push = make(zmq.PUSH, sndhwm=1)
    pull = make(zmq.PULL, rcvhwm=1)
    ep = inproc_name()
    pull.connect(ep)
    push.bind(ep)
    push.sndhwm = 5
    assert push.sndhwm == 5
    assert send_until_blocked(push) == 6


@pytest.mark.parametrize(
    ("sender_type", "receiver_type"),
    [
        (zmq.PUSH, zmq.PULL),
        (zmq.DEALER, zmq.DEALER),
        (zmq.PAIR, zmq.PAIR),
        (zmq.DEALER, zmq.ROUTER),
    ],
    ids=["push", "dealer", "pair", "dealer-router"],
)
def test_blocking_patterns_at_hwm_inproc(make, sender_type, receiver_type):
    """PUSH, DEALER and PAIR block at the HWM: EAGAIN with NOBLOCK, a timeout
    with SNDTIMEO, and nothing is lost."""
    ep = inproc_name()
    receiver = make(receiver_type, rcvhwm=2)
    receiver.bind(ep)
    sender = make(sender_type, sndhwm=3, sndtimeo=100)
    sender.connect(ep)
    assert send_until_blocked(sender) == 5
    assert sender.poll(0, zmq.POLLOUT) == 0
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        sender.send(b"blocked")
    assert time.monotonic() - t0 >= 0.09
    got = [m[-1] for m in drain(receiver)]
    assert got == [b"0", b"1", b"2", b"3", b"4"]
    assert sender.poll(1000, zmq.POLLOUT) == zmq.POLLOUT


@pytest.mark.parametrize("pub_type", [zmq.PUB, zmq.XPUB], ids=["pub", "xpub"])
def test_pub_drops_at_hwm_inproc(make, pub_type):
    """PUB/XPUB never block: messages beyond SNDHWM + RCVHWM are dropped (the newest)."""
    ep = inproc_name()
    pub = make(pub_type, sndhwm=10)
    pub.bind(ep)
    sub = make(zmq.SUB, rcvhwm=10)
    sub.connect(ep)
    sub.subscribe(b"")
    if pub_type == zmq.XPUB:
        assert pub.recv() == b"\x01"
    else:
        sync_subscriptions(pub, sub)
    for i in range(100):
        pub.send(b"%d" % i, zmq.NOBLOCK)
    assert pub.poll(0, zmq.POLLOUT) == zmq.POLLOUT
    got = drain(sub)
    if pub_type == zmq.XPUB:
        assert got == [[b"%d" % i] for i in range(20)]
    else:
        # The sync probes took their slots too (libzmq frees a slot lazily).
        assert 15 <= len(got) <= 20
        assert got == [[b"%d" % i] for i in range(len(got))]

    # Once drained, the subscriber gets new messages again.
    def fresh_arrives():
        pub.send(b"fresh")
        return sub.poll(20) and sub.recv() == b"fresh"

    wait_until(fresh_arrives)


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_hwm_tcp_push_blocks_bounded(make, endpoint_for, transport):
    """Over tcp/ipc a PUSH whose PULL does not read blocks after a bounded number
    of messages (both HWMs plus what the kernel buffers), and loses none.
    (Exact inproc counts: test_hwm_inproc.)"""
    hwm = 10
    size = 64 * 1024
    pull = make(zmq.PULL, rcvhwm=hwm)
    ep = bind_any(pull, endpoint_for(transport))
    push = make(zmq.PUSH, sndhwm=hwm)
    wait_for_peers(pull, lambda: push.connect(ep), 1, transport)
    payload = b"x" * size
    sent = 0
    deadline = time.monotonic() + 10
    # The I/O threads keep moving data for a while: send until blocked for 200 ms.
    while time.monotonic() < deadline:
        if push.poll(200, zmq.POLLOUT) == 0:
            break
        sent += send_until_blocked(push, payload=payload)
    assert sent >= hwm
    # 2 x HWM plus kernel socket buffers (a few MB at most on loopback).
    assert sent <= 2 * hwm + (16 * 1024 * 1024) // size
    for _ in range(sent):
        assert pull.recv() == payload
    assert push.poll(1000, zmq.POLLOUT) == zmq.POLLOUT
    push.send(b"after", zmq.NOBLOCK)
    assert pull.recv() == b"after"


def test_pub_slow_subscriber_stays_bounded(make, endpoint_for, transport):
    """A PUB whose subscriber stops reading drops messages instead of queueing
    them without bound: the subscriber later gets a bounded, in-order prefix."""
    hwm = 20
    size = 16 * 1024
    pub = make(zmq.PUB, sndhwm=hwm)
    ep = bind_any(pub, endpoint_for(transport))
    sub = make(zmq.SUB, rcvhwm=hwm)
    sub.connect(ep)
    sub.subscribe(b"")
    sync_subscriptions(pub, sub)

    total = 3000
    body = b"x" * size
    t0 = time.monotonic()
    for i in range(total):
        pub.send_multipart([b"%06d" % i, body], zmq.NOBLOCK)  # never blocks
    assert time.monotonic() - t0 < 30

    got = []
    while sub.poll(500):
        seq, data = sub.recv_multipart()
        assert data == body
        got.append(int(seq))
    assert got, "the subscriber got nothing at all"
    assert got == sorted(got)
    assert len(got) < total
    # Bounded by both HWMs plus what the kernel buffers (a few MB on loopback).
    bound = 2 * hwm + (16 * 1024 * 1024) // size
    assert len(got) <= bound

    # The publisher recovers once the subscriber reads again.
    def fresh_arrives():
        pub.send_multipart([b"fresh", b""])
        return sub.poll(20) and sub.recv_multipart()[0] == b"fresh"

    wait_until(fresh_arrives)
