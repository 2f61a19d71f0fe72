"""CONFLATE keeps only the newest message, modelled on libzmq's tests/test_conflate.cpp."""

from __future__ import annotations

import struct

import purezmq as zmq

from .conftest import bind_any, wait_until

MESSAGES = 20


def test_conflate_inproc(make):
    """Over inproc the connecting socket's CONFLATE decides (as in libzmq)."""
    s_out = make(zmq.PUSH)
    s_out.bind("inproc://conflate")
    s_in = make(zmq.PULL, conflate=1)
    s_in.connect("inproc://conflate")
    for j in range(MESSAGES):
        s_out.send(struct.pack("=i", j))
    assert struct.unpack("=i", s_in.recv())[0] == MESSAGES - 1
    assert s_in.poll(0) == 0


def test_conflate(make, endpoint_for, transport):
    """test_conflate: the receiver ends with the last message and never sees an
    older one after a newer one."""
    s_in = make(zmq.PULL, conflate=1)
    assert s_in.conflate == 1
    ep = bind_any(s_in, endpoint_for(transport))
    s_out = make(zmq.PUSH)
    s_out.connect(ep)
    for j in range(MESSAGES):
        s_out.send(struct.pack("=i", j))
    seen = []
    while not seen or seen[-1] != MESSAGES - 1:
        seen.append(struct.unpack("=i", s_in.recv())[0])
    assert seen == sorted(set(seen))
    assert s_in.poll(100) == 0


def test_conflate_sub_keeps_newest(make, endpoint_for, transport):
    """The usual use: a SUB that only wants the latest value."""
    pub = make(zmq.PUB)
    ep = bind_any(pub, endpoint_for(transport))
    sub = make(zmq.SUB, conflate=1)
    sub.connect(ep)
    sub.subscribe(b"")  # one subscription: libzmq conflates subscriptions too

    def arrived():
        pub.send(b"probe")
        return sub.poll(10)

    wait_until(arrived)
    for j in range(100):
        pub.send(b"value-%03d" % j)
    seen = []
    while not seen or seen[-1] != b"value-099":
        m = sub.recv()
        if m != b"probe":
            seen.append(m)
    assert seen == sorted(set(seen))
    assert sub.poll(100) == 0
