"""DEALER and ROUTER (RFC 28; libzmq tests/test_spec_dealer.cpp,
test_spec_router.cpp, test_router_mandatory.cpp, test_router_handover.cpp,
test_probe_router.cpp)."""

from __future__ import annotations

import pytest

from purezmq._routing.errors import HostUnreachableError, InvalidError
from purezmq._routing.patterns import Dealer, Router

from .helpers import Harness

# ------------------------------------------------------------------ DEALER


def test_dealer_round_robin_out_fair_queue_in() -> None:
    h = Harness(Dealer())
    a, b = h.connect(), h.connect()
    for i in range(4):
        assert h.send(b"%d" % i)
    assert a.recv_all() == [[b"0"], [b"2"]]
    assert b.recv_all() == [[b"1"], [b"3"]]
    a.send(b"a1")
    a.send(b"a2")
    b.send(b"b1")
    assert [m[0] for m in h.recv_all()] == [b"a1", b"b1", b"a2"]


def test_dealer_blocks_without_peers() -> None:
    h = Harness(Dealer())
    assert not h.send(b"x")
    assert not h.pattern.has_out()
    assert not h.pattern.has_in()


def test_dealer_probe_router_sends_empty_message_on_attach() -> None:
    h = Harness(Dealer())
    h.pattern.set_option("probe_router", 1)
    peer = h.connect()
    assert peer.recv() == [b""]
    assert h.send(b"hi")
    assert peer.recv() == [b"hi"]


def test_dealer_options() -> None:
    d = Dealer()
    with pytest.raises(InvalidError):
        d.get_option("probe_router")  # write-only in libzmq
    with pytest.raises(InvalidError):
        d.set_option("router_mandatory", 1)


def test_dealer_disconnected_peer_is_forgotten_both_ways() -> None:
    h = Harness(Dealer())
    a, b = h.connect(), h.connect()
    a.send(b"last")
    a.close()
    for _ in range(3):
        assert h.send(b"x")
    assert b.recv_all() == [[b"x"]] * 3
    assert h.recv_all() == [[b"last"]]


# ------------------------------------------------------------------ ROUTER
def test_router_fair_queue_in_with_routing_id_prefix() -> None:
    h = Harness(Router())
    peers = [h.connect(identity=bytes([65 + i])) for i in range(3)]
    for p in peers:
        p.send(b"M")
        p.send(b"N")
    got = h.recv_all()
    assert got == [
        [b"A", b"M"],
        [b"B", b"M"],
        [b"C", b"M"],
        [b"A", b"N"],
        [b"B", b"N"],
        [b"C", b"N"],
    ]
    assert h.pattern.last_pipe is peers[2].pipe


def test_router_routes_by_first_frame() -> None:
    h = Harness(Router())
    a, b = h.connect(identity=b"A"), h.connect(identity=b"B")
    assert h.send(b"B", b"to b", b"part 2")
    assert h.send_msg(b"A", b"to a")
    assert a.recv_all() == [[b"to a"]]
    assert b.recv_all() == [[b"to b", b"part 2"]]


def test_router_generated_id_for_anonymous_peer_is_usable() -> None:
    h = Harness(Router())
    peer = h.connect()
    peer.send(b"hello")
    rid, body = h.recv()  # type: ignore[misc]
    assert len(rid) == 5 and rid[0] == 0
    assert body == b"hello"
    assert h.send(rid, b"reply")
    assert peer.recv() == [b"reply"]


def test_router_unknown_peer_silently_dropped() -> None:
    h = Harness(Router())
    a = h.connect(identity=b"A")
    assert h.send(b"UNKNOWN", b"DATA")
    assert h.send_msg(b"UNKNOWN", b"DATA")
    assert a.recv() is None
    assert h.pattern.has_out()


def test_router_lone_routing_id_is_ignored() -> None:
    h = Harness(Router())
    a = h.connect(identity=b"A")
    assert h.send(b"A")  # no MORE: nothing to route, silently ignored
    h.pattern.set_option("router_mandatory", 1)
    assert h.send(b"NOBODY")  # even with mandatory (libzmq)
    assert h.send(b"A", b"ok")
    assert a.recv_all() == [[b"ok"]]


def test_router_mandatory_unknown_peer_is_ehostunreach() -> None:
    h = Harness(Router())
    h.pattern.set_option("router_mandatory", 1)
    with pytest.raises(HostUnreachableError) as exc:
        h.pattern.send(b"UNKNOWN", True)
    assert exc.value.errno_name == "EHOSTUNREACH"
    with pytest.raises(HostUnreachableError):
        h.pattern.send_msg([b"UNKNOWN", b"x"])
    a = h.connect(identity=b"X")
    assert h.send(b"X", b"Hello")  # the failed send left no state behind
    assert a.recv() == [b"Hello"]


def test_router_mandatory_full_peer_is_eagain_and_has_out() -> None:
    h = Harness(Router())
    h.pattern.set_option("router_mandatory", 1)
    assert not h.pattern.has_out()  # no peers at all
    a = h.connect(identity=b"A", sndhwm=1)
    assert h.pattern.has_out()
    assert h.send(b"A", b"1")
    assert not h.pattern.has_out()
    msg = [b"A", b"2"]
    assert not h.pattern.send_msg(msg)
    assert msg == [b"A", b"2"]  # untouched on EAGAIN
    assert not h.pattern.send(b"A", True)
    b = h.connect(identity=b"B")
    assert h.pattern.has_out()  # some peer has room
    assert a.recv() == [b"1"]
    assert h.send_msg(b"A", b"2")
    assert a.recv() == [b"2"]
    assert b.recv() is None


