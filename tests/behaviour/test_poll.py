"""Polling: zmq.Poller, zmq.select, Socket.poll, POLLOUT, EVENTS and FD;
modelled on libzmq's tests/test_zmq_poll_fd.cpp and pyzmq's test_poll.py."""

from __future__ import annotations

import os
import select
import socket
import threading
import time

import pytest

import purezmq as zmq

from .conftest import bind_any, wait_for_peers, wait_until

SLACK_S = 5.0


def _pair(make, endpoint_for, transport, a=zmq.PUSH, b=zmq.PULL):
    sender = make(a)
    receiver = make(b)
    ep = bind_any(receiver, endpoint_for(transport))
    sender.connect(ep)
    return sender, receiver


def test_poller_sockets_and_plain_fds(make, endpoint_for, transport):
    push_a, pull_a = _pair(make, endpoint_for, transport)
    push_b, pull_b = _pair(make, endpoint_for, transport)
    r, w = os.pipe()
    sp1, sp2 = socket.socketpair()
    try:
        poller = zmq.Poller()
        poller.register(pull_a, zmq.POLLIN)
        poller.register(pull_b, zmq.POLLIN)
        poller.register(r, zmq.POLLIN)
        poller.register(sp1, zmq.POLLIN)
        assert pull_a in poller and r in poller
        assert poller.poll(50) == []

        os.write(w, b"x")
        assert dict(poller.poll(SLACK_S * 1000)) == {r: zmq.POLLIN}
        os.read(r, 1)

        push_b.send(b"to b")
        assert dict(poller.poll(SLACK_S * 1000)) == {pull_b: zmq.POLLIN}
        sp2.send(b"y")
        events = {}

        def all_ready():
            events.update(poller.poll(100))
            return events.keys() == {pull_b, sp1.fileno()}

        wait_until(all_ready)
        # Objects with fileno() are reported by their descriptor (as pyzmq does).
        assert events == {pull_b: zmq.POLLIN, sp1.fileno(): zmq.POLLIN}
        assert pull_b.recv() == b"to b"
        sp1.recv(1)

        push_a.send(b"to a")
        assert dict(poller.poll(SLACK_S * 1000)) == {pull_a: zmq.POLLIN}
        assert pull_a.recv() == b"to a"

        poller.unregister(pull_a)
        assert pull_a not in poller
        push_a.send(b"unwatched")
        assert pull_a.poll(SLACK_S * 1000) == zmq.POLLIN
        assert poller.poll(50) == []
    finally:
        os.close(r)
        os.close(w)
        sp1.close()
        sp2.close()


def test_poller_pollout_and_modify(make, endpoint_for, transport):
    push = make(zmq.PUSH)
    poller = zmq.Poller()
    poller.register(push, zmq.POLLOUT)
    assert poller.poll(50) == []  # no peer: cannot send
    pull = make(zmq.PULL)
    ep = bind_any(pull, endpoint_for(transport))
    push.connect(ep)
    assert dict(poller.poll(SLACK_S * 1000)) == {push: zmq.POLLOUT}
    poller.modify(push, zmq.POLLIN)
    assert poller.poll(50) == []
    poller.register(push, 0)  # flags 0 unregisters
    assert push not in poller


def test_poll_returns_only_requested_events(make, endpoint_for, transport):
    a, b = _pair(make, endpoint_for, transport, zmq.DEALER, zmq.DEALER)
    assert b.poll(SLACK_S * 1000, zmq.POLLIN | zmq.POLLOUT) == zmq.POLLOUT  # peer attached
    a.send(b"x")
    assert b.poll(SLACK_S * 1000, zmq.POLLIN) == zmq.POLLIN
    assert b.poll(0, zmq.POLLIN | zmq.POLLOUT) == zmq.POLLIN | zmq.POLLOUT
    assert b.poll(0, zmq.POLLOUT) == zmq.POLLOUT
    assert b.recv() == b"x"
    assert b.poll(0, zmq.POLLIN) == 0


