"""pyzmq's API shape over purezmq's sockets: options as attributes, the
send_*/recv_* helpers, Frames and their properties, recv_into, RCVMORE,
zero-copy sends with MessageTracker, and the errors pyzmq raises."""

from __future__ import annotations

import errno
import pickle

import pytest

import purezmq as zmq

from .conftest import bind_any, inproc_name


@pytest.fixture
def pair(make):
    """Two connected PAIR sockets over inproc."""
    ep = inproc_name()
    a, b = make(zmq.PAIR), make(zmq.PAIR)
    a.bind(ep)
    b.connect(ep)
    return a, b


# ------------------------------------------------------------ options
def test_options_as_attributes(ctx):
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    assert s.linger == 0
    assert s.getsockopt(zmq.LINGER) == 0
    s.sndhwm = 123
    assert s.sndhwm == 123
    assert s.get(zmq.SNDHWM) == 123
    s.rcvtimeo = 250
    assert s.getsockopt(zmq.RCVTIMEO) == 250
    s.routing_id = b"me"
    assert s.routing_id == b"me"
    s.hwm = 7  # pyzmq: sets both
    assert (s.sndhwm, s.rcvhwm, s.hwm) == (7, 7, 7)
    with pytest.raises(AttributeError):
        s.no_such_option = 1
    with pytest.raises(AttributeError):
        _ = s.no_such_option
    s.close()


def test_option_defaults(make):
    s = make(zmq.DEALER)
    fresh = s.context.socket(zmq.DEALER)
    try:
        assert fresh.linger == -1
        assert fresh.sndhwm == 1000
        assert fresh.rcvhwm == 1000
        assert fresh.rcvtimeo == -1
        assert fresh.sndtimeo == -1
        assert fresh.reconnect_ivl == 100
        assert fresh.reconnect_ivl_max == 0
        assert fresh.immediate == 0
        assert fresh.ipv6 == 0
        assert fresh.routing_id == b""
        assert fresh.getsockopt(zmq.TYPE) == zmq.DEALER
        assert fresh.type == zmq.DEALER
        assert fresh.rcvmore == 0
    finally:
        fresh.close(linger=0)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        (zmq.LINGER, 1234),
        (zmq.SNDHWM, 5),
        (zmq.RCVHWM, 0),
        (zmq.RCVTIMEO, 10),
        (zmq.SNDTIMEO, 20),
        (zmq.RECONNECT_IVL, 250),
        (zmq.RECONNECT_IVL_MAX, 5000),
        (zmq.BACKLOG, 50),
        (zmq.MAXMSGSIZE, 1 << 20),
        (zmq.IMMEDIATE, 1),
        (zmq.IPV6, 1),
        (zmq.SNDBUF, 65536),
        (zmq.RCVBUF, 65536),
        (zmq.TCP_KEEPALIVE, 1),
        (zmq.HEARTBEAT_IVL, 1000),
        (zmq.HEARTBEAT_TIMEOUT, 3000),
        (zmq.HANDSHAKE_IVL, 2000),
        (zmq.ROUTING_ID, b"\x00binary\xff"),
    ],
)
def test_setsockopt_getsockopt_round_trip(make, option, value):
    s = make(zmq.DEALER)
    s.setsockopt(option, value)
    assert s.getsockopt(option) == value
    s.set(option, value)
    assert s.get(option) == value


def test_string_options(make):
    s = make(zmq.DEALER)
    s.setsockopt_string(zmq.ROUTING_ID, "héllo")
    assert s.getsockopt(zmq.ROUTING_ID) == "héllo".encode()
    assert s.getsockopt_string(zmq.ROUTING_ID) == "héllo"
    s.set_string(zmq.ROUTING_ID, "abc")
    assert s.get_string(zmq.ROUTING_ID) == "abc"
    with pytest.raises(TypeError):
        s.getsockopt_string(zmq.LINGER)


def test_unknown_option_einval(make):
    s = make(zmq.DEALER)
    with pytest.raises(zmq.ZMQError) as e:
        s.setsockopt(9999, 1)
    assert e.value.errno == zmq.EINVAL
    with pytest.raises(zmq.ZMQError) as e:
        s.getsockopt(9999)
    assert e.value.errno == zmq.EINVAL
    # A socket option of another socket type.
    with pytest.raises(zmq.ZMQError) as e:
        s.setsockopt(zmq.SUBSCRIBE, b"x")
    assert e.value.errno == zmq.EINVAL


@pytest.mark.parametrize(
    ("option", "value"),
    [(zmq.LINGER, "abc"), (zmq.LINGER, 1.5), (zmq.ROUTING_ID, 5), (zmq.ROUTING_ID, "abc")],
)
def test_bad_option_type_typeerror(make, option, value):
    s = make(zmq.DEALER)
    with pytest.raises(TypeError):
        s.setsockopt(option, value)


