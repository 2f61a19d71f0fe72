"""PUB / SUB / XSUB (RFC 29; libzmq tests/test_pubsub.cpp, test_sub_forward.cpp,
test_pub_invert_matching.cpp, test_xsub_verbose.cpp)."""

from __future__ import annotations

import pytest

from purezmq._routing.errors import InvalidError, NotSupportedError
from purezmq._routing.patterns import Pub, Sub, XSub

from .helpers import Harness

# ------------------------------------------------------------------ PUB


def test_pub_sends_to_matching_subscribers_only() -> None:
    h = Harness(Pub())
    a, b = h.connect(), h.connect()
    a.send(b"\x01A")
    b.send(b"\x01B")
    a.send(b"\x01")  # a also subscribes to everything
    for topic in (b"A1", b"B1", b"C1"):
        assert h.send(topic)
    assert a.recv_all() == [[b"A1"], [b"B1"], [b"C1"]]
    assert b.recv_all() == [[b"B1"]]


def test_pub_without_subscribers_drops() -> None:
    h = Harness(Pub())
    peer = h.connect()
    assert h.send(b"x")
    assert peer.recv() is None
    assert h.pattern.has_out()


def test_pub_multipart_matched_on_first_frame() -> None:
    h = Harness(Pub())
    peer = h.connect()
    peer.send(b"\x01top")
    assert h.send(b"topic", b"payload")
    assert h.send(b"other", b"topic")
    assert h.send_msg(b"top", b"2")
    assert peer.recv_all() == [[b"topic", b"payload"], [b"top", b"2"]]


def test_pub_cancel_and_peer_leaving() -> None:
    h = Harness(Pub())
    a, b = h.connect(), h.connect()
    a.send(b"\x01x")
    b.send(b"\x01x")
    a.send(b"\x00x")
    h.send(b"x1")
    assert a.recv_all() == []
    assert b.recv_all() == [[b"x1"]]
    b.close()
    h.send(b"x2")
    assert b.recv_all() == []
    assert len(h.pattern._subs._subs) == 0


def test_pub_ignores_other_messages_from_peers() -> None:
    h = Harness(Pub())
    peer = h.connect()
    peer.send(b"hello")
    peer.send(b"")
    peer.send(b"\x02A")
    h.send(b"hello")
    assert peer.recv() is None
    with pytest.raises(NotSupportedError):
        h.recv()


def test_pub_drops_for_slow_subscriber_only() -> None:
    """RFC 29: a subscriber at its HWM loses messages; others are not affected."""
    h = Harness(Pub())
    slow = h.connect(sndhwm=1)
    fast = h.connect()
    slow.send(b"\x01")
    fast.send(b"\x01")
    for i in range(3):
        assert h.send(b"%d" % i)
    assert slow.recv_all() == [[b"0"]]
    assert fast.recv_all() == [[b"0"], [b"1"], [b"2"]]


def test_pub_nodrop_returns_eagain() -> None:
    h = Harness(Pub())
    h.pattern.set_option("xpub_nodrop", 1)
    a = h.connect(sndhwm=1)
    b = h.connect(sndhwm=1)
    a.send(b"\x01A")
    b.send(b"\x01B")
    assert h.send(b"A1")
    assert not h.send(b"A2", b"more")  # a is full: refused whole, not dropped
    assert not h.send_msg(b"A2")
    assert h.send(b"B1")  # b is not full and a does not match
    assert h.pattern.has_out()  # libzmq's dist::has_out is always true
    assert a.recv() == [b"A1"]
    assert h.send(b"A2")
    assert a.recv_all() == [[b"A2"]]
    assert b.recv_all() == [[b"B1"]]


def test_pub_invert_matching() -> None:
    h = Harness(Pub())
    h.pattern.set_option("invert_matching", 1)
    assert h.pattern.get_option("invert_matching") == 1
    a, b = h.connect(), h.connect()
    a.send(b"\x01prefix")
    b.send(b"\x01p")
    h.send(b"prefix.1")  # matches both: nobody gets it
    h.send(b"p.2")  # matches b only: a gets it
    h.send(b"x.3")  # matches none: both
    h.send_msg(b"x.4", b"m")
    assert a.recv_all() == [[b"p.2"], [b"x.3"], [b"x.4", b"m"]]
    assert b.recv_all() == [[b"x.3"], [b"x.4", b"m"]]


def test_pub_subscription_arriving_later_is_processed_on_read_activated() -> None:
    h = Harness(Pub())
    peer = h.connect()
    h.send(b"before")
    peer.send(b"\x01")  # wakes the socket -> read_activated -> applied
    h.send(b"after")
    assert peer.recv_all() == [[b"after"]]


