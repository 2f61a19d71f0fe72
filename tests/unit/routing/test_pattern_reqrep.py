"""REQ and REP (RFC 28; libzmq tests/test_spec_req.cpp, test_spec_rep.cpp,
test_req_correlate.cpp, test_req_relaxed.cpp)."""

from __future__ import annotations

import sys

import pytest

from purezmq._routing.errors import FsmError
from purezmq._routing.patterns import Rep, Req

from .helpers import Harness, Peer


def bounce(peer: Peer) -> None:
    """A ROUTER-ish peer that echoes a request back as its reply."""
    msg = peer.recv()
    assert msg is not None
    peer.send(*msg)


# ------------------------------------------------------------------ REQ
def test_req_round_robin_out_and_reply() -> None:
    h = Harness(Req())
    reps = [h.connect() for _ in range(3)]
    for rep in reps:
        assert h.send(b"ABC")
        assert rep.recv() == [b"", b"ABC"]
        rep.send(b"", b"DEF")
        assert h.recv() == [b"DEF"]


def test_req_message_format_multipart() -> None:
    h = Harness(Req())
    router = h.connect()
    assert h.send(b"ABC", b"DEF")
    assert router.recv() == [b"", b"ABC", b"DEF"]
    router.send(b"", b"GHI")
    assert h.recv() == [b"GHI"]


def test_req_strict_fsm() -> None:
    h = Harness(Req())
    peer = h.connect()
    with pytest.raises(FsmError) as exc:
        h.recv()
    assert exc.value.errno_name == "EFSM"
    assert h.pattern.has_out()
    assert not h.pattern.has_in()
    assert h.send(b"q")
    assert not h.pattern.has_out()
    with pytest.raises(FsmError):
        h.send(b"again")
    with pytest.raises(FsmError):
        h.pattern.send_msg([b"again"])
    peer.recv()
    peer.send(b"", b"a")
    assert h.pattern.has_in()
    assert h.recv() == [b"a"]
    with pytest.raises(FsmError):
        h.recv()


def test_req_blocks_without_peers() -> None:
    h = Harness(Req())
    assert not h.send(b"x")
    assert not h.send_msg(b"x")
    with pytest.raises(FsmError):
        h.recv()  # nothing was sent


def test_req_only_listens_to_current_peer() -> None:
    h = Harness(Req())
    routers = [h.connect() for _ in range(3)]
    for i in range(3):
        assert h.send(b"ABC")
        assert routers[i].recv() == [b"", b"ABC"]
        for j, r in enumerate(routers):
            r.send(b"", b"GOOD" if i == j else b"WRONG")
        assert h.recv() == [b"GOOD"]


def test_req_discards_malformed_replies() -> None:
    h = Harness(Req())
    peer = h.connect()
    h.send(b"q")
    peer.send(b"no delimiter")
    peer.send(b"x", b"", b"bad bottom")
    peer.send(b"")  # delimiter without body
    assert h.recv() is None
    peer.send(b"", b"ok")
    assert h.recv() == [b"ok"]


def test_req_discards_queued_input_when_a_request_begins() -> None:
    h = Harness(Req())
    peer = h.connect()
    peer.send(b"", b"stale")  # arrived before any request
    assert h.send(b"q")
    assert peer.recv() == [b"", b"q"]
    assert h.recv() is None
    peer.send(b"", b"fresh")
    assert h.recv() == [b"fresh"]


def test_req_reply_pipe_gone_accepts_any_pipe() -> None:
    """libzmq forgets the reply pipe when it terminates and then takes the next
    well-formed reply from anyone."""
    h = Harness(Req())
    a, b = h.connect(), h.connect()
    h.send(b"q")  # -> a
    assert a.recv() == [b"", b"q"]
    a.close()
    b.send(b"", b"from b")
    assert h.recv() == [b"from b"]


def test_req_correlate() -> None:
    h = Harness(Req())
    h.pattern.set_option("req_correlate", 1)
    router = h.connect()
    assert h.send(b"ABC", b"DEF")
    msg = router.recv()
    assert msg is not None
    req_id, bottom, *body = msg
    assert len(req_id) == 4 and bottom == b"" and body == [b"ABC", b"DEF"]
    bad = ((int.from_bytes(req_id, sys.byteorder) + 1) & 0xFFFFFFFF).to_bytes(4, sys.byteorder)
    router.send(bad, b"", b"DATA")
    router.send(req_id, b"", b"GHI")
    assert h.recv() == [b"GHI"]


