"""pyzmq's public surface beyond sockets: decorators, log handlers, zmq.backend,
zmq.utils, Frame and MessageTracker semantics, shadows, monitor events."""

from __future__ import annotations

import copy
import gc
import logging
import struct
import time
from collections.abc import Iterator

import pytest
from tests.conftest import inproc_name, wait_until

import purezmq as zmq
from purezmq.decorators import context, socket
from purezmq.log.handlers import PUBHandler, TopicLogger
from purezmq.utils import garbage, interop, jsonapi, strtypes, win32
from purezmq.utils.monitor import parse_monitor_message, recv_monitor_message


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


def _pair(ctx: zmq.Context, a: int = zmq.PAIR, b: int = zmq.PAIR) -> tuple[zmq.Socket, ...]:
    name = inproc_name()
    s1, s2 = ctx.socket(a), ctx.socket(b)
    for s in (s1, s2):
        s.linger = 0
        s.rcvtimeo = 5000
    s1.bind(name)
    s2.connect(name)
    return s1, s2


# ------------------------------------------------------------ decorators
def test_decorators_inject_and_close() -> None:
    kept: dict[str, object] = {}

    @context()
    @socket("push", zmq.PUSH)
    @socket(zmq.PULL)
    def work(ctx: zmq.Context, pull: zmq.Socket, push: zmq.Socket) -> str:
        kept.update(ctx=ctx, push=push, pull=pull)
        assert push.context is ctx and pull.context is ctx
        assert (push.type, pull.type) == (zmq.PUSH, zmq.PULL)
        return "done"

    assert work() == "done"
    assert kept["push"].closed and kept["pull"].closed  # type: ignore[attr-defined]
    assert kept["ctx"].closed  # type: ignore[attr-defined]


def test_socket_decorator_uses_instance_and_refuses_duplicates() -> None:
    @socket(zmq.PUB, name="pub")
    def f(pub: zmq.Socket) -> zmq.Context:
        return pub.context

    assert f() is zmq.Context.instance()

    @context(name="ctx")
    def g(ctx: zmq.Context) -> None:
        pass

    with pytest.raises(TypeError):
        g(ctx="already given")


# ------------------------------------------------------------ log handlers
def test_pubhandler_topics_and_formats(ctx: zmq.Context) -> None:
    pub, sub = _pair(ctx, zmq.PUB, zmq.SUB)
    sub.subscribe(b"")
    handler = PUBHandler(pub)
    handler.root_topic = "app"
    logger = logging.getLogger(f"purezmq-test-{id(handler)}")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    try:
        logger.info("db.query::slow")
        assert sub.recv_multipart() == [b"app.INFO.db.query", b"slow\n"]
        handler.setFormatter(logging.Formatter("<%(message)s>"))
        handler.setRootTopic(b"")
        logger.warning("hi")
        assert sub.recv_multipart() == [b"WARNING", b"<hi>"]
    finally:
        logger.removeHandler(handler)


def test_pubhandler_binds_its_own_socket(ctx: zmq.Context) -> None:
    name = inproc_name()
    handler = PUBHandler(name, ctx)
    assert handler.ctx is ctx and handler.socket.type == zmq.PUB
    handler.socket.close()


def test_topic_logger_prefixes_topic() -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    log = TopicLogger(f"topic-{time.monotonic_ns()}")
    log.addHandler(Keep())
    log.setLevel(logging.DEBUG)
    log.info("a.b", "x=%d", 1)  # noqa: PLE1205 - TopicLogger's signature
    log.error("c", "boom")  # noqa: PLE1205
    assert [r.getMessage() for r in records] == ["a.b::x=1", "c::boom"]


# ------------------------------------------------------------ backend and utils
def test_backend_names_are_purezmq_classes() -> None:
    from purezmq import backend

    assert backend.Socket is zmq.Socket and backend.Context is zmq.Context
    assert backend.proxy_steerable is zmq.proxy_steerable
    assert not backend.Socket.__module__.startswith("zmq.backend.cffi")
    for name in backend.public_api:
        assert hasattr(backend, name), name
    assert backend.monitored_queue is zmq.devices.monitored_queue  # type: ignore[attr-defined]


