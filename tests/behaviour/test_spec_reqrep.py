"""REQ/REP (RFC 28), modelled on libzmq's tests/test_spec_req.cpp,
test_spec_rep.cpp, test_req_relaxed.cpp and test_req_correlate.cpp."""

from __future__ import annotations

import time

import pytest

import purezmq as zmq
from tests.conftest import wait_until

from .conftest import bind_any, wait_for_peers

SERVICES = 3


def _who_got_it(socks, timeout_ms=5000):
    poller = zmq.Poller()
    for s in socks:
        poller.register(s, zmq.POLLIN)
    ready = dict(poller.poll(timeout_ms))
    assert len(ready) == 1, f"exactly one peer should get the request, got {len(ready)}"
    (sock,) = ready
    return socks.index(sock)


# ------------------------------------------------------------ test_spec_req
def test_req_round_robin_out(make, endpoint_for, transport):
    req = make(zmq.REQ)
    ep = bind_any(req, endpoint_for(transport))
    reps = [make(zmq.REP) for _ in range(SERVICES)]
    for r in reps:
        wait_for_peers(req, lambda r=r: r.connect(ep), 1, transport)

    order = []
    for _ in range(2 * SERVICES):
        req.send(b"ABC")
        i = _who_got_it(reps)
        assert reps[i].recv() == b"ABC"
        reps[i].send(b"DEF")
        assert req.recv() == b"DEF"
        order.append(i)
    # Each REP used once per round, in the same order every round.
    assert sorted(order[:SERVICES]) == list(range(SERVICES))
    assert order[SERVICES:] == order[:SERVICES]


def test_req_only_listens_to_current_peer(make, endpoint_for, transport):
    req = make(zmq.REQ, routing_id=b"A")
    ep = bind_any(req, endpoint_for(transport))
    routers = [make(zmq.ROUTER, router_mandatory=1) for _ in range(SERVICES)]
    for r in routers:
        # Both ends must be through the handshake: a ROUTER_MANDATORY router
        # that has not yet attached "A" would refuse the WRONG replies.
        wait_for_peers(
            req,
            lambda r=r: wait_for_peers(r, lambda r=r: r.connect(ep), 1, transport),
            1,
            transport,
        )

    for _ in range(SERVICES):
        req.send(b"ABC")
        i = _who_got_it(routers)
        assert routers[i].recv_multipart() == [b"A", b"", b"ABC"]
        # Replies from every router; only the current peer's counts.
        for j, r in enumerate(routers):
            if j != i:
                r.send_multipart([b"A", b"", b"WRONG"])
        # The WRONG replies travel on other connections than GOOD, so nothing
        # orders them: one still on the wire when GOOD is taken would be the
        # first message of its connection when that peer is asked next - a
        # reply to the new request for REQ, and for libzmq's REQ too (what
        # REQ_CORRELATE is for). So GOOD goes once they are all queued.
        wait_until(lambda: req.get_stats()["queued_in"] == SERVICES - 1)
        routers[i].send_multipart([b"A", b"", b"GOOD"])
        assert req.recv() == b"GOOD"


def test_req_message_format(make, endpoint_for, transport):
    req = make(zmq.REQ)
    ep = bind_any(req, endpoint_for(transport))
    router = make(zmq.ROUTER)
    router.connect(ep)

    req.send_multipart([b"ABC", b"DEF"])
    peer = router.recv()
    assert len(peer) > 0
    assert router.get(zmq.RCVMORE) == 1
    assert router.recv_multipart() == [b"", b"ABC", b"DEF"]

    router.send(peer, zmq.SNDMORE)
    router.send_multipart([b"", b"GHI"])
    assert req.recv_multipart() == [b"GHI"]


def test_req_block_on_send_no_peers(make):
    req = make(zmq.REQ, sndtimeo=250)
    with pytest.raises(zmq.Again):
        req.send(b"", zmq.NOBLOCK)
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        req.send(b"")
    assert time.monotonic() - t0 >= 0.24


