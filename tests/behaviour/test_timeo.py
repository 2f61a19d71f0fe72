"""Timeouts and flags, modelled on libzmq's tests/test_timeo.cpp.

Only lower bounds on elapsed time are asserted (the machine may be slow);
upper bounds are generous."""

from __future__ import annotations

import threading
import time

import pytest

import purezmq as zmq

from .conftest import bind_any

TIMEOUT_S = 0.25
SLACK_S = 5.0


def test_timeo_recv(make, endpoint_for, transport):
    frontend = make(zmq.DEALER, rcvtimeo=-1)
    ep = bind_any(frontend, endpoint_for(transport))

    # Receive on a socket without peers returns at once with NOBLOCK.
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        frontend.recv(zmq.NOBLOCK)
    with pytest.raises(zmq.Again):
        frontend.recv(zmq.DONTWAIT)
    assert time.monotonic() - t0 < SLACK_S

    frontend.rcvtimeo = int(TIMEOUT_S * 1000)
    assert frontend.rcvtimeo == 250
    t0 = time.monotonic()
    with pytest.raises(zmq.Again) as e:
        frontend.recv()
    elapsed = time.monotonic() - t0
    assert elapsed >= TIMEOUT_S
    assert elapsed < TIMEOUT_S + SLACK_S
    assert isinstance(e.value, zmq.ZMQError)
    assert e.value.errno == zmq.EAGAIN

    # Normal message flow works with the timeouts set.
    backend = make(zmq.DEALER, sndtimeo=int(TIMEOUT_S * 1000))
    backend.connect(ep)
    backend.send_string("Hello")
    assert frontend.recv_string() == "Hello"


@pytest.mark.parametrize(
    "method", ["recv", "recv_multipart", "recv_string", "recv_json", "recv_pyobj"]
)
def test_rcvtimeo_applies_to_every_recv_method(make, method):
    sock = make(zmq.PULL, rcvtimeo=100)
    sock.bind("inproc://rcvtimeo-methods")
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        getattr(sock, method)()
    assert time.monotonic() - t0 >= 0.1


def test_rcvtimeo_zero_is_nonblocking(make):
    sock = make(zmq.PULL, rcvtimeo=0)
    sock.bind("inproc://rcvtimeo-zero")
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        sock.recv()
    assert time.monotonic() - t0 < SLACK_S


def test_sndtimeo_push_without_peers(make):
    push = make(zmq.PUSH, sndtimeo=int(TIMEOUT_S * 1000))
    push.bind("inproc://sndtimeo")
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        push.send(b"x")
    elapsed = time.monotonic() - t0
    assert TIMEOUT_S <= elapsed < TIMEOUT_S + SLACK_S
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        push.send_multipart([b"a", b"b"])
    assert time.monotonic() - t0 >= TIMEOUT_S


def test_sndtimeo_at_hwm(make, endpoint_for, transport):
    pull = make(zmq.PULL, rcvhwm=1)
    ep = bind_any(pull, endpoint_for(transport))
    push = make(zmq.PUSH, sndhwm=1, sndtimeo=int(TIMEOUT_S * 1000))
    push.connect(ep)
    # Fill the queues until a send times out.
    sent = 0
    while True:
        t0 = time.monotonic()
        try:
            push.send(b"x" * 1024)
        except zmq.Again:
            break
        sent += 1
        assert sent < 100_000, "SNDTIMEO never expired on a PUSH whose peer does not read"
    assert time.monotonic() - t0 >= TIMEOUT_S
    assert sent >= 1


def test_noblock_send_raises_again_immediately(make):
    push = make(zmq.PUSH, sndtimeo=-1)
    push.bind("inproc://noblock-send")
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        push.send(b"x", zmq.NOBLOCK)
    with pytest.raises(zmq.Again):
        push.send_multipart([b"x", b"y"], zmq.NOBLOCK)
    with pytest.raises(zmq.Again):
        push.send_string("x", zmq.NOBLOCK)
    assert time.monotonic() - t0 < SLACK_S


def test_blocking_recv_gets_message_sent_later(make):
    """A blocking recv (RCVTIMEO -1) wakes when a message arrives."""
    pull = make(zmq.PULL, rcvtimeo=-1)
    pull.bind("inproc://blocking-recv")
    push = make(zmq.PUSH)
    push.connect("inproc://blocking-recv")
    started = threading.Event()
    result: list[bytes] = []

    def receiver() -> None:
        started.set()
        result.append(pull.recv())

    t = threading.Thread(target=receiver)
    t.start()
    assert started.wait(5)
    push.send(b"late")
    t.join(5)
    assert not t.is_alive()
    assert result == [b"late"]


def test_recv_with_timeout_returns_queued_message_at_once(make):
    pull = make(zmq.PULL, rcvtimeo=10_000)
    pull.bind("inproc://queued")
    push = make(zmq.PUSH)
    push.connect("inproc://queued")
    push.send(b"ready")
    t0 = time.monotonic()
    assert pull.recv() == b"ready"
    assert time.monotonic() - t0 < SLACK_S


@pytest.mark.parametrize("idle_s", [0.05, 0.3])
def test_blocking_recv_after_idle_connection(make, endpoint_for, transport, idle_s):
    """A connection that was idle for a while still wakes a blocking recv.
    (The sleep is the scenario - an idle period - not a synchronisation.)"""
    pull = make(zmq.PULL, rcvtimeo=int(SLACK_S * 1000))
    ep = bind_any(pull, endpoint_for(transport))
    push = make(zmq.PUSH)
    push.connect(ep)
    push.send(b"1")
    assert pull.recv() == b"1"
    time.sleep(idle_s)
    push.send(b"2")
    assert pull.recv() == b"2"
    # And a blocking recv that starts before the message is sent.
    t = threading.Timer(idle_s, lambda: push.send(b"3"))
    t.start()
    try:
        assert pull.recv() == b"3"
    finally:
        t.join()
