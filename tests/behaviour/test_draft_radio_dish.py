"""RADIO/DISH (RFC 48; libzmq tests/test_radio_dish.cpp) over tcp, ipc and
inproc: groups, JOIN/LEAVE, single-part messages. The udp transport has its
own module (test_draft_udp.py)."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import bind_any, wait_until


def _joined(radio: zmq.Socket, dish: zmq.Socket, group: str) -> None:
    """Wait until `radio` knows `dish` joined `group`: probe messages until one
    arrives (JOIN travels asynchronously, as SUBSCRIBE does)."""

    def probe() -> bool:
        radio.send(b"probe", group=group)
        try:
            return dish.recv(zmq.NOBLOCK) == b"probe"
        except zmq.Again:
            return False

    wait_until(probe)
    while dish.poll(100):
        dish.recv()


def test_groups_filter(make, endpoint_for, transport):
    radio = make(zmq.RADIO)
    ep = bind_any(radio, endpoint_for(transport))
    dish = make(zmq.DISH)
    dish.join("movies")
    dish.connect(ep)
    _joined(radio, dish, "movies")
    radio.send(b"tv show", group="tv")
    radio.send(b"star wars", group="movies")
    frame = dish.recv(copy=False)
    assert frame.bytes == b"star wars"
    assert frame.group == "movies"
    assert dish.poll(100) == 0


def test_join_after_connect_and_leave(make, endpoint_for, transport):
    dish = make(zmq.DISH)
    ep = bind_any(dish, endpoint_for(transport))
    radio = make(zmq.RADIO)
    radio.connect(ep)
    dish.join(b"a")
    _joined(radio, dish, "a")
    dish.leave("a")
    dish.join("b")
    _joined(radio, dish, "b")
    radio.send(b"to a", group="a")
    radio.send(b"to b", group="b")
    assert dish.recv() == b"to b"
    assert dish.poll(100) == 0


def test_many_dishes(make, endpoint_for, transport):
    radio = make(zmq.RADIO)
    ep = bind_any(radio, endpoint_for(transport))
    dishes = [make(zmq.DISH) for _ in range(3)]
    for i, d in enumerate(dishes):
        d.join("all")
        d.join(f"only{i}")
        d.connect(ep)
        _joined(radio, d, "all")
        _joined(radio, d, f"only{i}")
    for d in dishes:  # probes of "all" reached the dishes that joined earlier
        while d.poll(100):
            d.recv()
    radio.send(b"everyone", group="all")
    radio.send(b"just 1", group="only1")
    for i, d in enumerate(dishes):
        assert d.recv() == b"everyone"
        if i == 1:
            assert d.recv() == b"just 1"
        assert d.poll(50) == 0


def test_join_errors(make):
    dish = make(zmq.DISH)
    dish.join("g")
    with pytest.raises(zmq.ZMQError) as e:
        dish.join("g")  # twice
    assert e.value.errno == zmq.EINVAL
    with pytest.raises(zmq.ZMQError) as e:
        dish.leave("never joined")
    assert e.value.errno == zmq.EINVAL
    with pytest.raises(zmq.ZMQError) as e:
        dish.join("x" * 256)  # ZMQ_GROUP_MAX_LENGTH is 255
    assert e.value.errno == zmq.EINVAL
    dish.join("x" * 255)
    radio = make(zmq.RADIO)
    with pytest.raises(zmq.ZMQError) as e:
        radio.join("g")
    assert e.value.errno == zmq.ENOTSUP


def test_directions_and_single_part(make, endpoint_for, transport):
    radio = make(zmq.RADIO)
    ep = bind_any(radio, endpoint_for(transport))
    dish = make(zmq.DISH)
    dish.connect(ep)
    with pytest.raises(zmq.ZMQError) as e:
        radio.send(b"a", zmq.SNDMORE, group="g")
    assert e.value.errno == zmq.EINVAL
    with pytest.raises(zmq.ZMQError) as e:
        radio.recv(zmq.NOBLOCK)
    assert e.value.errno == zmq.ENOTSUP
    with pytest.raises(zmq.ZMQError) as e:
        dish.send(b"x")
    assert e.value.errno == zmq.ENOTSUP
    with pytest.raises(zmq.ZMQError) as e:
        radio.send(b"x", group="g" * 256)
    assert e.value.errno == zmq.EINVAL


def test_reconnected_dish_joins_again(make, late_endpoint, transport):
    if transport == "inproc":
        pytest.skip("inproc peers do not reconnect")
    dish = make(zmq.DISH)
    dish.join("g")
    dish.connect(late_endpoint)
    radio = make(zmq.RADIO)
    radio.bind(late_endpoint)
    _joined(radio, dish, "g")
    radio.close(0)
    radio = make(zmq.RADIO)
    wait_until(lambda: _try_bind(radio, late_endpoint))
    _joined(radio, dish, "g")  # the new RADIO learnt the group from the reconnection


def _try_bind(sock: zmq.Socket, ep: str) -> bool:
    try:
        sock.bind(ep)
    except zmq.ZMQError:
        return False
    return True


@pytest.mark.parametrize("nodrop", [0, 1])
def test_xpub_nodrop_blocks_instead_of_dropping(make, nodrop):
    """RADIO drops for a DISH at its HWM, like PUB; with XPUB_NODROP it
    refuses the message instead (EAGAIN), as libzmq's radio_t::xsend."""
    radio = make(zmq.RADIO, sndhwm=2, xpub_nodrop=nodrop)
    ep = bind_any(radio, f"inproc://nodrop-{nodrop}")
    dish = make(zmq.DISH, rcvhwm=2)
    dish.join("g")
    dish.connect(ep)
    _joined(radio, dish, "g")
    refused = 0
    for _ in range(50):
        try:
            radio.send(b"x", zmq.NOBLOCK, group="g")
        except zmq.Again:
            refused += 1
    assert (refused > 0) == bool(nodrop)
