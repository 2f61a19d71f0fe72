"""zmq.devices, proxy_steerable and monitored_queue, through the public API.

pyzmq's own steerable-proxy tests skip themselves for libzmq 4.3.5 (the
version purezmq reports), so the control commands are checked here.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterator

import pytest
from tests.conftest import inproc_name, wait_until

import purezmq as zmq
from purezmq import devices

TIMEOUT_MS = 5000


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


def _sock(ctx: zmq.Context, kind: int) -> zmq.Socket:
    s = ctx.socket(kind)
    s.linger = 0
    s.rcvtimeo = TIMEOUT_MS
    s.sndtimeo = TIMEOUT_MS
    return s


def _run(target: object, *args: object) -> threading.Thread:
    t = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
    t.start()
    return t


# ------------------------------------------------------------ proxy_steerable
@pytest.fixture
def steered(ctx: zmq.Context) -> Iterator[tuple[zmq.Socket, ...]]:
    """push -> [PULL | proxy_steerable | PUSH] -> pull, capture PUSH -> cap, PAIR control."""
    names = [inproc_name() for _ in range(4)]
    front, back, cap, ctrl = (_sock(ctx, t) for t in (zmq.PULL, zmq.PUSH, zmq.PUSH, zmq.PAIR))
    for s, n in zip((front, back, cap, ctrl), names, strict=True):
        s.bind(n)
    push, pull, cap_pull, control = (
        _sock(ctx, t) for t in (zmq.PUSH, zmq.PULL, zmq.PULL, zmq.PAIR)
    )
    for s, n in zip((push, pull, cap_pull, control), names, strict=True):
        s.connect(n)
    t = _run(zmq.proxy_steerable, front, back, cap, ctrl)
    yield push, pull, cap_pull, control
    if t.is_alive():
        control.send(b"TERMINATE")
        t.join(5)
    assert not t.is_alive()


def test_steerable_forwards_and_captures(steered: tuple[zmq.Socket, ...]) -> None:
    push, pull, cap, _ = steered
    push.send_multipart([b"a", b"bc"])
    assert pull.recv_multipart() == [b"a", b"bc"]
    assert cap.recv_multipart() == [b"a", b"bc"]


def test_steerable_statistics_count_frames_and_bytes(steered: tuple[zmq.Socket, ...]) -> None:
    push, pull, _, control = steered
    push.send(b"hello")
    push.send_multipart([b"x", b"yz"])
    assert pull.recv() == b"hello"
    assert pull.recv_multipart() == [b"x", b"yz"]
    control.send(b"STATISTICS")
    stats = [struct.unpack("=Q", f)[0] for f in control.recv_multipart()]
    # frontend: msgs in, bytes in, msgs out, bytes out; then the backend's
    assert stats == [3, 8, 0, 0, 0, 0, 3, 8]


def test_steerable_pause_resume_terminate(ctx: zmq.Context) -> None:
    names = [inproc_name() for _ in range(3)]
    front, back, ctrl = (_sock(ctx, t) for t in (zmq.PULL, zmq.PUSH, zmq.PAIR))
    for s, n in zip((front, back, ctrl), names, strict=True):
        s.bind(n)
    push, pull, control = (_sock(ctx, t) for t in (zmq.PUSH, zmq.PULL, zmq.PAIR))
    for s, n in zip((push, pull, control), names, strict=True):
        s.connect(n)
    t = _run(zmq.proxy_steerable, front, back, None, ctrl)
    push.send(b"1")
    assert pull.recv() == b"1"
    control.send(b"PAUSE")
    control.send(b"STATISTICS")  # answered only once the PAUSE has been handled
    control.recv_multipart()
    push.send(b"2")
    assert pull.poll(200) == 0, "a paused proxy must not forward"
    control.send(b"RESUME")
    assert pull.recv() == b"2"
    control.send(b"TERMINATE")
    t.join(5)
    assert not t.is_alive()


def test_steerable_rep_control_gets_answers(ctx: zmq.Context) -> None:
    names = [inproc_name() for _ in range(3)]
    front, back, ctrl = (_sock(ctx, t) for t in (zmq.PULL, zmq.PUSH, zmq.REP))
    for s, n in zip((front, back, ctrl), names, strict=True):
        s.bind(n)
    req = _sock(ctx, zmq.REQ)
    req.connect(names[2])
    t = _run(zmq.proxy_steerable, front, back, None, ctrl)
    req.send(b"PAUSE")
    assert req.recv() == b""
    req.send(b"STATISTICS")
    assert len(req.recv_multipart()) == 8
    req.send(b"TERMINATE")
    assert req.recv() == b""
    t.join(5)
    assert not t.is_alive()


# ------------------------------------------------------------ devices
def test_thread_device_queue_between_req_and_rep() -> None:
    dev = devices.ThreadDevice(zmq.QUEUE, zmq.ROUTER, zmq.DEALER)
    dev.context_factory = zmq.Context  # its own context, terminated below
    front = dev.bind_in_to_random_port("tcp://127.0.0.1")
    back = dev.bind_out_to_random_port("tcp://127.0.0.1")
    dev.setsockopt_in(zmq.LINGER, 0)
    dev.setsockopt_out(zmq.LINGER, 0)
    dev.start()
    with zmq.Context() as ctx:
        req, rep = _sock(ctx, zmq.REQ), _sock(ctx, zmq.REP)
        req.connect(f"tcp://127.0.0.1:{front}")
        rep.connect(f"tcp://127.0.0.1:{back}")
        req.send(b"ping")
        assert rep.recv() == b"ping"
        rep.send(b"pong")
        assert req.recv() == b"pong"
        req.close()
        rep.close()
    wait_until(lambda: dev._context is not None)
    assert dev._context is not None
    dev._context.term()  # ETERM ends the device quietly
    dev.join(5)
    assert dev.done


def test_single_socket_device_answers_itself() -> None:
    dev = devices.ThreadDevice(zmq.QUEUE, zmq.REP, -1)
    dev.context_factory = zmq.Context
    port = dev.bind_in_to_random_port("tcp://127.0.0.1")
    dev.start()
    with zmq.Context() as ctx:
        req = _sock(ctx, zmq.REQ)
        req.connect(f"tcp://127.0.0.1:{port}")
        req.send(b"echo")
        assert req.recv() == b"echo"
        req.close()
    wait_until(lambda: dev._context is not None)
    assert dev._context is not None
    dev._context.term()
    dev.join(5)


def test_thread_proxy_monitor_sees_traffic() -> None:
    dev = devices.ThreadProxy(zmq.PULL, zmq.PUSH, zmq.PUSH)
    dev.context_factory = zmq.Context
    ports = [
        dev.bind_in_to_random_port("tcp://127.0.0.1"),
        dev.bind_out_to_random_port("tcp://127.0.0.1"),
        dev.bind_mon_to_random_port("tcp://127.0.0.1"),
    ]
    for setopt in (dev.setsockopt_in, dev.setsockopt_out, dev.setsockopt_mon):
        setopt(zmq.LINGER, 0)
    dev.start()
    with zmq.Context() as ctx:
        push, pull, mon = _sock(ctx, zmq.PUSH), _sock(ctx, zmq.PULL), _sock(ctx, zmq.PULL)
        for s, p in zip((push, pull, mon), ports, strict=True):
            s.connect(f"tcp://127.0.0.1:{p}")
        push.send(b"hello")
        assert pull.recv() == b"hello"
        assert mon.recv() == b"hello"
        for s in (push, pull, mon):
            s.close()
    wait_until(lambda: dev._context is not None)
    assert dev._context is not None
    dev._context.term()
    dev.join(5)


def test_thread_proxy_steerable_terminates_on_command() -> None:
    dev = devices.ThreadProxySteerable(zmq.PULL, zmq.PUSH, zmq.PUSH, zmq.PAIR)
    dev.context_factory = zmq.Context
    ports = [
        dev.bind_in_to_random_port("tcp://127.0.0.1"),
        dev.bind_out_to_random_port("tcp://127.0.0.1"),
        dev.bind_mon_to_random_port("tcp://127.0.0.1"),
        dev.bind_ctrl_to_random_port("tcp://127.0.0.1"),
    ]
    dev.start()
    with zmq.Context() as ctx:
        socks = [_sock(ctx, t) for t in (zmq.PUSH, zmq.PULL, zmq.PULL, zmq.PAIR)]
        for s, p in zip(socks, ports, strict=True):
            s.connect(f"tcp://127.0.0.1:{p}")
        push, pull, mon, ctrl = socks
        push.send(b"hello")
        assert pull.recv() == b"hello"
        assert mon.recv() == b"hello"
        ctrl.send(b"STATISTICS")
        stats = [struct.unpack("=Q", f)[0] for f in ctrl.recv_multipart()]
        assert stats[0:2] == [1, 5] and stats[6:8] == [1, 5]
        ctrl.send(b"TERMINATE")
        dev.join(5)
        assert not dev.launcher.is_alive()
        for s in socks:
            s.close()


def test_monitored_queue_router_router_swaps_identities() -> None:
    dev = devices.ThreadMonitoredQueue(zmq.ROUTER, zmq.ROUTER, zmq.PUB, b"in", b"out")
    dev.context_factory = zmq.Context
    for setopt in (dev.setsockopt_in, dev.setsockopt_out, dev.setsockopt_mon):
        setopt(zmq.LINGER, 0)
    pin = dev.bind_in_to_random_port("tcp://127.0.0.1")
    pout = dev.bind_out_to_random_port("tcp://127.0.0.1")
    pmon = dev.bind_mon_to_random_port("tcp://127.0.0.1")
    dev.start()
    with zmq.Context() as ctx:
        a, b, mon = _sock(ctx, zmq.DEALER), _sock(ctx, zmq.DEALER), _sock(ctx, zmq.SUB)
        a.identity, b.identity = b"a", b"b"
        a.connect(f"tcp://127.0.0.1:{pin}")
        b.connect(f"tcp://127.0.0.1:{pout}")
        mon.subscribe(b"")
        mon.connect(f"tcp://127.0.0.1:{pmon}")
        # until both DEALERs are known to the device's ROUTERs and the
        # monitor's subscription has reached the device's PUB
        for _ in range(100):
            a.send_multipart([b"b", b"hello"])
            if b.poll(50) and mon.poll(50):
                break
        assert b.recv_multipart() == [b"a", b"hello"]
        assert mon.recv_multipart() == [b"in", b"b", b"a", b"hello"]
        while b.poll(100):
            b.recv_multipart()
        b.send_multipart([b"a", b"back"])
        assert a.recv_multipart() == [b"b", b"back"]
        seen = []
        while mon.poll(500):
            seen.append(mon.recv_multipart())
        assert seen[-1] == [b"out", b"a", b"b", b"back"]
        for s in (a, b, mon):
            s.close()
    wait_until(lambda: dev._context is not None)
    assert dev._context is not None
    dev._context.term()
    dev.join(5)


def test_monitored_queue_needs_bytes_prefixes(ctx: zmq.Context) -> None:
    a, b, c = _sock(ctx, zmq.PAIR), _sock(ctx, zmq.PAIR), _sock(ctx, zmq.PUB)
    with pytest.raises(TypeError):
        devices.monitored_queue(a, b, c, "in", b"out")  # type: ignore[arg-type]


def test_device_requires_types() -> None:
    with pytest.raises(TypeError):
        devices.Device(zmq.QUEUE, zmq.PULL)
    dev = devices.Device(zmq.QUEUE, zmq.SUB, zmq.PUB)
    assert (dev.in_type, dev.out_type, dev.device_type, dev.daemon) == (
        zmq.SUB,
        zmq.PUB,
        zmq.QUEUE,
        True,
    )


def test_reserved_ports_are_distinct_and_in_range() -> None:
    dev = devices.ThreadDevice(zmq.PULL, zmq.PUSH, -1)
    ports = {dev.bind_in_to_random_port("tcp://127.0.0.1", 41000, 41100) for _ in range(5)}
    assert len(ports) == 5
    assert all(41000 <= p < 41100 for p in ports)
