"""XPUB (RFC 29; libzmq tests/test_xpub_verbose.cpp, test_xpub_manual.cpp,
test_xpub_welcome_msg.cpp, test_xpub_nodrop.cpp, test_xpub_manual_last_value.cpp)."""

from __future__ import annotations

import pytest

from purezmq._routing.errors import InvalidError
from purezmq._routing.patterns import XPub

from .helpers import Harness


def test_xpub_reports_new_subscriptions_only() -> None:
    h = Harness(XPub())
    sub = h.connect()
    sub.send(b"\x01A")
    assert h.pattern.has_in()
    assert h.recv() == [b"\x01A"]
    assert h.pattern.last_pipe is sub.pipe
    sub.send(b"\x01B")
    assert h.recv() == [b"\x01B"]
    sub.send(b"\x01A")  # duplicate: filtered
    assert h.recv() is None
    assert not h.pattern.has_in()


def test_xpub_verbose_two_subs() -> None:
    h = Harness(XPub())
    s0, s1 = h.connect(), h.connect()
    s0.send(b"\x01A")
    assert h.recv() == [b"\x01A"]
    s1.send(b"\x01A")
    assert h.recv() is None
    h.pattern.set_option("xpub_verbose", 1)
    s1.send(b"\x01A")
    assert h.recv() == [b"\x01A"]
    h.send(b"A")
    assert s0.recv_all() == [[b"A"]]
    assert s1.recv_all() == [[b"A"]]


def test_xpub_unsubscription_reported_when_last_pipe_leaves_topic() -> None:
    h = Harness(XPub())
    s0, s1 = h.connect(), h.connect()
    s0.send(b"\x01A")
    s1.send(b"\x01A")
    h.recv_all()
    s0.send(b"\x00A")
    assert h.recv() is None
    s1.send(b"\x00A")
    assert h.recv_all() == [[b"\x00A"]]


def test_xpub_cancel_of_unknown_topic_is_reported() -> None:
    """libzmq: notify = rm_result != values_remain, so NOT_FOUND is passed on."""
    h = Harness(XPub())
    s = h.connect()
    s.send(b"\x00never")
    assert h.recv() == [b"\x00never"]


def test_xpub_verboser_reports_every_cancel() -> None:
    h = Harness(XPub())
    h.pattern.set_option("xpub_verboser", 1)
    s0, s1 = h.connect(), h.connect()
    s0.send(b"\x01A")
    s1.send(b"\x01A")
    assert h.recv_all() == [[b"\x01A"], [b"\x01A"]]
    s1.send(b"\x00A")
    s0.send(b"\x00A")
    assert h.recv_all() == [[b"\x00A"], [b"\x00A"]]
    h.pattern.set_option("xpub_verbose", 1)  # verbose alone clears verbose unsubs
    s0.send(b"\x01A")
    s1.send(b"\x01A")
    h.recv_all()
    s0.send(b"\x00A")
    assert h.recv() is None


def test_xpub_departed_pipe_reports_vanished_topics() -> None:
    h = Harness(XPub())
    s0, s1 = h.connect(), h.connect()
    s0.send(b"\x01A")
    s0.send(b"\x01B")
    s1.send(b"\x01B")
    h.recv_all()
    s0.close()
    assert h.recv_all() == [[b"\x00A"]]
    assert h.pattern.last_pipe is None
    h.send(b"A")
    h.send(b"B")
    assert s1.recv_all() == [[b"B"]]


def test_xpub_departed_pipe_with_verboser_reports_all_its_topics() -> None:
    h = Harness(XPub())
    h.pattern.set_option("xpub_verboser", 1)
    s0, s1 = h.connect(), h.connect()
    s0.send(b"\x01B")
    s0.send(b"\x01A")
    s1.send(b"\x01B")
    h.recv_all()
    s0.close()
    assert h.recv_all() == [[b"\x00A"], [b"\x00B"]]


def test_xpub_reads_queued_subscriptions_of_a_departing_pipe() -> None:
    h = Harness(XPub())
    s = h.connect()
    s.end.set_owner(None)
    h.side.live.discard(s.pipe)  # the socket does not hear the wake-up
    s.send(b"\x01late")
    h.side.live.add(s.pipe)
    s.close()
    assert h.recv_all() == [[b"\x01late"], [b"\x00late"]]


def test_xpub_passes_user_messages_from_peers() -> None:
    h = Harness(XPub())
    s = h.connect()
    s.send(b"\x02A")
    s.send(b"hello", b"world")
    s.send(b"")
    assert h.recv_all() == [[b"\x02A"], [b"hello", b"world"], [b""]]


def test_xpub_every_frame_is_examined_like_libzmq() -> None:
    h = Harness(XPub())
    s = h.connect()
    s.send(b"data", b"\x01T", b"tail")
    # libzmq's frame stream: "data"(more) "\x01T"(end) "tail"(end)
    assert h.recv_all() == [[b"data", b"\x01T"], [b"tail"]]
    h.send(b"T1")
    assert s.recv_all() == [[b"T1"]]