def test_pub_memoryview_topic() -> None:
    h = Harness(Pub())
    peer = h.connect()
    peer.send(memoryview(b"\x01ab"))
    h.send(memoryview(b"abc"))
    h.send(bytearray(b"abd"))
    assert [bytes(m[0]) for m in peer.recv_all()] == [b"abc", b"abd"]


# ------------------------------------------------------------------ SUB
def test_sub_subscribe_sends_subscription_to_all_and_new_pipes() -> None:
    h = Harness(Sub())
    a = h.connect()
    h.pattern.set_option("subscribe", b"A")
    assert a.recv() == [b"\x01A"]
    b = h.connect()
    assert b.recv() == [b"\x01A"]


def test_sub_counted_subscriptions() -> None:
    h = Harness(Sub())
    pub = h.connect()
    h.pattern.set_option("subscribe", b"A")
    h.pattern.set_option("subscribe", b"A")  # forwarded again (XPUB filters)
    h.pattern.set_option("unsubscribe", b"A")  # count 2 -> 1: not forwarded
    h.pattern.set_option("unsubscribe", b"A")  # -> 0: forwarded
    h.pattern.set_option("unsubscribe", b"A")  # unknown: not forwarded
    assert pub.recv_all() == [[b"\x01A"], [b"\x01A"], [b"\x00A"]]
    assert h.pattern.get_option("topics_count") == 0


def test_sub_filters_on_first_frame_and_keeps_multipart_whole() -> None:
    h = Harness(Sub())
    pub = h.connect()
    h.pattern.set_option("subscribe", b"yes")
    pub.send(b"no", b"yes")
    pub.send(b"yes.1", b"body", b"tail")
    pub.send(b"maybe")
    pub.send(b"yes.2")
    assert h.recv_all() == [[b"yes.1", b"body", b"tail"], [b"yes.2"]]


def test_sub_without_subscription_receives_nothing() -> None:
    h = Harness(Sub())
    pub = h.connect()
    pub.send(b"anything")
    assert not h.pattern.has_in()
    assert h.recv() is None


def test_sub_empty_subscription_receives_everything() -> None:
    h = Harness(Sub())
    pub = h.connect()
    h.pattern.set_option("subscribe", b"")
    pub.send(b"x")
    pub.send(b"")
    assert h.recv_all() == [[b"x"], [b""]]


def test_sub_filters_again_after_unsubscribing_everything() -> None:
    """The subscribe-to-everything shortcut ends with the b"" subscription;
    with invert_matching it never applies (b"" then matches nothing)."""
    h = Harness(Sub())
    pub = h.connect()
    h.pattern.set_option("subscribe", b"")
    h.pattern.set_option("subscribe", b"a")
    pub.send(b"b1")
    assert h.recv() == [b"b1"]
    assert h.pattern.last_pipe is pub.pipe
    h.pattern.set_option("unsubscribe", b"")
    pub.send(b"b2")
    pub.send(b"a2")
    assert h.recv_all() == [[b"a2"]]
    h.pattern.set_option("subscribe", b"")
    h.pattern.set_option("invert_matching", 1)
    pub.send(b"b3")
    assert h.recv_all() == []


def test_sub_has_in_prefetches_and_recv_returns_it() -> None:
    h = Harness(Sub())
    a, b = h.connect(), h.connect()
    h.pattern.set_option("subscribe", b"m")
    a.send(b"skip")
    a.send(b"m1")
    b.send(b"m2")
    assert h.pattern.has_in()  # fair queue: a's "skip" dropped, b's "m2" kept
    assert h.pattern.has_in()  # idempotent
    h.pattern.set_option("unsubscribe", b"m")
    assert h.recv() == [b"m2"]  # prefetched: delivered though unsubscribed
    assert h.pattern.last_pipe is b.pipe
    assert h.recv() is None  # m1 no longer matches


def test_sub_last_pipe_survives_prefetch() -> None:
    h = Harness(Sub())
    a, b = h.connect(), h.connect()
    h.pattern.set_option("subscribe", b"")
    a.send(b"from a")
    b.send(b"from b")
    assert h.recv() == [b"from a"]
    assert h.pattern.has_in()  # prefetches b's message
    assert h.pattern.last_pipe is a.pipe
    assert h.recv() == [b"from b"]
    assert h.pattern.last_pipe is b.pipe


def test_sub_invert_matching() -> None:
    h = Harness(Sub())
    h.pattern.set_option("invert_matching", 1)
    pub = h.connect()
    h.pattern.set_option("subscribe", b"prefix")
    pub.send(b"prefix.1")
    pub.send(b"other")
    assert h.recv_all() == [[b"other"]]
    assert h.pattern.get_option("invert_matching") == 1