def test_utils_modules() -> None:
    assert jsonapi.loads(jsonapi.dumps({"a": [1]})) == {"a": [1]}
    assert jsonapi.dumps("é") == b'"\\u00e9"'
    with pytest.warns(DeprecationWarning):
        assert strtypes.cast_bytes("x") == b"x"
    assert interop.cast_int_addr(5) == 5
    with pytest.raises(ValueError):
        interop.cast_int_addr("nope")
    with win32.allow_interrupt():
        pass
    assert garbage.gc.refs == {}


# ------------------------------------------------------------ frames and trackers
def test_frame_repr_bytes_and_buffer() -> None:
    assert str(zmq.Frame(b"")) == "<zmq.Frame(b'')>"
    assert str(zmq.Frame(b"x" * 2000)) == "<zmq.Frame(b'xxxxxxxxxxxx'...2kB)>"
    data = b"abc" * 10
    f = zmq.Frame(data)
    assert f.bytes == data and f.bytes is f.bytes
    assert f.buffer is f.buffer
    assert memoryview(f).tobytes() == data
    with pytest.raises(BufferError):
        zmq.Frame(memoryview(bytearray(10))[::2])
    with pytest.raises(TypeError):
        zmq.Frame("text")


def test_frame_tracker_done_when_frame_is_gone() -> None:
    f = zmq.Frame(b"tracked", copy=False, track=True)
    tracker = f.tracker
    assert tracker is not None and not tracker.done
    with pytest.raises(zmq.NotDone):
        tracker.wait(0.01)
    del f
    gc.collect()
    assert tracker.done
    untracked = zmq.Frame(b"x")
    with pytest.raises(ValueError):
        zmq.MessageTracker(untracked)


def test_zero_copy_send_is_tracked_until_written(ctx: zmq.Context) -> None:
    push = ctx.socket(zmq.PUSH)
    push.linger = 0
    push.copy_threshold = 0
    addr = "tcp://127.0.0.1:*"
    pull = ctx.socket(zmq.PULL)
    pull.linger = 0
    pull.bind(addr)
    endpoint = pull.last_endpoint.decode()
    pull.close()  # nobody listens yet: the message waits in the queue
    push.connect(endpoint)
    tracker = push.send(bytearray(b"payload"), copy=False, track=True)
    assert tracker is not None and not tracker.done
    small = push.send(b"small", copy=True, track=True)
    assert small is zmq._FINISHED_TRACKER
    pull = ctx.socket(zmq.PULL)
    pull.linger = 0
    pull.rcvtimeo = 5000
    pull.bind(endpoint)
    assert pull.recv() == b"payload"
    wait_until(lambda: tracker.done)


def test_send_untracked_frame_with_track_refused(ctx: zmq.Context) -> None:
    a, _ = _pair(ctx)
    with pytest.raises(ValueError):
        a.send(zmq.Frame(b"x"), copy=False, track=True)


# ------------------------------------------------------------ shadows and copies
def test_shadows_by_object_and_address(ctx: zmq.Context) -> None:
    a, b = _pair(ctx)
    by_addr = zmq.Socket.shadow(a.underlying)
    by_obj = zmq.Socket(a)
    assert by_obj._shadow_obj is a
    assert by_addr.underlying == by_obj.underlying == a.underlying
    by_addr.send(b"via shadow")
    assert b.recv() == b"via shadow"
    assert copy.copy(a).underlying == a.underlying
    c2 = zmq.Context.shadow(ctx.underlying)
    assert c2.underlying == ctx.underlying and copy.deepcopy(ctx).underlying == ctx.underlying
    del c2
    assert not ctx.closed
    with pytest.raises(zmq.ZMQError):
        zmq.Socket.shadow(12345)


def test_a_new_socket_and_a_shadow_have_their_state(ctx: zmq.Context) -> None:
    """What `Socket.__init__` sets (in one compiled call where compiled)."""
    s = ctx.socket(zmq.DEALER)
    assert s.context is ctx and s.copy_threshold == zmq.COPY_THRESHOLD
    assert not s._shadow and s._shadow_obj is None and s._monitor_socket is None
    t = zmq.Socket(ctx, zmq.PUSH, copy_threshold=7)
    assert t.copy_threshold == 7
    t.copy_threshold = 0  # a plain attribute, not an option
    assert t.copy_threshold == 0
    shadow = zmq.Socket.shadow(s.underlying)
    assert shadow._shadow and shadow.context is ctx
    shadow.close()  # a shadow's close closes the socket, not the context's record
    assert s.closed
    t.close()


