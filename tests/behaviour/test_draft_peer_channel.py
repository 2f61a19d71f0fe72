"""PEER and CHANNEL (RFC 51; libzmq tests/test_peer.cpp, test_channel.cpp)
over tcp, ipc and inproc."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import bind_any


def test_peer_connect_peer_sends_at_once(make, endpoint_for, transport):
    bound = make(zmq.PEER)
    ep = bind_any(bound, endpoint_for(transport))
    peer = make(zmq.PEER)
    rid = peer.connect_peer(ep)
    assert isinstance(rid, int) and rid != 0
    peer.send(b"hello", routing_id=rid)  # queued before the handshake ends
    frame = bound.recv(copy=False)
    assert frame.bytes == b"hello"
    bound.send(b"hi back", routing_id=frame.routing_id)
    reply = peer.recv(copy=False)
    assert reply.bytes == b"hi back"
    assert reply.routing_id == rid


def test_peer_routing_ids_differ_per_connection(make, endpoint_for, transport):
    a, b = make(zmq.PEER), make(zmq.PEER)
    ep_a = bind_any(a, endpoint_for(transport))
    ep_b = bind_any(b, endpoint_for(transport))
    hub = make(zmq.PEER)
    ra, rb = hub.connect_peer(ep_a), hub.connect_peer(ep_b)
    assert ra != rb
    hub.send(b"to a", routing_id=ra)
    hub.send(b"to b", routing_id=rb)
    assert a.recv() == b"to a"
    assert b.recv() == b"to b"


def test_connect_peer_only_on_peer(make, endpoint_for, transport):
    server = make(zmq.SERVER)
    with pytest.raises(zmq.ZMQError) as e:
        server.connect_peer(endpoint_for(transport))
    assert e.value.errno == zmq.ENOTSUP
    peer = make(zmq.PEER, immediate=1)
    with pytest.raises(zmq.ZMQError) as e:
        peer.connect_peer(endpoint_for(transport))
    assert e.value.errno == zmq.EFAULT


def test_channel_both_ways(make, endpoint_for, transport):
    a = make(zmq.CHANNEL)
    ep = bind_any(a, endpoint_for(transport))
    b = make(zmq.CHANNEL)
    b.connect(ep)
    b.send(b"ping")
    assert a.recv() == b"ping"
    a.send(b"pong")
    assert b.recv() == b"pong"
    with pytest.raises(zmq.ZMQError) as e:
        a.send(b"x", zmq.SNDMORE)
    assert e.value.errno == zmq.EINVAL


def test_channel_takes_one_peer(make, endpoint_for, transport):
    a = make(zmq.CHANNEL)
    ep = bind_any(a, endpoint_for(transport))
    first, second = make(zmq.CHANNEL), make(zmq.CHANNEL, sndtimeo=300)
    first.connect(ep)
    first.send(b"from first")
    assert a.recv() == b"from first"
    second.connect(ep)
    a.send(b"only to first")
    assert first.recv() == b"only to first"
    with pytest.raises(zmq.Again):  # refused by `a`: never gets a message through
        second.send(b"x")
        second.send(b"y")
        a.rcvtimeo = 200
        a.recv()


def test_channel_without_peer_is_eagain(make):
    a = make(zmq.CHANNEL)
    with pytest.raises(zmq.Again):
        a.send(b"x", zmq.NOBLOCK)