def test_req_correlate_ids_increment_and_need_delimiter() -> None:
    h = Harness(Req())
    h.pattern.set_option("req_correlate", 1)
    router = h.connect()
    h.send(b"1")
    first = router.recv()
    assert first is not None
    router.send(first[0], b"nodelim")  # right id, no delimiter: discarded
    router.send(first[0])  # id alone: discarded
    assert h.recv() is None
    router.send(first[0], b"", b"r1")
    assert h.recv() == [b"r1"]
    h.send_msg(b"2")
    second = router.recv()
    assert second is not None
    n1 = int.from_bytes(first[0], sys.byteorder)
    assert int.from_bytes(second[0], sys.byteorder) == (n1 + 1) & 0xFFFFFFFF
    assert second[1:] == [b"", b"2"]


def test_req_relaxed_case_1_second_send_before_reply() -> None:
    h = Harness(Req())
    h.pattern.set_option("req_relaxed", 1)
    rep = [h.connect() for _ in range(3)]
    assert h.pattern.has_out()
    assert h.send(b"A", b"B")
    assert rep[0].recv() == [b"", b"A", b"B"]
    assert h.pattern.has_out()  # relaxed: may send again
    assert h.send(b"C", b"D")
    assert rep[1].recv() == [b"", b"C", b"D"]
    rep[0].send(b"", b"WRONG")
    rep[1].send(b"", b"OK")
    assert h.recv() == [b"OK"]
    assert h.send(b"E")
    assert rep[2].recv() == [b"", b"E"]
    rep[2].send(b"", b"F", b"G")
    assert h.recv() == [b"F", b"G"]
    # case 3 (#1690): the pipe to rep[0] was not closed by the second send.
    assert not rep[0].end.peer_closed
    assert h.send(b"J")
    assert rep[0].recv() == [b"", b"J"]


def test_req_relaxed_case_2_reply_already_queued() -> None:
    h = Harness(Req())
    h.pattern.set_option("req_relaxed", 1)
    a, b = h.connect(), h.connect()
    h.send(b"H")
    assert a.recv() == [b"", b"H"]
    a.send(b"", b"BAD")
    h.send(b"I")  # the queued BAD reply is discarded when this request begins
    assert b.recv() == [b"", b"I"]
    b.send(b"", b"GOOD")
    assert h.recv() == [b"GOOD"]


def test_req_relaxed_correlate_case_4_answers_only_the_last_request() -> None:
    h = Harness(Req())
    h.pattern.set_option("req_relaxed", 1)
    h.pattern.set_option("req_correlate", 1)
    router = h.connect()
    h.send(b"TO_BE_DISCARDED")
    h.send(b"TO_BE_ANSWERED")
    bounce(router)
    bounce(router)
    assert h.recv() == [b"TO_BE_ANSWERED"]


def test_req_probe_router() -> None:
    h = Harness(Req())
    h.pattern.set_option("probe_router", 1)
    peer = h.connect()
    assert peer.recv() == [b""]


def test_req_send_msg_eagain_leaves_message_untouched() -> None:
    h = Harness(Req())
    h.pattern.set_option("req_relaxed", 1)
    h.pattern.set_option("req_correlate", 1)
    peer = h.connect(sndhwm=1)
    assert h.send_msg(b"1")  # fills the pipe; the peer does not read
    msg = [b"2"]
    assert not h.pattern.send_msg(msg)
    assert msg == [b"2"]
    assert not h.send(b"2")
    assert len(peer.recv_all()) == 1


def test_req_has_in_may_announce_a_message_to_be_discarded() -> None:
    """libzmq's REQ has_in is DEALER's (req.cpp "TODO: Duplicates should be removed")."""
    h = Harness(Req())
    _a, b = h.connect(), h.connect()
    h.send(b"q")  # -> a
    b.send(b"", b"not for us")
    assert h.pattern.has_in()
    assert h.recv() is None


def test_req_last_pipe() -> None:
    h = Harness(Req())
    peer = h.connect()
    h.send(b"q")
    peer.recv()
    peer.send(b"", b"r")
    h.recv()
    assert h.pattern.last_pipe is peer.pipe


# ------------------------------------------------------------------ REP
def test_rep_envelope_minimal_and_big() -> None:
    h = Harness(Rep())
    dealer = h.connect()
    dealer.send(b"", b"A")
    assert h.recv() == [b"A"]
    assert h.send(b"A")
    assert dealer.recv() == [b"", b"A"]
    dealer.send(b"X", b"Y", b"", b"A", b"B")
    assert h.recv() == [b"A", b"B"]
    assert h.send_msg(b"R1", b"R2")
    assert dealer.recv() == [b"X", b"Y", b"", b"R1", b"R2"]