@pytest.mark.parametrize(("option", "value"), [(zmq.LINGER, -5), (zmq.SNDHWM, -1)])
def test_out_of_range_option_einval(make, option, value):
    s = make(zmq.DEALER)
    with pytest.raises(zmq.ZMQError) as e:
        s.setsockopt(option, value)
    assert e.value.errno == zmq.EINVAL


def test_invalid_socket_type_einval(ctx):
    with pytest.raises(zmq.ZMQError) as e:
        ctx.socket(9999)
    assert e.value.errno == zmq.EINVAL


def test_context_default_socket_options(ctx):
    """ctx.linger = 0 (and ctx.setsockopt) apply to sockets created afterwards."""
    before = ctx.socket(zmq.PUSH)
    ctx.linger = 0
    ctx.sndhwm = 5
    assert ctx.linger == 0
    after = ctx.socket(zmq.PUSH)
    assert after.linger == 0
    assert after.sndhwm == 5
    assert before.linger == -1
    del ctx.sndhwm
    assert ctx.socket(zmq.PUSH).sndhwm == 1000
    for s in (before, after):
        s.close(linger=0)


def test_context_setsockopt_is_default_socket_option(ctx):
    """pyzmq: Context.setsockopt/getsockopt set default options for new sockets."""
    ctx.setsockopt(zmq.LINGER, 0)
    assert ctx.getsockopt(zmq.LINGER) == 0
    s = ctx.socket(zmq.PUSH)
    assert s.linger == 0
    s.close()


def test_context_options(ctx):
    assert ctx.get(zmq.IO_THREADS) == 1
    ctx.set(zmq.MAX_SOCKETS, 100)
    assert ctx.get(zmq.MAX_SOCKETS) == 100
    ctx.max_sockets = 200
    assert ctx.max_sockets == 200


# ------------------------------------------------------------ send/recv helpers
def test_send_recv_string(pair):
    a, b = pair
    a.send_string("héllo wörld")
    assert b.recv_string() == "héllo wörld"
    a.send_string("latin", encoding="latin-1")
    assert b.recv() == "latin".encode("latin-1")
    a.send_string("ü", encoding="utf-16")
    assert b.recv_string(encoding="utf-16") == "ü"
    with pytest.raises(TypeError):
        a.send_string(b"bytes")


def test_send_recv_json(pair):
    a, b = pair
    obj = {"a": [1, 2.5, None, True], "b": {"c": "ü"}}
    a.send_json(obj)
    assert b.recv_json() == obj


def test_send_recv_pyobj(pair):
    a, b = pair
    obj = {"set": {1, 2}, "tuple": (1, "x"), "bytes": b"\x00"}
    a.send_pyobj(obj)
    assert b.recv_pyobj() == obj
    a.send_pyobj([1], protocol=2)
    raw = b.recv()
    assert pickle.loads(raw) == [1]


def test_send_recv_serialized(pair):
    a, b = pair

    def serialize(msg):
        return [msg["k"].encode(), msg["v"].encode()]

    def deserialize(frames):
        return {"k": frames[0].decode(), "v": frames[1].decode()}

    a.send_serialized({"k": "key", "v": "value"}, serialize)
    assert b.recv_serialized(deserialize) == {"k": "key", "v": "value"}
    a.send_serialized({"k": "x", "v": "y"}, serialize)
    assert b.recv_serialized(lambda fs: [f.bytes for f in fs], copy=False) == [b"x", b"y"]


def test_send_recv_multipart_buffer_types(pair):
    a, b = pair
    parts = [b"bytes", bytearray(b"bytearray"), memoryview(b"memoryview"), zmq.Frame(b"frame"), b""]
    a.send_multipart(parts)
    assert b.recv_multipart() == [b"bytes", b"bytearray", b"memoryview", b"frame", b""]
    a.send_multipart(parts, copy=False)
    frames = b.recv_multipart(copy=False)
    assert [f.bytes for f in frames] == [b"bytes", b"bytearray", b"memoryview", b"frame", b""]
    assert [f.more for f in frames] == [True, True, True, True, False]


def test_rcvmore_part_by_part(pair):
    a, b = pair
    a.send(b"one", zmq.SNDMORE)
    a.send(b"two", zmq.SNDMORE)
    a.send(b"three")
    assert b.recv() == b"one"
    assert b.rcvmore == 1
    assert b.getsockopt(zmq.RCVMORE) == 1
    assert b.recv() == b"two"
    assert b.get(zmq.RCVMORE) == 1
    assert b.recv() == b"three"
    assert b.rcvmore == 0
    # recv_multipart after a partial recv returns the rest of the message.
    a.send_multipart([b"x", b"y", b"z"])
    assert b.recv() == b"x"
    assert b.recv_multipart() == [b"y", b"z"]