def test_req_strict_efsm(make, endpoint_for, transport):
    """REQ: recv before send and a second send before the reply are EFSM."""
    rep = make(zmq.REP)
    ep = bind_any(rep, endpoint_for(transport))
    req = make(zmq.REQ)
    req.connect(ep)

    with pytest.raises(zmq.ZMQError) as e:
        req.recv()
    assert e.value.errno == zmq.EFSM
    req.send(b"one")
    with pytest.raises(zmq.ZMQError) as e:
        req.send(b"two")
    assert e.value.errno == zmq.EFSM
    # A REQ waiting for its reply is not writable.
    assert req.poll(0, zmq.POLLOUT) == 0

    assert rep.recv() == b"one"
    rep.send(b"reply")
    assert req.recv() == b"reply"
    # The cycle starts again.
    with pytest.raises(zmq.ZMQError) as e:
        req.recv(zmq.NOBLOCK)
    assert e.value.errno == zmq.EFSM
    req.send(b"three")
    assert rep.recv() == b"three"


def test_rep_strict_efsm(make, endpoint_for, transport):
    """REP: send before recv and recv twice are EFSM."""
    rep = make(zmq.REP)
    ep = bind_any(rep, endpoint_for(transport))
    req = make(zmq.REQ)
    req.connect(ep)

    with pytest.raises(zmq.ZMQError) as e:
        rep.send(b"nothing asked")
    assert e.value.errno == zmq.EFSM
    req.send(b"q")
    assert rep.recv() == b"q"
    with pytest.raises(zmq.ZMQError) as e:
        rep.recv()
    assert e.value.errno == zmq.EFSM
    rep.send(b"a")
    assert req.recv() == b"a"


# ------------------------------------------------------------ test_spec_rep
def test_rep_fair_queue_in(make, endpoint_for, transport):
    rep = make(zmq.REP)
    ep = bind_any(rep, endpoint_for(transport))
    reqs = [make(zmq.REQ) for _ in range(SERVICES)]
    for r in reqs:
        r.connect(ep)
    for _ in range(2):
        reqs[0].send(b"A")
        assert rep.recv() == b"A"
        rep.send(b"A")
        assert reqs[0].recv() == b"A"

    # One request from each; each reply goes back to the right requester.
    for i, r in enumerate(reqs):
        r.send(b"%d" % i)
    seen = set()
    for _ in reqs:
        body = rep.recv()
        seen.add(body)
        rep.send(b"re:" + body)
    assert seen == {b"%d" % i for i in range(SERVICES)}
    for i, r in enumerate(reqs):
        assert r.recv() == b"re:%d" % i


def test_rep_fair_queue_in_inproc(make):
    rep = make(zmq.REP)
    rep.bind("inproc://rep-fq")
    reqs = [make(zmq.REQ) for _ in range(SERVICES)]
    for r in reqs:
        r.connect("inproc://rep-fq")
    for i, r in enumerate(reqs):
        r.send(b"%d" % i)
    first = []
    for _ in reqs:
        first.append(rep.recv())
        rep.send(b"ok")
    assert sorted(first) == [b"%d" % i for i in range(SERVICES)]


def test_rep_envelope(make, endpoint_for, transport):
    rep = make(zmq.REP)
    ep = bind_any(rep, endpoint_for(transport))
    dealer = make(zmq.DEALER)
    dealer.connect(ep)

    # minimal envelope
    dealer.send_multipart([b"", b"A"])
    assert rep.recv_multipart() == [b"A"]
    rep.send(b"A")
    assert dealer.recv_multipart() == [b"", b"A"]

    # big envelope
    dealer.send_multipart([b"X", b"Y", b"", b"A"])
    assert rep.recv_multipart() == [b"A"]
    rep.send_multipart([b"B", b"C"])
    assert dealer.recv_multipart() == [b"X", b"Y", b"", b"B", b"C"]


