"""IMMEDIATE: no queueing to peers that are not connected, modelled on
libzmq's tests/test_immediate.cpp."""

from __future__ import annotations

import pytest

import purezmq as zmq

from .conftest import bind_any, free_tcp_port, rebind, wait_until


def _count(sock, timeout_ms=250):
    seen = 0
    while sock.poll(timeout_ms):
        sock.recv()
        seen += 1
    return seen


def test_immediate_1(make, endpoint_for):
    """Without IMMEDIATE, connect() makes a pipe at once: PUSH load-balances onto
    the pipe of the peer that never comes, and half the messages wait there."""
    to = make(zmq.PULL)
    ep = bind_any(to, endpoint_for("tcp"))
    frm = make(zmq.PUSH)
    frm.connect(f"tcp://127.0.0.1:{free_tcp_port()}")  # nobody listens there
    frm.connect(ep)
    # Make sure the real connection is up before sending.
    wait_until(lambda: frm.poll(0, zmq.POLLOUT))
    for _ in range(10):
        frm.send(b"Hello")
    assert _count(to) == 5


def test_immediate_2(make, endpoint_for):
    """With IMMEDIATE, only connected pipes take messages: all 10 arrive."""
    to = make(zmq.PULL)
    ep = bind_any(to, endpoint_for("tcp"))
    frm = make(zmq.PUSH, immediate=1)
    assert frm.immediate == 1
    frm.connect(f"tcp://127.0.0.1:{free_tcp_port()}")
    frm.connect(ep)
    for _ in range(10):
        frm.send(b"Hello")  # blocks until the real connection is up
    assert _count(to) == 10


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_immediate_no_peer_blocks(make, late_endpoint):
    frm = make(zmq.PUSH, immediate=1, sndtimeo=100)
    frm.connect(late_endpoint)
    assert frm.poll(0, zmq.POLLOUT) == 0
    with pytest.raises(zmq.Again):
        frm.send(b"nobody", zmq.NOBLOCK)
    with pytest.raises(zmq.Again):
        frm.send(b"nobody")


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_immediate_3(make, late_endpoint):
    """A broken connection blocks again with IMMEDIATE, and flows after the reconnect."""
    backend = make(zmq.DEALER)
    backend.bind(late_endpoint)
    frontend = make(zmq.DEALER, immediate=1, reconnect_ivl=50)
    frontend.connect(late_endpoint)
    backend.send(b"Hello")
    assert frontend.recv() == b"Hello"
    frontend.send(b"Hello", zmq.NOBLOCK)

    backend.close()
    wait_until(lambda: frontend.poll(0, zmq.POLLOUT) == 0)
    with pytest.raises(zmq.Again):
        frontend.send(b"Hello", zmq.NOBLOCK)

    backend = make(zmq.DEALER)
    rebind(backend, late_endpoint)
    backend.send(b"Hello")
    assert frontend.recv() == b"Hello"
    frontend.send(b"Hello", zmq.NOBLOCK)
    assert backend.recv() == b"Hello"