def test_router_mandatory_closing_peer_is_ehostunreach() -> None:
    h = Harness(Router())
    h.pattern.set_option("router_mandatory", 1)
    a = h.connect(identity=b"A")
    a.pipe.close()  # we are closing it ourselves; the pattern was not told yet
    with pytest.raises(HostUnreachableError):
        h.send(b"A", b"x")


def test_router_full_peer_without_mandatory_drops_whole_message() -> None:
    h = Harness(Router())
    a = h.connect(identity=b"A", sndhwm=1)
    assert h.send(b"A", b"1")
    assert h.send(b"A", b"2", b"3")  # dropped
    assert h.pattern.has_out()
    assert a.recv_all() == [[b"1"]]


def test_router_peer_disconnect_mid_message_drops_the_rest() -> None:
    h = Harness(Router())
    a = h.connect(identity=b"A")
    assert h.pattern.send(b"A", True)
    assert h.pattern.send(b"x", True)
    a.close()
    assert h.pattern.send(b"y", False)
    b = h.connect(identity=b"A")  # same id comes back: fresh pipe
    assert h.send(b"A", b"z")
    assert a.recv_all() == []
    assert b.recv_all() == [[b"z"]]


def test_router_departed_peer_not_routable_but_its_messages_delivered() -> None:
    h = Harness(Router())
    h.pattern.set_option("router_mandatory", 1)
    a = h.connect(identity=b"A")
    a.send(b"bye")
    a.close()
    with pytest.raises(HostUnreachableError):
        h.send(b"A", b"x")
    assert h.recv() == [b"A", b"bye"]
    assert h.recv() is None


def test_router_without_handover_ignores_duplicate_identity() -> None:
    h = Harness(Router())
    one = h.connect(identity=b"X")
    one.send(b"Hello")
    assert h.recv() == [b"X", b"Hello"]
    two = h.connect(identity=b"X")
    two.send(b"Hello")
    assert h.recv() is None  # the duplicate is never read
    assert h.send(b"X", b"Hello")
    assert one.recv() == [b"Hello"]
    assert two.recv() is None


def test_router_handover_gives_the_id_to_the_newcomer() -> None:
    h = Harness(Router())
    h.pattern.set_option("router_handover", 1)
    one = h.connect(identity=b"X")
    one.send(b"Hello")
    assert h.recv() == [b"X", b"Hello"]
    one.send(b"unread")
    two = h.connect(identity=b"X")
    assert one.end.peer_closed  # the old pipe was closed by the router
    two.send(b"Hello 2")
    assert h.recv_all() == [[b"X", b"Hello 2"]]  # the old pipe's queue is dropped
    assert h.send(b"X", b"Hello")
    assert two.recv() == [b"Hello"]
    assert one.recv() is None
    one.close()  # its termination must not remove the newcomer
    assert h.send(b"X", b"again")
    assert two.recv() == [b"again"]


def test_router_connect_side_pipe_anonymous_until_identified() -> None:
    h = Harness(Router())
    h.pattern.set_option("router_mandatory", 1)
    peer = h.connect(locally_initiated=True)
    peer.send(b"early")
    assert h.recv() is None  # not read while anonymous
    with pytest.raises(HostUnreachableError):
        h.send(b"S", b"x")
    h.identified(peer, b"S")
    assert h.recv() == [b"S", b"early"]
    assert h.send(b"S", b"x")
    assert peer.recv() == [b"x"]


def test_router_connect_routing_id_preset() -> None:
    h = Harness(Router())
    h.pattern.set_option("connect_routing_id", b"mine")  # accepted, no-op here
    peer = h.connect(locally_initiated=True, routing_id=b"mine", identity=b"theirs")
    assert h.send(b"mine", b"x")
    assert peer.recv() == [b"x"]


def test_router_probe_router() -> None:
    """test_probe_router: a ROUTER client with PROBE_ROUTER sends an empty message."""
    h = Harness(Router())
    h.pattern.set_option("probe_router", 1)
    server = h.connect(identity=b"SRV")
    assert server.recv() == [b""]


def test_router_unsupported_options() -> None:
    r = Router()
    r.set_option("router_raw", 0)
    r.set_option("router_notify", 0)
    with pytest.raises(InvalidError, match="not supported"):
        r.set_option("router_raw", 1)
    with pytest.raises(InvalidError, match="not supported"):
        r.set_option("router_notify", 3)
    with pytest.raises(InvalidError):
        r.get_option("router_mandatory")


def test_router_bytes_like_routing_id() -> None:
    h = Harness(Router())
    a = h.connect(identity=b"A")
    assert h.send(bytearray(b"A"), b"1")
    assert h.send(memoryview(b"A"), b"2")
    assert a.recv_all() == [[b"1"], [b"2"]]


def test_dealer_and_router_keep_multipart_messages_whole() -> None:
    d = Harness(Dealer())
    a, b = d.connect(), d.connect()
    a.send(b"a1", b"a2", b"a3")
    b.send(b"b1", b"b2")
    assert d.recv_all() == [[b"a1", b"a2", b"a3"], [b"b1", b"b2"]]
    r = Harness(Router())
    x = r.connect(identity=b"X")
    x.send(b"1", b"2")
    assert r.recv() == [b"X", b"1", b"2"]