def test_xpub_only_first_subscribe() -> None:
    h = Harness(XPub())
    h.pattern.set_option("only_first_subscribe", 1)
    s = h.connect()
    s.send(b"ABC", b"\x00BC")
    s.send(b"\x01A", b"\x01B")
    assert h.recv_all() == [[b"ABC", b"\x00BC"], [b"\x01A"], [b"\x01B"]]


def test_xpub_welcome_message() -> None:
    h = Harness(XPub())
    h.pattern.set_option("xpub_welcome_msg", b"W")
    sub = h.connect()
    assert sub.recv() == [b"W"]
    h.pattern.set_option("xpub_welcome_msg", b"")
    assert h.connect().recv() is None


def test_xpub_manual_subscriptions() -> None:
    """test_xpub_manual.cpp test_unsubscribe_manual."""
    h = Harness(XPub())
    h.pattern.set_option("xpub_manual", 1)
    sub = h.connect()
    sub.send(b"\x01A")
    sub.send(b"\x01B")
    assert h.recv() == [b"\x01A"]
    h.pattern.set_option("subscribe", b"XA")
    assert h.recv() == [b"\x01B"]
    h.pattern.set_option("subscribe", b"XB")
    sub.send(b"\x00A")
    assert h.recv() == [b"\x00A"]
    h.pattern.set_option("unsubscribe", b"XA")
    h.send(b"XA")
    h.send(b"XB")
    h.send(b"A")
    assert sub.recv_all() == [[b"XB"]]
    sub.close()
    assert h.recv() == [b"\x00B"]  # the manual subscription B leaves with the pipe
    h.pattern.set_option("unsubscribe", b"XB")  # no last pipe: silently nothing
    assert h.pattern._subs.num_prefixes() == 0


def test_xpub_manual_duplicates_are_all_reported() -> None:
    h = Harness(XPub())
    h.pattern.set_option("xpub_manual", 1)
    a, b = h.connect(), h.connect()
    a.send(b"\x01T")
    b.send(b"\x01T")
    assert h.recv_all() == [[b"\x01T"], [b"\x01T"]]


def test_xpub_subscribe_option_needs_manual_mode() -> None:
    x = XPub()
    with pytest.raises(InvalidError):
        x.set_option("subscribe", b"A")
    with pytest.raises(InvalidError):
        x.set_option("topics_count", 1)
    with pytest.raises(InvalidError):
        x.get_option("xpub_verbose")


def test_xpub_manual_last_value_sends_first_message_to_last_pipe_only() -> None:
    h = Harness(XPub())
    h.pattern.set_option("xpub_manual_last_value", 1)
    s1, s2 = h.connect(), h.connect()
    s1.send(b"\x011")
    assert h.recv() == [b"\x011"]
    h.pattern.set_option("subscribe", b"1")
    s2.send(b"\x011")
    assert h.recv() == [b"\x011"]
    h.pattern.set_option("subscribe", b"1")
    h.send(b"1", b"X")
    h.send(b"1", b"X")
    assert s2.recv_all() == [[b"1", b"X"], [b"1", b"X"]]
    assert s1.recv_all() == [[b"1", b"X"]]


def test_xpub_nodrop_blocks_instead_of_dropping() -> None:
    h = Harness(XPub())
    h.pattern.set_option("xpub_nodrop", 1)
    sub = h.connect(sndhwm=3)
    sub.send(b"\x01")
    assert h.recv() == [b"\x01"]
    sent = 0
    while h.send(b""):
        sent += 1
    assert sent == 3
    assert h.pattern.has_out()
    assert len(sub.recv_all()) == 3
    assert h.send(b"")


def test_xpub_pipe_full_drops_then_needs_activation() -> None:
    h = Harness(XPub())
    sub = h.connect(sndhwm=2)
    sub.send(b"\x01")
    for i in range(4):
        h.send(b"%d" % i)
    assert sub.recv() == [b"0"]  # back to the low-water mark: write_activated
    h.send(b"4")
    assert sub.recv_all() == [[b"1"], [b"4"]]


def test_xpub_topics_count() -> None:
    h = Harness(XPub())
    a, b = h.connect(), h.connect()
    a.send(b"\x01A")
    b.send(b"\x01A")
    b.send(b"\x01B")
    assert h.pattern.get_option("topics_count") == 2


def test_xpub_multipart_send_whole_and_mid_message_attach() -> None:
    h = Harness(XPub())
    a = h.connect()
    a.send(b"\x01")
    assert h.pattern.send(b"1", True)
    b = h.connect()
    b.send(b"\x01")
    assert h.pattern.send(b"2", False)
    h.send(b"3")
    assert a.recv_all() == [[b"1", b"2"], [b"3"]]
    assert b.recv_all() == [[b"3"]]


def test_xpub_manual_last_value_needs_manual_still_on() -> None:
    """libzmq restricts to the last pipe only when _manual && _send_last_pipe."""
    h = Harness(XPub())
    h.pattern.set_option("xpub_manual_last_value", 1)
    h.pattern.set_option("xpub_manual", 0)
    a, b = h.connect(), h.connect()
    a.send(b"\x01")
    b.send(b"\x01")  # applied automatically: manual is off
    assert h.recv_all() == [[b"\x01"]]
    h.send(b"x")
    assert a.recv_all() == [[b"x"]]
    assert b.recv_all() == [[b"x"]]