def test_multipart_is_atomic(make, endpoint_for, transport):
    """A multipart message is delivered whole or not at all, never interleaved."""
    pull = make(zmq.PULL)
    ep = bind_any(pull, endpoint_for(transport))
    pushes = [make(zmq.PUSH) for _ in range(3)]
    for p in pushes:
        p.connect(ep)
    for i in range(20):
        for j, p in enumerate(pushes):
            p.send(b"%d" % j, zmq.SNDMORE)
            p.send(b"%d" % i, zmq.SNDMORE)
            p.send(b"end-%d" % j)
    for _ in range(60):
        j, _, end = pull.recv_multipart()
        assert end == b"end-" + j


def test_send_str_typeerror(pair):
    a, _ = pair
    with pytest.raises(TypeError):
        a.send("text")
    with pytest.raises(TypeError):
        a.send_multipart(["text"])
    with pytest.raises(TypeError):
        a.send(12345)


# ------------------------------------------------------------ Frames
def test_recv_copy_false_returns_frame(pair):
    a, b = pair
    a.send_multipart([b"head", b"tail"])
    head = b.recv(copy=False)
    assert isinstance(head, zmq.Frame)
    assert head.bytes == b"head"
    assert isinstance(head.buffer, memoryview)
    assert bytes(head.buffer) == b"head"
    assert len(head) == 4
    assert head.more is True
    assert head.get(zmq.MORE) == 1
    tail = b.recv(copy=False)
    assert tail.bytes == b"tail"
    assert tail.more is False


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_frame_properties(make, endpoint_for, transport):
    """Frame.get(property) reads the sending connection's metadata."""
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    dealer = make(zmq.DEALER, routing_id=b"dealer-1")
    dealer.connect(ep)
    dealer.send(b"hi")
    rid, body = router.recv_multipart(copy=False)
    assert rid.bytes == b"dealer-1"
    assert body.get("Socket-Type") == "DEALER"
    assert body.get("Identity") == "dealer-1"
    if transport == "tcp":
        assert body.get("Peer-Address") == "127.0.0.1"
    with pytest.raises(zmq.ZMQError) as e:
        body.get("X-No-Such-Property")
    assert e.value.errno == zmq.EINVAL


def test_send_frame_object(pair):
    a, b = pair
    f = zmq.Frame(b"framed")
    a.send(f)
    assert b.recv() == b"framed"
    with pytest.raises(TypeError):
        zmq.Frame("text")


def test_recv_into(pair):
    a, b = pair
    a.send(b"0123456789")
    buf = bytearray(4)
    assert b.recv_into(buf) == 10  # the full size; the data is truncated
    assert bytes(buf) == b"0123"
    a.send(b"abc")
    big = bytearray(10)
    assert b.recv_into(big) == 3
    assert bytes(big[:3]) == b"abc"
    a.send(b"abcdef")
    buf = bytearray(10)
    assert b.recv_into(buf, nbytes=2) == 6
    assert bytes(buf) == b"ab" + b"\x00" * 8
    a.send(b"xyz")
    mv = memoryview(bytearray(8))
    assert b.recv_into(mv[2:]) == 3
    assert bytes(mv) == b"\x00\x00xyz\x00\x00\x00"


# ------------------------------------------------------------ zero copy and trackers
def test_copy_false_bytearray_and_memoryview(pair):
    a, b = pair
    a.send(bytearray(b"from bytearray"), copy=False)
    assert b.recv() == b"from bytearray"
    data = bytearray(b"0123456789")
    a.send(memoryview(data)[2:6], copy=False)
    assert b.recv() == b"2345"


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_track_returns_message_tracker(make, late_endpoint):
    """copy=False, track=True: the tracker is not done while the message still
    uses the buffer, and is done once the message left."""
    push = make(zmq.PUSH)
    push.connect(late_endpoint)
    buf = bytearray(b"a" * 100_000)
    tracker = push.send(buf, copy=False, track=True)
    assert isinstance(tracker, zmq.MessageTracker)
    assert not tracker.done  # queued: nobody listens yet
    with pytest.raises(zmq.NotDone):
        tracker.wait(0.05)
    pull = make(zmq.PULL)
    pull.bind(late_endpoint)
    assert pull.recv() == b"a" * 100_000
    tracker.wait(5)
    assert tracker.done

    mtracker = push.send_multipart([b"head", memoryview(buf)], copy=False, track=True)
    assert isinstance(mtracker, zmq.MessageTracker)
    assert pull.recv_multipart() == [b"head", bytes(buf)]
    mtracker.wait(5)
    assert mtracker.done


def test_socket_and_context_identity(ctx):
    s = ctx.socket(zmq.PAIR)
    assert s.context is ctx
    assert not s.closed
    assert "PAIR" in repr(s)
    s.close()
    assert s.closed
    assert "closed" in repr(s)


def test_zmqerror_shape():
    e = zmq.ZMQError(errno.EINVAL)
    assert e.errno == errno.EINVAL
    assert str(e) == zmq.strerror(errno.EINVAL)
    assert issubclass(zmq.Again, zmq.ZMQError)
    assert issubclass(zmq.ContextTerminated, zmq.ZMQError)
    assert zmq.Again().errno == errno.EAGAIN
    assert zmq.ContextTerminated().errno == zmq.ETERM
