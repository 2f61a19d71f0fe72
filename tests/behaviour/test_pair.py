"""PAIR (RFC 31), modelled on libzmq's tests/test_pair_tcp.cpp,
test_pair_ipc.cpp, test_pair_inproc.cpp (the `bounce` helper)."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import bind_any, wait_for_peers

CONTENT = b"12345678ABCDEFGH12345678abcdefgh"


def bounce(server, client):
    """libzmq testutil's bounce: a 4-part message there and back."""
    for sender, receiver in ((client, server), (server, client)):
        sender.send(CONTENT, zmq.SNDMORE)
        sender.send(CONTENT, zmq.SNDMORE)
        sender.send(CONTENT, zmq.SNDMORE)
        sender.send(CONTENT)
        for i in range(4):
            assert receiver.recv() == CONTENT
            assert receiver.rcvmore == (1 if i < 3 else 0)


def test_pair(make, endpoint_for, transport):
    server = make(zmq.PAIR)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.PAIR)
    client.connect(ep)
    bounce(server, client)
    # And the other way round (connecting side sends first was covered).
    server.send(b"ping")
    assert client.recv() == b"ping"


def test_pair_connect_side_binds_later(make, late_endpoint):
    client = make(zmq.PAIR)
    client.connect(late_endpoint)
    client.send(b"early")
    server = make(zmq.PAIR)
    server.bind(late_endpoint)
    assert server.recv() == b"early"
    bounce(server, client)


def test_pair_accepts_one_peer_only(make, endpoint_for, transport):
    """A PAIR talks to one peer: a second one is ignored while the first is there."""
    server = make(zmq.PAIR)
    ep = bind_any(server, endpoint_for(transport))
    first = make(zmq.PAIR)
    wait_for_peers(server, lambda: first.connect(ep), 1, transport)
    first.send(b"from first")
    assert server.recv() == b"from first"

    second = make(zmq.PAIR)
    second.connect(ep)
    try:
        second.send(b"from second", zmq.NOBLOCK)
    except zmq.Again:
        pass  # fine too: its pipe may be refused already
    assert server.poll(300) == 0
    server.send(b"to my peer")
    assert first.recv() == b"to my peer"
    assert second.poll(100) == 0


@pytest.mark.parametrize("transport", ["inproc"])
def test_pair_blocks_without_peer(make, transport):
    s = make(zmq.PAIR, sndtimeo=0)
    s.bind("inproc://pair-alone")
    with pytest.raises(zmq.Again):
        s.send(b"nobody")
