"""PAIR (RFC 31; libzmq src/pair.cpp)."""

from __future__ import annotations

from purezmq._routing.patterns import Pair

from .helpers import Harness


def test_pair_exchanges_both_ways() -> None:
    h = Harness(Pair())
    peer = h.connect()
    assert h.send(b"a", b"b")
    assert peer.recv() == [b"a", b"b"]
    peer.send(b"c")
    assert h.pattern.has_in()
    assert h.recv() == [b"c"]
    assert h.pattern.last_pipe is peer.pipe


def test_pair_refuses_a_second_peer() -> None:
    h = Harness(Pair())
    first = h.connect()
    second = h.connect()
    assert second.end.peer_closed  # the pattern closed its end of the pipe
    assert second.recorder.count("closed") == 1
    second.send(b"ignored")  # refused pipe: writes fail or are never read
    assert h.send(b"x")
    assert first.recv() == [b"x"]
    assert second.recv() is None
    assert h.recv() is None


def test_pair_without_peer_blocks() -> None:
    h = Harness(Pair())
    assert not h.pattern.has_out()
    assert not h.send(b"x")
    assert not h.send_msg(b"x")
    assert h.recv() is None
    assert not h.pattern.has_in()


def test_pair_full_peer_blocks_and_has_out() -> None:
    h = Harness(Pair())
    peer = h.connect(sndhwm=1)
    assert h.pattern.has_out()
    assert h.send(b"1")
    assert not h.pattern.has_out()
    assert not h.send(b"2", b"more")
    peer.recv()
    assert h.send_msg(b"2")
    assert peer.recv() == [b"2"]


def test_pair_accepts_new_peer_after_old_one_left_and_delivers_old_messages() -> None:
    h = Harness(Pair())
    old = h.connect()
    old.send(b"from old")
    old.close()
    new = h.connect()
    assert not new.end.peer_closed
    assert h.send(b"hello")
    assert new.recv() == [b"hello"]
    assert h.recv() == [b"from old"]


def test_pair_peer_gone_mid_message_drops_the_rest() -> None:
    h = Harness(Pair())
    peer = h.connect()
    assert h.pattern.send(b"a", True)
    assert h.pattern.has_out()
    peer.close()
    assert h.pattern.send(b"b", False)
    assert not h.pattern.has_out()
    fresh = h.connect()
    assert h.send(b"c")
    assert fresh.recv_all() == [[b"c"]]
