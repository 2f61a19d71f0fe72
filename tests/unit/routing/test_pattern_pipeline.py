"""PUSH / PULL (RFC 30; libzmq tests/test_spec_pushpull.cpp)."""

from __future__ import annotations

from purezmq._routing.patterns import Pull, Push

from .helpers import Harness


def test_push_round_robin_out() -> None:
    h = Harness(Push())
    peers = [h.connect() for _ in range(3)]
    for i in range(6):
        assert h.send(b"%d" % i)
    assert [p.recv_all() for p in peers] == [
        [[b"0"], [b"3"]],
        [[b"1"], [b"4"]],
        [[b"2"], [b"5"]],
    ]


def test_push_blocks_without_peers_and_when_all_full() -> None:
    h = Harness(Push())
    assert not h.send(b"x")
    assert not h.pattern.has_out()
    peer = h.connect(sndhwm=1)
    assert h.pattern.has_out()
    assert h.send(b"a")
    assert not h.pattern.has_out()
    assert not h.send(b"b")
    assert not h.send_msg(b"b")
    assert peer.recv() == [b"a"]  # drains to LWM -> write_activated
    assert h.pattern.has_out()
    assert h.send_msg(b"b", b"c")
    assert peer.recv() == [b"b", b"c"]


def test_push_does_not_drop_for_a_full_peer() -> None:
    """RFC 30: SHALL NOT discard messages it cannot queue: they go to another peer."""
    h = Harness(Push())
    slow = h.connect(sndhwm=1)
    fast = h.connect()
    for i in range(5):
        assert h.send(b"%d" % i)
    assert slow.recv_all() == [[b"0"]]
    assert fast.recv_all() == [[b"1"], [b"2"], [b"3"], [b"4"]]


def test_push_multipart_and_disconnect_mid_message() -> None:
    h = Harness(Push())
    a = h.connect()
    b = h.connect()
    assert h.send(b"1", b"2")
    assert h.pattern.send(b"x", True)  # goes to b
    b.close()  # the socket hears pipe_closed -> pipe_terminated
    assert h.pattern.send(b"y", False)  # dropped with the rest of the message
    assert h.send(b"3")
    assert a.recv_all() == [[b"1", b"2"], [b"3"]]
    assert b.recv_all() == []


def test_push_send_msg_whole() -> None:
    h = Harness(Push())
    peer = h.connect()
    msg = [b"a", b"b"]
    assert h.pattern.send_msg(msg)
    assert peer.recv() is msg


def test_push_send_msg_after_partial_frames_finishes_the_message() -> None:
    h = Harness(Push())
    peer = h.connect()
    h.pattern.send(b"a", True)
    assert h.pattern.send_msg([b"b", b"c"])
    assert peer.recv() == [b"a", b"b", b"c"]


def test_pull_fair_queue_in() -> None:
    h = Harness(Pull())
    peers = [h.connect() for _ in range(3)]
    for i, p in enumerate(peers):
        p.send(b"%d-a" % i)
        p.send(b"%d-b" % i)
    got = [m[0] for m in h.recv_all()]
    assert got == [b"0-a", b"1-a", b"2-a", b"0-b", b"1-b", b"2-b"]


def test_pull_multipart_atomic_and_last_pipe() -> None:
    h = Harness(Pull())
    a = h.connect()
    b = h.connect()
    a.send(b"a1", b"a2")
    b.send(b"b1", b"b2", b"b3")
    assert h.recv() == [b"a1", b"a2"]
    assert h.pattern.last_pipe is a.pipe
    assert h.recv() == [b"b1", b"b2", b"b3"]
    assert h.pattern.last_pipe is b.pipe


def test_pull_has_in_and_wakeup() -> None:
    h = Harness(Pull())
    assert not h.pattern.has_in()
    peer = h.connect()
    assert not h.pattern.has_in()
    peer.send(b"x")
    assert h.pattern.has_in()
    assert h.recv() == [b"x"]
    assert h.recv() is None


def test_pull_delivers_messages_of_a_departed_peer() -> None:
    h = Harness(Pull())
    peer = h.connect()
    peer.send(b"1")
    peer.send(b"2")
    peer.close()
    assert h.recv_all() == [[b"1"], [b"2"]]
    assert len(h.pattern._fq) == 0
