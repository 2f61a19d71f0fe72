"""A peer's fault ends its connection; it never surfaces in the application.

libzmq's promise: a malformed peer costs one connection, and the
application's calls raise only what pyzmq would raise for its own mistakes.
The case reproduced here: a peer sends a valid message and then a bad frame,
in one write. The application receives the message and answers it - and the
answer's `send()` must not raise the connection's protocol error (it did:
the error, kept by the connection after parsing, was raised again when the
answer was encoded on the application's thread).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from .helpers import Bound, HealthyPeer, assert_still_serving
from .zmtp_raw import RawPeer, message

#: Reserved flag bits: a frame no ZMTP peer may send.
BAD_FRAME = bytes([0xF8, 0])


def test_answering_a_peer_that_then_misbehaved_does_not_raise(
    bound: Callable[..., Bound],
    raw: Callable[..., RawPeer],
    healthy: Callable[[Bound], HealthyPeer],
) -> None:
    router = bound("ROUTER")
    good = healthy(router)
    for i in range(30):
        peer = raw(router.port)
        peer.handshake(b"DEALER", b"bad-%d" % i)
        peer.send(message(b"hello %d" % i) + BAD_FRAME)
        rid, body = router.sock.recv_multipart()
        assert (rid, body) == (b"bad-%d" % i, b"hello %d" % i)
        router.sock.send_multipart([rid, body])  # the peer is gone or going: dropped
        peer.wait_closed()
    assert_still_serving(router, good, raw)


def test_peer_faults_are_not_warnings(
    bound: Callable[..., Bound],
    raw: Callable[..., RawPeer],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A library has no business printing a peer's faults on an application's
    stderr (libzmq says nothing, and reports through the monitor): they go to
    the `purezmq` logger at DEBUG."""
    router = bound("ROUTER")
    with caplog.at_level(logging.DEBUG, logger="purezmq"):
        for i in range(5):
            peer = raw(router.port)
            peer.handshake(b"DEALER", b"noisy-%d" % i)
            peer.send(message(b"x") + BAD_FRAME)
            assert router.sock.recv_multipart()[1] == b"x"
            peer.wait_closed()
    faults = [r for r in caplog.records if r.name == "purezmq"]
    assert faults, "the fault should still be logged, at DEBUG"
    assert all(r.levelno <= logging.DEBUG for r in faults), [
        (r.levelname, r.getMessage()) for r in faults
    ]
