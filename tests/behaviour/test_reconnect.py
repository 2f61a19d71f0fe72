"""Reconnection, modelled on libzmq's tests/test_reconnect_ivl.cpp,
test_reconnect_options.cpp and test_bind_after_connect_tcp.cpp."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import Events, rebind, wait_until

NETWORK = pytest.mark.parametrize("transport", ["tcp", "ipc"])


def _send_until_received(sender, receiver, payload=b"probe"):
    """Send `payload` until `receiver` gets one; drain the extra copies."""

    def arrived():
        sender.send(payload, zmq.NOBLOCK)
        return receiver.poll(20)

    wait_until(arrived, timeout=10)
    sender.send(b"end-of-probes")
    while (m := receiver.recv()) != b"end-of-probes":
        assert m == payload


@NETWORK
def test_reconnect_after_peer_rebinds(make, late_endpoint):
    """test_reconnect_ivl test_reconnect_ivl_against_pair_socket: the peer goes
    away and comes back on the same endpoint; the connecting socket reconnects."""
    ep = late_endpoint
    pull = make(zmq.PULL)
    pull.bind(ep)
    push = make(zmq.PUSH, reconnect_ivl=50)
    push.connect(ep)
    push.send(b"before")
    assert pull.recv() == b"before"

    pull.close()
    pull2 = make(zmq.PULL)
    rebind(pull2, ep)
    _send_until_received(push, pull2)
    for i in range(10):
        push.send(b"%d" % i)
    assert [pull2.recv() for _ in range(10)] == [b"%d" % i for i in range(10)]


@NETWORK
def test_reconnect_pair(make, late_endpoint):
    """test_reconnect_ivl: PAIR sockets, both directions flow after the reconnect."""
    ep = late_endpoint
    server = make(zmq.PAIR)
    server.bind(ep)
    client = make(zmq.PAIR, reconnect_ivl=50)
    client.connect(ep)
    client.send(b"hello")
    assert server.recv() == b"hello"
    server.close()

    server2 = make(zmq.PAIR)
    rebind(server2, ep)
    _send_until_received(client, server2)
    server2.send(b"back")
    assert client.recv() == b"back"


@NETWORK
def test_sub_resubscribes_after_reconnect(make, late_endpoint):
    """A SUB sends its subscriptions again to the new publisher."""
    ep = late_endpoint
    pub = make(zmq.PUB)
    pub.bind(ep)
    sub = make(zmq.SUB, reconnect_ivl=50)
    sub.connect(ep)
    sub.subscribe(b"T")

    def arrived(p, probe):
        p.send(probe)
        got = []
        while sub.poll(20):
            got.append(sub.recv())
        return probe in got

    wait_until(lambda: arrived(pub, b"T-probe-1"))
    pub.close()
    pub2 = make(zmq.PUB)
    rebind(pub2, ep)
    wait_until(lambda: arrived(pub2, b"T-probe-2"), timeout=10)
    pub2.send(b"U-not-subscribed")
    pub2.send(b"T-last")
    got = []
    while (m := sub.recv()) != b"T-last":
        got.append(m)
    assert set(got) <= {b"T-probe-2"}


@NETWORK
def test_messages_queued_while_disconnected_are_delivered(make, late_endpoint):
    """IMMEDIATE=0 (default): a connecting socket keeps its pipe while the peer is
    away; what it sends meanwhile is delivered after the reconnect."""
    ep = late_endpoint
    pull = make(zmq.PULL)
    pull.bind(ep)
    push = make(zmq.PUSH, reconnect_ivl=50)
    ev = Events(push, zmq.EVENT_DISCONNECTED)
    push.connect(ep)
    push.send(b"first")
    assert pull.recv() == b"first"
    pull.close()
    ev.wait_for(zmq.EVENT_DISCONNECTED)
    # The peer is gone; these queue at the PUSH.
    for i in range(5):
        push.send(b"queued-%d" % i, zmq.NOBLOCK)
    pull2 = make(zmq.PULL)
    rebind(pull2, ep)
    assert [pull2.recv() for _ in range(5)] == [b"queued-%d" % i for i in range(5)]


@NETWORK
@pytest.mark.parametrize(("ivl", "ivl_max"), [(50, 200), (50, 0)], ids=["backoff", "constant"])
def test_reconnect_ivl_backoff(make, late_endpoint, ivl, ivl_max):
    """EVENT_CONNECT_RETRIED carries the next interval (ms): RECONNECT_IVL doubling
    up to RECONNECT_IVL_MAX (libzmq adds a random jitter below RECONNECT_IVL)."""
    sock = make(zmq.DEALER, reconnect_ivl=ivl, reconnect_ivl_max=ivl_max)
    assert sock.reconnect_ivl == ivl
    assert sock.reconnect_ivl_max == ivl_max
    ev = Events(sock, zmq.EVENT_CONNECT_RETRIED)
    sock.connect(late_endpoint)  # nobody listens there
    retries = ev.wait_for(zmq.EVENT_CONNECT_RETRIED, 5)
    values = [v for _, v, _ in retries[:5]]
    assert all(ep == late_endpoint for _, _, ep in retries)
    base = ivl
    for v in values:
        assert base <= v < base + ivl, (
            f"retry interval {v} ms not in [{base}, {base + ivl}): {values}"
        )
        if ivl_max > ivl:
            base = min(base * 2, ivl_max)
    if ivl_max:
        assert values[-1] >= ivl_max > values[0]


@NETWORK
def test_reconnect_ivl_minus_one_never_reconnects(make, late_endpoint):
    """test_reconnect_options: RECONNECT_IVL -1 disables reconnection."""
    sock = make(zmq.DEALER, reconnect_ivl=-1)
    ev = Events(sock)
    sock.connect(late_endpoint)
    with pytest.raises(zmq.Again):
        _expect_no_retry(ev)


def _expect_no_retry(ev: Events) -> None:
    while True:
        event, _, _ = ev.next(500)
        assert event != zmq.EVENT_CONNECT_RETRIED, f"retried with RECONNECT_IVL -1: {ev.names()}"


def test_connect_before_bind(make, late_endpoint, transport):
    """test_bind_after_connect_tcp (and the inproc/ipc equivalents)."""
    push = make(zmq.PUSH)
    push.connect(late_endpoint)
    push.send(b"sent before bind")
    pull = make(zmq.PULL)
    pull.bind(late_endpoint)
    assert pull.recv() == b"sent before bind"
    push.send(b"after bind")
    assert pull.recv() == b"after bind"


def test_connect_before_bind_reply(make, late_endpoint, transport):
    """REQ connects first, REP binds later: the round trip works."""
    req = make(zmq.REQ)
    req.connect(late_endpoint)
    req.send(b"question")
    rep = make(zmq.REP)
    rep.bind(late_endpoint)
    assert rep.recv() == b"question"
    rep.send(b"answer")
    assert req.recv() == b"answer"
