"""PUSH/PULL (RFC 30), modelled on libzmq's tests/test_spec_pushpull.cpp."""

from __future__ import annotations

import time

import pytest

import purezmq as zmq

from .conftest import TIMEOUT_MS, bind_any, wait_for_peers, wait_until

SERVICES = 3


def test_push_round_robin_out(make, endpoint_for, transport):
    push = make(zmq.PUSH)
    ep = bind_any(push, endpoint_for(transport))
    pulls = [make(zmq.PULL) for _ in range(SERVICES)]
    for p in pulls:
        wait_for_peers(push, lambda p=p: p.connect(ep), 1, transport)

    for _ in range(SERVICES):
        push.send(b"ABC")
    for _ in range(SERVICES):
        push.send(b"DEF")

    # Every PULL got one of each, in order.
    for p in pulls:
        assert p.recv() == b"ABC"
        assert p.recv() == b"DEF"
        assert p.poll(0) == 0


def test_push_round_robin_multipart_is_atomic(make, endpoint_for, transport):
    push = make(zmq.PUSH)
    ep = bind_any(push, endpoint_for(transport))
    pulls = [make(zmq.PULL) for _ in range(2)]
    for p in pulls:
        wait_for_peers(push, lambda p=p: p.connect(ep), 1, transport)
    for i in range(4):
        push.send_multipart([b"%d" % i, b"a", b"b"])
    got = [pulls[0].recv_multipart(), pulls[0].recv_multipart()]
    got += [pulls[1].recv_multipart(), pulls[1].recv_multipart()]
    assert all(m[1:] == [b"a", b"b"] for m in got)
    assert sorted(m[0] for m in got) == [b"0", b"1", b"2", b"3"]
    # Message k and k+2 went to the same peer (alternation).
    assert {got[0][0], got[1][0]} in ({b"0", b"2"}, {b"1", b"3"})


def test_pull_fair_queue_in_inproc(make):
    """Exact fair-queueing: over inproc the messages are queued synchronously."""
    pull = make(zmq.PULL)
    ep = bind_any(pull, "inproc://fair-queue-in")
    pushes = [make(zmq.PUSH) for _ in range(SERVICES)]
    for p in pushes:
        p.connect(ep)
    for i, p in enumerate(pushes):
        p.send(b"A%d" % i)
        p.send(b"B%d" % i)

    first = {pull.recv() for _ in range(SERVICES)}
    second = {pull.recv() for _ in range(SERVICES)}
    assert first == {b"A%d" % i for i in range(SERVICES)}
    assert second == {b"B%d" % i for i in range(SERVICES)}


def test_pull_fair_queue_in(make, endpoint_for, transport):
    """Every peer's messages arrive, each peer's in its order (all transports)."""
    pull = make(zmq.PULL)
    ep = bind_any(pull, endpoint_for(transport))
    pushes = [make(zmq.PUSH) for _ in range(SERVICES)]
    for p in pushes:
        p.connect(ep)
    n = 50
    for i in range(n):
        for j, p in enumerate(pushes):
            p.send_multipart([b"%d" % j, b"%d" % i])
    per_peer: dict[bytes, list[int]] = {b"%d" % j: [] for j in range(SERVICES)}
    for _ in range(n * SERVICES):
        peer, seq = pull.recv_multipart()
        per_peer[peer].append(int(seq))
    assert all(seqs == list(range(n)) for seqs in per_peer.values())
    assert pull.poll(0) == 0


def test_push_block_on_send_no_peers(make):
    push = make(zmq.PUSH, sndtimeo=250)
    push.bind("inproc://push-no-peers")
    with pytest.raises(zmq.Again):
        push.send(b"", zmq.NOBLOCK)
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        push.send(b"")
    assert time.monotonic() - t0 >= 0.24


def test_destroy_queue_on_disconnect(make, endpoint_for, transport):
    """A PUSH's queue to a peer that disconnected is dropped; the reconnected
    peer gets only what is sent afterwards."""
    push = make(zmq.PUSH)
    ep = bind_any(push, endpoint_for(transport))
    pull = make(zmq.PULL)
    wait_for_peers(push, lambda: pull.connect(ep), 1, transport)

    push.send(b"ABC", zmq.NOBLOCK)
    # The PULL does not read it; it disconnects instead.
    pull.disconnect(ep)
    # The PUSH has no peer any more (no POLLOUT): sends block (EAGAIN with NOBLOCK).
    # (Polling both lets libzmq process the disconnect's commands.)
    wait_until(lambda: pull.poll(0) == 0 and push.poll(0, zmq.POLLOUT) == 0)
    with pytest.raises(zmq.Again):
        push.send(b"DEF", zmq.NOBLOCK)

    pull.connect(ep)
    wait_until(lambda: push.poll(0, zmq.POLLOUT) != 0)
    # Nothing of the old queue reached the new connection.
    with pytest.raises(zmq.Again):
        pull.recv(zmq.NOBLOCK)
    push.send(b"GHI")
    assert pull.recv() == b"GHI"


def test_pull_destroys_incoming_queue_on_disconnect(make, endpoint_for, transport):
    """libzmq: PULL drops what it queued from a peer it disconnects from."""
    pull = make(zmq.PULL)
    push = make(zmq.PUSH)
    ep = bind_any(push, endpoint_for(transport))
    wait_for_peers(push, lambda: pull.connect(ep), 1, transport)
    push.send(b"old")
    # Wait until the message is queued at the PULL (POLLIN), then disconnect.
    assert pull.poll(TIMEOUT_MS) == zmq.POLLIN
    pull.disconnect(ep)
    with pytest.raises(zmq.Again):
        pull.recv(zmq.NOBLOCK)
