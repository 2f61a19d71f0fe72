"""A purezmq REQ whose libzmq REP dies mid-request recovers when a new REP
binds the same endpoint: with REQ_RELAXED (+ REQ_CORRELATE) by resending on
the same socket, or the lazy-pirate way with a new socket."""

from __future__ import annotations

from typing import Any

import pytest

import purezmq

from .helpers import bind, bind_retrying, free_tcp_endpoint, recv_or_none

pytestmark = pytest.mark.interop


def _rep_that_dies(peers: Any, endpoint: str, req: Any, request: bytes) -> None:
    """A libzmq REP that answers one request, then receives `request` and
    closes without answering."""
    rep = peers.lz("REP")
    bind_retrying(rep, endpoint)
    req.send(b"hello")
    assert rep.recv() == b"hello"
    rep.send(b"world")
    assert req.recv() == b"world"
    req.send(request)
    assert rep.recv() == request
    rep.close(linger=0)


@pytest.fixture
def fixed_endpoint() -> str:
    """A tcp endpoint with a concrete port that can be bound again."""
    return free_tcp_endpoint()


def test_req_relaxed_correlate_resends_after_rep_restart(peers: Any, fixed_endpoint: str) -> None:
    req = peers.pz("REQ", req_relaxed=1, req_correlate=1, reconnect_ivl=20)
    req.connect(fixed_endpoint)
    _rep_that_dies(peers, fixed_endpoint, req, b"lost request")
    assert recv_or_none(req, 100) is None
    # Strict REQ would say EFSM here; relaxed lets us send again.
    rep2 = peers.lz("REP")
    bind_retrying(rep2, fixed_endpoint)  # libzmq closes the old listener asynchronously
    req.send(b"retry")
    assert rep2.recv() == b"retry"
    rep2.send(b"answer")
    assert req.recv() == b"answer"
    # And the socket keeps working normally.
    req.send(b"next")
    assert rep2.recv() == b"next"
    rep2.send(b"done")
    assert req.recv() == b"done"


def test_req_relaxed_correlate_drops_stale_reply(peers: Any) -> None:
    """REQ_CORRELATE: a reply to an abandoned request is discarded, the reply to
    the current one is delivered (the libzmq ROUTER answers both, late first)."""
    router = peers.lz("ROUTER")
    ep = bind(router, "tcp://127.0.0.1:*")
    req = peers.pz("REQ", req_relaxed=1, req_correlate=1)
    req.connect(ep)
    req.send(b"first")
    rid, req_id1, empty, body = router.recv_multipart()
    assert (empty, body, len(req_id1)) == (b"", b"first", 4)
    req.send(b"second")  # relaxed: first one abandoned
    rid2, req_id2, _, body2 = router.recv_multipart()
    assert (rid2, body2) == (rid, b"second")
    assert req_id2 != req_id1
    router.send_multipart([rid, req_id1, b"", b"stale"])
    router.send_multipart([rid, req_id2, b"", b"fresh"])
    assert req.recv() == b"fresh"
    assert recv_or_none(req, 50) is None


def test_strict_req_is_stuck_then_lazy_pirate_recovers(peers: Any, fixed_endpoint: str) -> None:
    """Without REQ_RELAXED the REQ cannot send again (EFSM); the lazy pirate
    closes it with linger 0 and asks again on a new socket."""
    req = peers.pz("REQ", reconnect_ivl=20)
    req.connect(fixed_endpoint)
    _rep_that_dies(peers, fixed_endpoint, req, b"lost request")
    assert not req.poll(100)
    with pytest.raises(purezmq.ZMQError) as info:
        req.send(b"again")
    assert info.value.errno == purezmq.EFSM
    req.close(linger=0)

    rep2 = peers.lz("REP")
    bind_retrying(rep2, fixed_endpoint)  # libzmq closes the old listener asynchronously
    reply = None
    for attempt in range(3):
        req = peers.pz("REQ", reconnect_ivl=20)
        req.connect(fixed_endpoint)
        req.send(b"retry %d" % attempt)
        if rep2.poll(2000):
            rep2.send(b"answer to " + rep2.recv())
        if req.poll(2000):
            reply = req.recv()
            break
        req.close(linger=0)
    assert reply == b"answer to retry 0"