def test_zmq_poll_function(make, endpoint_for, transport):
    push, pull = _pair(make, endpoint_for, transport)
    push.send(b"x")
    ready = zmq.zmq_poll([(pull, zmq.POLLIN), (push, zmq.POLLOUT)], int(SLACK_S * 1000))
    assert (push, zmq.POLLOUT) in ready


def test_select(make, endpoint_for, transport):
    push, pull = _pair(make, endpoint_for, transport)
    r, w = os.pipe()
    try:
        t0 = time.monotonic()
        assert zmq.select([pull, r], [], [], 0.2) == ([], [], [])
        assert time.monotonic() - t0 >= 0.2  # seconds, not ms
        push.send(b"x")
        assert zmq.select([pull, r], [], [], SLACK_S) == ([pull], [], [])
        assert zmq.select([], [push], [], SLACK_S) == ([], [push], [])
        os.write(w, b"!")
        assert pull.recv() == b"x"
        assert zmq.select([pull, r], [], [], SLACK_S)[0] == [r]
    finally:
        os.close(r)
        os.close(w)


def test_socket_poll_timeout(make):
    pull = make(zmq.PULL)
    pull.bind("inproc://poll-timeout")
    t0 = time.monotonic()
    assert pull.poll(200) == 0
    elapsed = time.monotonic() - t0
    assert 0.2 <= elapsed < SLACK_S  # ms, not seconds


def test_poller_timeout_is_milliseconds(make):
    pull = make(zmq.PULL)
    pull.bind("inproc://poller-timeout")
    poller = zmq.Poller()
    poller.register(pull, zmq.POLLIN)
    t0 = time.monotonic()
    assert poller.poll(200) == []
    elapsed = time.monotonic() - t0
    assert 0.2 <= elapsed < SLACK_S
    t0 = time.monotonic()
    assert poller.poll(0) == []
    assert time.monotonic() - t0 < SLACK_S


def test_poll_wakes_for_message_sent_later(make, endpoint_for, transport):
    push, pull = _pair(make, endpoint_for, transport)
    push.send(b"first")
    assert pull.poll(SLACK_S * 1000) == zmq.POLLIN
    assert pull.recv() == b"first"
    assert pull.poll(0) == 0
    push.send(b"second")
    t0 = time.monotonic()
    assert pull.poll(SLACK_S * 1000) == zmq.POLLIN
    assert time.monotonic() - t0 < SLACK_S


# ------------------------------------------------------------ EVENTS and FD
def test_events_option(make, endpoint_for, transport):
    a, b = _pair(make, endpoint_for, transport, zmq.DEALER, zmq.DEALER)
    assert a.events & zmq.POLLOUT
    assert a.get(zmq.EVENTS) & zmq.POLLOUT
    assert not b.events & zmq.POLLIN
    a.send(b"x")
    assert b.poll(SLACK_S * 1000) == zmq.POLLIN
    assert b.getsockopt(zmq.EVENTS) & zmq.POLLIN
    b.recv()
    assert not b.events & zmq.POLLIN
    # A REQ waiting for its reply is neither readable nor writable.
    req = make(zmq.REQ)
    assert req.events == 0  # no peer yet


def _readable(fd: int, timeout: float) -> bool:
    r, _, _ = select.select([fd], [], [], timeout)
    return bool(r)


def test_fd_option_is_edge_triggered(make, endpoint_for, transport):
    """The FD becomes readable when EVENTS may have changed; once EVENTS was
    read and the messages drained, it stays quiet until something new happens."""
    push = make(zmq.PUSH)
    pull = make(zmq.PULL)
    ep = bind_any(pull, endpoint_for(transport))
    wait_for_peers(pull, lambda: push.connect(ep), 1, transport)
    fd = pull.fd
    assert isinstance(fd, int)
    assert fd == pull.get(zmq.FD) == pull.fileno()

    # Settle: consume whatever the connection set-up signalled.
    _ = pull.events
    for round_ in range(3):
        push.send(b"m%d" % round_)
        push.send(b"n%d" % round_)
        assert _readable(fd, SLACK_S), "FD not readable after a message arrived"
        # EVENTS says readable (possibly after a few signals for one message).
        deadline = time.monotonic() + SLACK_S
        while not pull.events & zmq.POLLIN:
            assert time.monotonic() < deadline
            _readable(fd, 0.05)
        got = []
        while True:
            try:
                got.append(pull.recv(zmq.NOBLOCK))
            except zmq.Again:
                break
            if len(got) < 2 and not pull.events & zmq.POLLIN:
                _readable(fd, 0.05)
        assert got == [b"m%d" % round_, b"n%d" % round_]
        assert not pull.events & zmq.POLLIN
        # Drained and EVENTS read: quiet until the next message.
        assert not _readable(fd, 0.1), "FD still readable with nothing new"


