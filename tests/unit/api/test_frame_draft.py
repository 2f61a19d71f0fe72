"""pyzmq's draft API on Frame and Socket: routing_id and group, and what
other socket types do with them (ignored, as libzmq does)."""

from __future__ import annotations

import pytest

import purezmq as zmq


def test_frame_routing_id_and_group() -> None:
    f = zmq.Frame(b"x")
    assert f.routing_id is None and f.group is None
    f.routing_id = 7
    f.group = "weather"
    assert (f.routing_id, f.group) == (7, "weather")
    f.group = b"raw"
    assert f.group == "raw"
    f.routing_id = None
    assert f.routing_id is None
    copy = f.fast_copy()
    assert copy.group == "raw"


@pytest.mark.parametrize("bad", [-1, 2**32])
def test_routing_id_is_32_bit(bad: int) -> None:
    with pytest.raises(zmq.ZMQError) as e:
        zmq.Frame(b"x").routing_id = bad
    assert e.value.errno == zmq.EINVAL


def test_group_is_at_most_255_bytes() -> None:
    zmq.Frame(b"x").group = "g" * 255
    with pytest.raises(zmq.ZMQError) as e:
        zmq.Frame(b"x").group = "g" * 256
    assert e.value.errno == zmq.EINVAL


def test_draft_api_on_other_socket_types() -> None:
    with zmq.Context() as ctx:
        push, pull = ctx.socket(zmq.PUSH), ctx.socket(zmq.PULL)
        pull.rcvtimeo = 2000
        push.bind("inproc://frame-draft")
        pull.connect("inproc://frame-draft")
        push.send(b"ignored address", routing_id=5, group="g")  # libzmq ignores both
        frame = pull.recv(copy=False)
        assert frame.bytes == b"ignored address"
        assert frame.routing_id is None and frame.group is None
        with pytest.raises(zmq.ZMQError) as e:
            pull.join("g")
        assert e.value.errno == zmq.ENOTSUP
        with pytest.raises(zmq.ZMQError) as e:
            pull.connect_peer("inproc://frame-draft")
        assert e.value.errno == zmq.ENOTSUP
        assert type(push) is zmq.Socket  # only the draft types pay for a lock
        assert type(ctx.socket(zmq.SERVER)) is not zmq.Socket
        for s in list(ctx._sockets):
            s.close(0)