def test_sub_resends_subscriptions_on_hiccup() -> None:
    h = Harness(Sub())
    pub = h.connect()
    for t in (b"b", b"a", b"a"):
        h.pattern.set_option("subscribe", t)
    pub.recv_all()
    pub.hiccup()
    assert pub.recv_all() == [[b"\x01a"], [b"\x01b"]]  # once each, sorted


def test_sub_cannot_send_and_rejects_xsub_options() -> None:
    s = Sub()
    with pytest.raises(NotSupportedError):
        s.send(b"\x01A", False)
    with pytest.raises(InvalidError):
        s.set_option("xsub_verbose_unsubscribe", 1)
    with pytest.raises(InvalidError):
        s.set_option("subscribe", "text")  # bytes only
    with pytest.raises(InvalidError):
        s.get_option("subscribe")


def test_sub_subscription_to_full_pipe_is_dropped() -> None:
    h = Harness(Sub())
    pub = h.connect(sndhwm=1)
    h.pattern.set_option("subscribe", b"a")
    h.pattern.set_option("subscribe", b"b")  # pipe full: dropped (as libzmq)
    assert pub.recv_all() == [[b"\x01a"]]


# ------------------------------------------------------------------ XSUB
def test_xsub_receives_unfiltered() -> None:
    """libzmq's XSUB runs with filtering off: the publisher filters."""
    h = Harness(XSub())
    pub = h.connect()
    pub.send(b"anything")
    assert h.pattern.has_in()
    assert h.recv() == [b"anything"]
    assert h.pattern.last_pipe is pub.pipe


def test_xsub_forwards_subscriptions_and_user_messages() -> None:
    h = Harness(XSub())
    a, b = h.connect(), h.connect()
    assert h.pattern.has_out()
    assert h.send(b"\x01A")
    assert h.send(b"\x01A")
    assert h.send(b"hello", b"world")
    assert h.send(b"\x00A")  # count 2 -> 1: swallowed
    assert h.send(b"\x00A", b"tail")  # -> 0: forwarded whole
    for p in (a, b):
        assert p.recv_all() == [[b"\x01A"], [b"\x01A"], [b"hello", b"world"], [b"\x00A", b"tail"]]


def test_xsub_swallowed_cancel_drops_whole_message() -> None:
    h = Harness(XSub())
    pub = h.connect()
    assert h.send(b"\x00never", b"subscribed")
    assert h.send(b"next")
    assert pub.recv_all() == [[b"next"]]


def test_xsub_verbose_unsubscribe() -> None:
    h = Harness(XSub())
    pub = h.connect()
    h.send(b"\x00A")
    assert pub.recv() is None
    h.pattern.set_option("xsub_verbose_unsubscribe", 1)
    h.send(b"\x00A")
    h.send_msg(b"\x01A")
    h.send_msg(b"\x01A")
    h.send_msg(b"\x00A")
    h.send_msg(b"\x00A")
    assert pub.recv_all() == [[b"\x00A"], [b"\x01A"], [b"\x01A"], [b"\x00A"], [b"\x00A"]]


def test_xsub_new_pipe_gets_current_subscriptions() -> None:
    h = Harness(XSub())
    h.send(b"\x01A")
    h.send_msg(b"\x01B")
    pub = h.connect()
    assert pub.recv_all() == [[b"\x01A"], [b"\x01B"]]
    assert h.pattern.get_option("topics_count") == 2


def test_xsub_send_msg_takes_ownership() -> None:
    h = Harness(XSub())
    pub = h.connect()
    msg = [b"\x01T"]
    assert h.pattern.send_msg(msg)
    assert pub.recv() is msg


def test_xsub_hiccup_resends_subscriptions() -> None:
    h = Harness(XSub())
    pub = h.connect()
    h.send(b"\x01A")
    pub.recv_all()
    pub.hiccup()
    assert pub.recv_all() == [[b"\x01A"]]


def test_pub_invert_with_nodrop_counts_only_targets() -> None:
    h = Harness(Pub())
    h.pattern.set_option("invert_matching", 1)
    h.pattern.set_option("xpub_nodrop", 1)
    a = h.connect(sndhwm=1)
    b = h.connect(sndhwm=1)
    a.send(b"\x01A")  # with inversion: a gets everything but A...
    b.send(b"\x01B")
    assert h.send(b"A1")  # -> b only
    assert not h.send(b"A2")  # b full: refused
    assert h.send(b"B1")  # -> a only
    assert a.recv_all() == [[b"B1"]]
    assert b.recv_all() == [[b"A1"]]


def test_pub_welcome_message_is_sent_like_libzmq() -> None:
    h = Harness(Pub())
    h.pattern.set_option("xpub_welcome_msg", b"hi")
    assert h.connect().recv() == [b"hi"]