def test_connect_and_close_keep_pyzmqs_surface(ctx: zmq.Context) -> None:
    """`connect` and `close` (compiled where the build compiles): bytes
    endpoints, the endpoint named in errors, the context manager, a
    second close."""
    s = ctx.socket(zmq.DEALER)
    cm = s.connect(b"inproc://surface-connect")
    assert repr(cm) == "<SocketContext(connect='inproc://surface-connect')>"
    with pytest.raises(zmq.ZMQError) as err:
        s.connect("nope://x")
    assert "addr='nope://x'" in str(err.value)
    with pytest.raises(TypeError):
        s.connect(42)  # type: ignore[arg-type]
    s.close(linger=0)
    s.close()  # closing twice is harmless
    assert s.closed and s not in ctx._sockets


def test_subscribe_attribute_and_dir(ctx: zmq.Context) -> None:
    pub, sub = _pair(ctx, zmq.PUB, zmq.SUB)
    sub.subscribe = "x"  # an option, although subscribe() is a method
    for _ in range(100):
        pub.send(b"xyz")
        if sub.poll(20):
            break
    assert sub.recv() == b"xyz"
    assert {"IDENTITY", "FD", "send"} <= set(dir(sub))
    assert "IO_THREADS" in dir(ctx)
    assert not hasattr(sub, "CURVE_SECRETKEY")  # write-only: AttributeError


def test_select_returns_fds_for_plain_descriptors(ctx: zmq.Context) -> None:
    import os

    r, w = os.pipe()
    try:
        f = os.fdopen(r, "rb", buffering=0)
        os.write(w, b"!")
        p = zmq.Poller()
        p.register(f, zmq.POLLIN)
        assert dict(p.poll(1000)) == {r: zmq.POLLIN}
        assert zmq.select([f], [], [], 1)[0] == [r]
        f.close()
    finally:
        os.close(w)


def test_recv_into_checks_buffers(ctx: zmq.Context) -> None:
    _, b = _pair(ctx)
    with pytest.raises(BufferError):
        b.recv_into(memoryview(b"readonly"))
    with pytest.raises(BufferError):
        b.recv_into(memoryview(bytearray(10))[::2])
    with pytest.raises(ValueError):
        b.recv_into(bytearray(10), nbytes=11)


def test_bind_error_names_the_endpoint(ctx: zmq.Context) -> None:
    s = ctx.socket(zmq.PUSH)
    with pytest.raises(zmq.ZMQError) as e:
        s.connect("noproc://x")
    assert "noproc://x" in str(e.value)
    with s.bind("tcp://127.0.0.1:0"):  # unbinds the port actually bound on exit
        assert s.last_endpoint.startswith(b"tcp://127.0.0.1:")
    s.close()


# ------------------------------------------------------------ socket monitor
def test_monitor_events_two_frames(ctx: zmq.Context) -> None:
    server = ctx.socket(zmq.REP)
    server.linger = 0
    mon = server.get_monitor_socket()
    assert server.get_monitor_socket() is mon
    mon.rcvtimeo = 5000
    server.bind("tcp://127.0.0.1:*")
    endpoint = server.last_endpoint
    raw = mon.recv_multipart()
    assert len(raw) == 2 and len(raw[0]) == 6
    event, _value = struct.unpack("=HI", raw[0])
    assert event == zmq.EVENT_LISTENING and raw[1] == endpoint
    parsed = parse_monitor_message(raw)
    assert parsed["event"] == zmq.Event.LISTENING and parsed["endpoint"] == endpoint
    client = ctx.socket(zmq.REQ)
    client.linger = 0
    client.connect(endpoint.decode())
    seen = set()
    while zmq.EVENT_HANDSHAKE_SUCCEEDED not in seen:
        seen.add(recv_monitor_message(mon)["event"])
    assert zmq.EVENT_ACCEPTED in seen
    server.disable_monitor()
    assert recv_monitor_message(mon)["event"] == zmq.EVENT_MONITOR_STOPPED
    client.close()
    server.close()
