"""PUB/SUB and XPUB/XSUB (RFC 29), modelled on libzmq's tests/test_pubsub.cpp,
test_xpub_verbose.cpp, test_xpub_manual.cpp, test_xpub_welcome_msg.cpp,
test_xpub_nodrop.cpp and test_sub_forward.cpp."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import bind_any, drain, sync_subscriptions, wait_until


def _pubsub(make, endpoint_for, transport, pub_type=zmq.PUB, sub_type=zmq.SUB):
    pub = make(pub_type)
    ep = bind_any(pub, endpoint_for(transport))
    sub = make(sub_type)
    sub.connect(ep)
    return pub, sub


def test_pubsub_prefix_filter_multipart(make, endpoint_for, transport):
    pub, sub = _pubsub(make, endpoint_for, transport)
    sub.subscribe(b"A")
    sub.subscribe("Cx")  # str topics are encoded
    sync_subscriptions(pub, sub)

    pub.send_multipart([b"A1", b"x"])
    pub.send_multipart([b"B1", b"A-in-second-frame"])
    pub.send_multipart([b"AB", b"y", b"z"])
    pub.send_multipart([b"C", b"not-a-prefix-match"])
    pub.send_multipart([b"Cxy", b"w"])
    pub.send(b"A")  # exactly the topic
    pub.send(b"end-marker-unsubscribed")
    assert sub.recv_multipart() == [b"A1", b"x"]
    assert sub.recv_multipart() == [b"AB", b"y", b"z"]
    assert sub.recv_multipart() == [b"Cxy", b"w"]
    assert sub.recv_multipart() == [b"A"]
    assert sub.poll(100) == 0


def test_pubsub_empty_subscription_matches_all(make, endpoint_for, transport):
    pub, sub = _pubsub(make, endpoint_for, transport)
    sub.subscribe(b"")
    sync_subscriptions(pub, sub)
    msgs = [[b""], [b"x"], [b"\x00\x01", b"two"], [b"anything"]]
    for m in msgs:
        pub.send_multipart(m)
    assert [sub.recv_multipart() for _ in msgs] == msgs


def test_sub_without_subscription_receives_nothing(make, endpoint_for, transport):
    pub, sub = _pubsub(make, endpoint_for, transport)
    other = make(zmq.SUB)
    other.connect(pub.last_endpoint.decode())
    other.subscribe(b"")
    sync_subscriptions(pub, [other])
    pub.send(b"hello")
    assert other.recv() == b"hello"
    assert sub.poll(100) == 0


def test_pub_fans_out_to_every_subscriber(make, endpoint_for, transport):
    pub = make(zmq.PUB)
    ep = bind_any(pub, endpoint_for(transport))
    subs = [make(zmq.SUB) for _ in range(3)]
    for i, s in enumerate(subs):
        s.connect(ep)
        s.subscribe(b"all")
        s.subscribe(b"only%d" % i)
    sync_subscriptions(pub, subs)
    pub.send(b"all: hello")
    pub.send(b"only1: you")
    for i, s in enumerate(subs):
        assert s.recv() == b"all: hello"
        if i == 1:
            assert s.recv() == b"only1: you"
    for s in subs:
        assert s.poll(50) == 0


def test_sub_subscription_counting(make, endpoint_for, transport):
    """Subscriptions are counted: two subscribes need two unsubscribes."""
    pub, sub = _pubsub(make, endpoint_for, transport)
    sub.subscribe(b"A")
    sub.subscribe(b"A")
    sub.unsubscribe(b"A")
    sync_subscriptions(pub, sub)
    pub.send(b"A1")
    assert sub.recv() == b"A1"

    sub.unsubscribe(b"A")
    sync_subscriptions(pub, sub)
    pub.send(b"A2")
    pub.send(b"\xfe-flush")  # not subscribed either
    sub.subscribe(b"\xfd")
    sync_subscriptions(pub, sub)
    pub.send(b"\xfd-marker")
    assert sub.recv() == b"\xfd-marker"


def test_pub_cannot_recv_sub_cannot_send(make):
    pub = make(zmq.PUB)
    sub = make(zmq.SUB)
    with pytest.raises(zmq.ZMQError) as e:
        pub.recv(zmq.NOBLOCK)
    assert e.value.errno == zmq.ENOTSUP
    with pytest.raises(zmq.ZMQError) as e:
        sub.send(b"x", zmq.NOBLOCK)
    assert e.value.errno == zmq.ENOTSUP


def test_pub_without_subscribers_does_not_block(make, endpoint_for, transport):
    pub = make(zmq.PUB)
    bind_any(pub, endpoint_for(transport))
    for i in range(5000):
        pub.send(b"%d" % i, zmq.NOBLOCK)
    assert pub.poll(0, zmq.POLLOUT) == zmq.POLLOUT


# ------------------------------------------------------------ XPUB
def test_xpub_receives_subscriptions(make, endpoint_for, transport):
    xpub, sub = _pubsub(make, endpoint_for, transport, pub_type=zmq.XPUB)
    sub.subscribe(b"A")
    assert xpub.recv() == b"\x01A"
    sub.subscribe(b"B")
    assert xpub.recv() == b"\x01B"
    xpub.send(b"A-msg")
    xpub.send(b"C-msg")
    xpub.send(b"B-msg")
    assert sub.recv() == b"A-msg"
    assert sub.recv() == b"B-msg"
    sub.unsubscribe(b"A")
    assert xpub.recv() == b"\x00A"
    # A second subscriber to a topic already held is not reported (not verbose).
    sub2 = make(zmq.SUB)
    sub2.connect(xpub.last_endpoint.decode())
    sub2.subscribe(b"B")
    sub2.subscribe(b"Z")
    assert xpub.recv() == b"\x01Z"


def test_xpub_verbose_one_sub(make, endpoint_for, transport):
    """test_xpub_verbose: a duplicate subscription is passed on only with XPUB_VERBOSE."""
    xpub, sub = _pubsub(make, endpoint_for, transport, pub_type=zmq.XPUB)
    sub.subscribe(b"A")
    assert xpub.recv() == b"\x01A"
    sub.subscribe(b"A")
    sub.subscribe(b"B")
    assert xpub.recv() == b"\x01B"  # the duplicate A was not passed on
    xpub.xpub_verbose = 1
    sub.subscribe(b"A")
    assert xpub.recv() == b"\x01A"


def test_xpub_verbose_two_subs(make, endpoint_for, transport):
    xpub = make(zmq.XPUB, xpub_verbose=1)
    ep = bind_any(xpub, endpoint_for(transport))
    s1, s2 = make(zmq.SUB), make(zmq.SUB)
    s1.connect(ep)
    s2.connect(ep)
    s1.subscribe(b"A")
    assert xpub.recv() == b"\x01A"
    s2.subscribe(b"A")
    assert xpub.recv() == b"\x01A"  # verbose: every subscribe
    # Verbose but not verboser: s1's unsubscribe is not passed on while s2 holds A.
    s1.unsubscribe(b"A")
    s2.subscribe(b"B")
    assert xpub.recv() == b"\x01B"


def test_xpub_verboser_two_subs(make, endpoint_for, transport):
    xpub = make(zmq.XPUB, xpub_verboser=1)
    ep = bind_any(xpub, endpoint_for(transport))
    s1, s2 = make(zmq.SUB), make(zmq.SUB)
    s1.connect(ep)
    s2.connect(ep)
    s1.subscribe(b"A")
    assert xpub.recv() == b"\x01A"
    s2.subscribe(b"A")
    assert xpub.recv() == b"\x01A"
    s1.unsubscribe(b"A")
    assert xpub.recv() == b"\x00A"  # verboser: every unsubscribe
    s2.unsubscribe(b"A")
    assert xpub.recv() == b"\x00A"


def test_xpub_unsubscribe_when_subscriber_leaves(make, endpoint_for, transport):
    xpub, sub = _pubsub(make, endpoint_for, transport, pub_type=zmq.XPUB)
    sub.subscribe(b"T")
    assert xpub.recv() == b"\x01T"
    sub.close()
    assert xpub.recv() == b"\x00T"


def test_xpub_manual_basic(make, endpoint_for, transport):
    xpub = make(zmq.XPUB, xpub_manual=1)
    ep = bind_any(xpub, endpoint_for(transport))
    xsub = make(zmq.XSUB)
    xsub.connect(ep)

    xsub.send(b"\x01A")
    assert xpub.recv() == b"\x01A"
    # Subscribe that peer to B instead of A.
    xpub.setsockopt(zmq.SUBSCRIBE, b"B")
    xpub.send(b"A")
    xpub.send(b"B")
    assert xsub.recv() == b"B"
    assert xsub.poll(100) == 0


def test_xpub_manual_unsubscribe(make, endpoint_for, transport):
    xpub = make(zmq.XPUB, xpub_manual=1)
    ep = bind_any(xpub, endpoint_for(transport))
    xsub = make(zmq.XSUB)
    xsub.connect(ep)
    xsub.send(b"\x01A")
    assert xpub.recv() == b"\x01A"
    xpub.setsockopt(zmq.SUBSCRIBE, b"XA")
    xsub.send(b"\x00A")
    assert xpub.recv() == b"\x00A"
    xpub.setsockopt(zmq.UNSUBSCRIBE, b"XA")
    xsub.send(b"\x01B")
    assert xpub.recv() == b"\x01B"
    xpub.setsockopt(zmq.SUBSCRIBE, b"XB")
    xpub.send(b"XA")
    xpub.send(b"XB")
    assert xsub.recv() == b"XB"
    assert xsub.poll(100) == 0


def test_xpub_welcome_msg(make, endpoint_for, transport):
    xpub = make(zmq.XPUB, xpub_welcome_msg=b"W")
    ep = bind_any(xpub, endpoint_for(transport))
    sub = make(zmq.SUB)
    sub.subscribe(b"W")
    sub.connect(ep)
    assert xpub.recv() == b"\x01W"
    assert sub.recv() == b"W"


def test_xpub_nodrop(make):
    """test_xpub_nodrop: with XPUB_NODROP, sending at the HWM is EAGAIN, and
    every message accepted is delivered."""
    hwm = 100
    xpub = make(zmq.XPUB, sndhwm=hwm, xpub_nodrop=1)
    xpub.bind("inproc://xpub-nodrop")
    sub = make(zmq.SUB, rcvhwm=hwm)
    sub.connect("inproc://xpub-nodrop")
    sub.subscribe(b"")
    assert xpub.recv() == b"\x01"

    sent = 0
    while sent < 100 * hwm:
        try:
            xpub.send(b"%d" % sent, zmq.NOBLOCK)
        except zmq.Again:
            break
        sent += 1
    # inproc queues SNDHWM + the peer's RCVHWM.
    assert sent == 2 * hwm
    assert xpub.poll(0, zmq.POLLOUT) == zmq.POLLOUT  # libzmq: XPUB is always writable
    got = drain(sub)
    assert got == [[b"%d" % i] for i in range(sent)]
    # After draining, sends succeed again (a blocking send: libzmq may notice
    # the room only when it processes commands).
    xpub.send(b"again")
    assert sub.recv() == b"again"


def test_xpub_nodrop_blocking_send_times_out(make):
    xpub = make(zmq.XPUB, sndhwm=1, xpub_nodrop=1, sndtimeo=100)
    xpub.bind("inproc://xpub-nodrop-block")
    sub = make(zmq.SUB, rcvhwm=1)
    sub.connect("inproc://xpub-nodrop-block")
    sub.subscribe(b"")
    assert xpub.recv() == b"\x01"
    xpub.send(b"1")
    xpub.send(b"2")
    with pytest.raises(zmq.Again):
        xpub.send(b"3")
    assert drain(sub) == [[b"1"], [b"2"]]


# ------------------------------------------------------------ XSUB
def test_xsub_sends_subscriptions_upstream(make, endpoint_for, transport):
    pub = make(zmq.XPUB)
    ep = bind_any(pub, endpoint_for(transport))
    xsub = make(zmq.XSUB)
    xsub.connect(ep)
    xsub.send(b"\x01news")
    assert pub.recv() == b"\x01news"
    pub.send_multipart([b"news", b"body"])
    pub.send(b"sports")
    assert xsub.recv_multipart() == [b"news", b"body"]
    xsub.send(b"\x00news")
    assert pub.recv() == b"\x00news"
    # Other messages from an XSUB reach the XPUB application as they are.
    xsub.send(b"hello upstream")
    assert pub.recv() == b"hello upstream"


def test_xsub_subscription_reaches_plain_pub(make, endpoint_for, transport):
    pub = make(zmq.PUB)
    ep = bind_any(pub, endpoint_for(transport))
    xsub = make(zmq.XSUB)
    xsub.connect(ep)
    xsub.send(b"\x01T")

    # Wait until the subscription is applied at the PUB.
    def arrived():
        pub.send(b"T-probe")
        return xsub.poll(20)

    wait_until(arrived)
    pub.send(b"U-other")
    pub.send(b"T-last")
    msgs = [m for m in drain(xsub, 200) if m != [b"T-probe"]]
    assert msgs == [[b"T-last"]]
