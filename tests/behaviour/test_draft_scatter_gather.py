"""SCATTER/GATHER (RFC 49; libzmq tests/test_scatter_gather.cpp) over tcp,
ipc and inproc."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import bind_any, wait_for_peers


def test_scatter_round_robin_gather_fair(make, endpoint_for, transport):
    scatter = make(zmq.SCATTER)
    ep = bind_any(scatter, endpoint_for(transport))
    gathers = [make(zmq.GATHER) for _ in range(2)]
    for g in gathers:
        wait_for_peers(scatter, lambda g=g: g.connect(ep), 1, transport)
    for i in range(4):
        scatter.send(b"%d" % i)
    assert sorted([gathers[0].recv(), gathers[0].recv()]) in ([b"0", b"2"], [b"1", b"3"])
    assert gathers[1].poll(1000)
    assert len({gathers[1].recv(), gathers[1].recv()}) == 2


def test_gather_from_many(make, endpoint_for, transport):
    gather = make(zmq.GATHER)
    ep = bind_any(gather, endpoint_for(transport))
    scatters = [make(zmq.SCATTER) for _ in range(3)]
    for i, s in enumerate(scatters):
        s.connect(ep)
        s.send(b"from %d" % i)
    assert sorted(gather.recv() for _ in scatters) == [b"from 0", b"from 1", b"from 2"]


def test_single_part_and_directions(make, endpoint_for, transport):
    scatter = make(zmq.SCATTER)
    ep = bind_any(scatter, endpoint_for(transport))
    gather = make(zmq.GATHER)
    gather.connect(ep)
    with pytest.raises(zmq.ZMQError) as e:
        scatter.send(b"a", zmq.SNDMORE)
    assert e.value.errno == zmq.EINVAL
    with pytest.raises(zmq.ZMQError) as e:
        scatter.recv(zmq.NOBLOCK)
    assert e.value.errno == zmq.ENOTSUP
    with pytest.raises(zmq.ZMQError) as e:
        gather.send(b"x")
    assert e.value.errno == zmq.ENOTSUP
    scatter.send(b"ok")
    assert gather.recv() == b"ok"


def test_scatter_without_peer_blocks(make, endpoint_for, transport):
    scatter = make(zmq.SCATTER, sndtimeo=50)
    bind_any(scatter, endpoint_for(transport))
    with pytest.raises(zmq.Again):
        scatter.send(b"nobody")