def test_rep_fair_queue_in_and_reply_to_the_right_peer() -> None:
    h = Harness(Rep())
    reqs = [h.connect() for _ in range(3)]
    for i, r in enumerate(reqs):
        r.send(b"", b"%d" % i)
    for i in range(3):
        assert h.recv() == [b"%d" % i]
        assert h.send(b"re %d" % i)
    for i, r in enumerate(reqs):
        assert r.recv_all() == [[b"", b"re %d" % i]]


def test_rep_fsm() -> None:
    h = Harness(Rep())
    peer = h.connect()
    with pytest.raises(FsmError):
        h.send(b"x")
    with pytest.raises(FsmError):
        h.pattern.send_msg([b"x"])
    assert not h.pattern.has_out()
    peer.send(b"", b"q1")
    peer.send(b"", b"q2")
    assert h.pattern.has_in()
    assert h.recv() == [b"q1"]
    assert h.pattern.has_out()
    assert not h.pattern.has_in()
    with pytest.raises(FsmError):
        h.recv()
    assert h.send(b"part", b"s")
    assert h.recv() == [b"q2"]


def test_rep_drops_malformed_requests() -> None:
    h = Harness(Rep())
    peer = h.connect()
    peer.send(b"no delimiter")
    peer.send(b"a", b"b")
    peer.send(b"x", b"")  # delimiter but no body
    peer.send(b"", b"good")
    assert h.recv() == [b"good"]
    h.send(b"r")
    assert peer.recv_all() == [[b"", b"r"]]


def test_rep_reply_to_departed_peer_is_dropped() -> None:
    h = Harness(Rep())
    a, b = h.connect(), h.connect()
    a.send(b"", b"q")
    assert h.recv() == [b"q"]
    a.close()
    assert h.send(b"lost")  # silently dropped
    b.send(b"", b"q2")
    assert h.recv() == [b"q2"]
    assert h.send(b"r2")
    assert b.recv() == [b"", b"r2"]


def test_rep_reply_to_full_peer_is_dropped() -> None:
    h = Harness(Rep())
    peer = h.connect(sndhwm=1)
    peer.send(b"", b"q1")
    h.recv()
    h.send(b"r1")
    peer.send(b"", b"q2")
    h.recv()
    assert h.send(b"r2", b"more")  # full: dropped whole
    assert peer.recv_all() == [[b"", b"r1"]]


def test_rep_peer_gone_mid_reply_drops_the_rest() -> None:
    h = Harness(Rep())
    peer = h.connect()
    peer.send(b"", b"q")
    h.recv()
    assert h.pattern.send(b"a", True)
    peer.close()
    assert h.pattern.send(b"b", False)
    assert not h.pattern.has_out()  # reply finished
    assert peer.recv_all() == []


def test_rep_ignores_duplicate_identity_like_router() -> None:
    h = Harness(Rep())
    a = h.connect(identity=b"same")
    b = h.connect(identity=b"same")
    b.send(b"", b"ignored")
    a.send(b"", b"served")
    assert h.recv() == [b"served"]


def test_rep_accepts_router_options() -> None:
    rep = Rep()
    rep.set_option("router_handover", 1)
    rep.set_option("probe_router", 0)
    rep.set_option("router_mandatory", 1)
    assert not rep.has_out()


def test_rep_bytes_like_envelope_frames() -> None:
    h = Harness(Rep())
    peer = h.connect()
    peer.send(memoryview(b"id"), memoryview(b""), bytearray(b"body"))
    assert h.recv() == [bytearray(b"body")]
    assert h.send(b"r")
    got = peer.recv()
    assert got is not None
    assert [bytes(f) for f in got] == [b"id", b"", b"r"]


def test_req_multipart_request_dropped_when_peer_dies_mid_message() -> None:
    h = Harness(Req())
    a, b = h.connect(), h.connect()
    assert h.pattern.send(b"part1", True)  # delimiter + part1 pending on a
    a.close()
    assert h.pattern.send(b"part2", False)  # rest dropped, request "sent"
    assert a.recv_all() == []
    b.send(b"", b"answer")  # reply pipe is gone: libzmq accepts any pipe
    assert h.recv() == [b"answer"]