def test_fd_readable_for_pending_message_before_events_read(make):
    """A message already queued keeps EVENTS at POLLIN even if the FD was cleared."""
    pull = make(zmq.PULL)
    pull.bind("inproc://fd-pending")
    push = make(zmq.PUSH)
    push.connect("inproc://fd-pending")
    push.send(b"a")
    push.send(b"b")
    assert _readable(pull.fd, SLACK_S)
    assert pull.events & zmq.POLLIN
    assert pull.recv() == b"a"
    # The FD may already be quiet here, but EVENTS still reports the next one.
    assert pull.events & zmq.POLLIN
    assert pull.recv() == b"b"
    assert not pull.events & zmq.POLLIN


def test_poll_closed_socket_raises(make):
    s = make(zmq.PULL)
    s.close()
    with pytest.raises(zmq.ZMQError):
        s.poll(0)


# ------------------------------------------------------------ parked connections
@pytest.mark.parametrize("kind", ["tcp", "ipc"])
def test_poll_sleeps_while_an_ended_parked_connection_awaits_its_reactor(kind, endpoint_for):
    """A blocking receive parks its connection (the receiving thread reads it
    itself). When that connection's peer goes away, its descriptor stays
    readable until the I/O thread has handled the loss. `Socket.poll` must
    not keep waking for it meanwhile: it used to return from every wait at
    once and spin until the I/O thread got a CPU - up to a scheduler time
    slice on a busy machine.

    The server's I/O thread is held in a callback for the whole poll, so the
    loss cannot be handled before it ends; a spinning poll burns its whole
    timeout in CPU, a sleeping one next to none."""
    server_ctx, client_ctx = zmq.Context(), zmq.Context()
    gate = threading.Event()
    try:
        router = server_ctx.socket(zmq.ROUTER)
        router.linger = 0
        router.rcvtimeo = 5000
        ep = bind_any(router, endpoint_for(kind))
        dealer = client_ctx.socket(zmq.DEALER)
        dealer.linger = 0
        dealer.rcvtimeo = 5000
        dealer.connect(ep)
        dealer.send(b"hello")
        ident, body = router.recv_multipart()
        assert body == b"hello"
        router.send_multipart([ident, b"welcome"])
        assert dealer.recv() == b"welcome"

        server_ctx._core.driver().io.call_soon(lambda: gate.wait(SLACK_S * 2))
        try:
            router.rcvtimeo = 50
            with pytest.raises(zmq.Again):
                router.recv()  # waits with the connection parked
            dealer.close()

            cpu0, wall0 = time.thread_time(), time.monotonic()
            assert router.poll(500) == 0
            cpu, wall = time.thread_time() - cpu0, time.monotonic() - wall0
            assert wall >= 0.5
            assert cpu < wall / 2, f"poll() spun: {cpu:.3f} s of CPU in {wall:.3f} s"
        finally:
            gate.set()
        # Once the reactor runs again it tidies up, and the socket serves anew.
        dealer = client_ctx.socket(zmq.DEALER)
        dealer.linger = 0
        dealer.rcvtimeo = 5000
        dealer.connect(ep)
        dealer.send(b"again")
        router.rcvtimeo = 5000
        assert router.recv_multipart()[1] == b"again"
    finally:
        gate.set()
        server_ctx.destroy(linger=0)
        client_ctx.destroy(linger=0)