def test_rep_drops_malformed_request(make, endpoint_for, transport):
    """libzmq test_invalid_rep: a request without a delimiter is dropped."""
    rep = make(zmq.REP)
    ep = bind_any(rep, endpoint_for(transport))
    dealer = make(zmq.DEALER)
    dealer.connect(ep)
    dealer.send_multipart([b"no-delimiter"])
    dealer.send_multipart([b"", b"good"])
    assert rep.recv() == b"good"


# ------------------------------------------------------------ relaxed / correlate
def test_req_relaxed_resend_and_correlate(make, endpoint_for, transport):
    """test_req_relaxed: a new request while waiting; only the newest reply
    is delivered (REQ_CORRELATE tells the stale one apart)."""
    req = make(zmq.REQ, req_relaxed=1, req_correlate=1)
    ep = bind_any(req, endpoint_for(transport))
    rep = make(zmq.REP)
    rep.connect(ep)

    req.send(b"A")
    assert rep.recv() == b"A"
    rep.send(b"reply-A")
    req.send(b"B")  # no EFSM in relaxed mode
    assert rep.recv() == b"B"
    rep.send(b"reply-B")
    assert req.recv() == b"reply-B"
    # reply-A was discarded, not kept for later.
    req.send(b"C")
    assert rep.recv() == b"C"
    rep.send(b"reply-C")
    assert req.recv() == b"reply-C"


def test_req_relaxed_resend_to_next_peer(make, endpoint_for, transport):
    """test_req_relaxed case 1: the second request goes to the next peer, and
    the first peer's late reply is ignored."""
    req = make(zmq.REQ, req_relaxed=1, req_correlate=1)
    ep = bind_any(req, endpoint_for(transport))
    reps = [make(zmq.REP) for _ in range(2)]
    for r in reps:
        wait_for_peers(req, lambda r=r: r.connect(ep), 1, transport)

    req.send(b"A")
    first = _who_got_it(reps)
    assert reps[first].recv() == b"A"
    req.send(b"B")
    second = _who_got_it([reps[1 - first]])
    assert second == 0
    assert reps[1 - first].recv() == b"B"
    reps[1 - first].send(b"reply-B")
    reps[first].send(b"reply-A")
    assert req.recv() == b"reply-B"
    # The previous peer is still usable (libzmq issue #1690).
    req.send(b"C")
    i = _who_got_it(reps)
    assert reps[i].recv() == b"C"


def test_req_correlate(make, endpoint_for, transport):
    """test_req_correlate: a request id frame precedes the delimiter; a reply
    with another id is dropped."""
    req = make(zmq.REQ, req_correlate=1)
    ep = bind_any(req, endpoint_for(transport))
    router = make(zmq.ROUTER)
    router.connect(ep)

    req.send(b"X")
    peer, req_id, delim, body = router.recv_multipart()
    assert len(req_id) == 4
    assert (delim, body) == (b"", b"X")

    bad_id = bytes(b ^ 0xFF for b in req_id)
    router.send_multipart([peer, bad_id, b"", b"stale"])
    router.send_multipart([peer, req_id, b"", b"good"])
    assert req.recv() == b"good"

    req.send(b"Y")
    _, next_id, _, _ = router.recv_multipart()
    assert next_id != req_id


def test_req_without_relaxed_rejects_resend_but_relaxed_allows(make):
    strict = make(zmq.REQ)
    relaxed = make(zmq.REQ, req_relaxed=1)
    rep = make(zmq.REP)
    rep.bind("inproc://relaxed-vs-strict")
    strict.connect("inproc://relaxed-vs-strict")
    relaxed.connect("inproc://relaxed-vs-strict")
    strict.send(b"1")
    relaxed.send(b"1")
    with pytest.raises(zmq.ZMQError):
        strict.send(b"2")
    relaxed.send(b"2")
    assert relaxed.poll(0, zmq.POLLOUT) == zmq.POLLOUT
