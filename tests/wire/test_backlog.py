"""An unbounded pipe's backlog (RCVHWM 0): kept as bytes, still watched.

With RCVHWM 0, libzmq reads a connection whatever its pipe holds. purezmq
reads on too, but keeps what the application has not read yet as bytes in
the connection's buffer, parsing at most a batch ahead of the reader
(`purezmq._core.intake`, issue 14). A PING, an ERROR or a malformed frame
behind such a backlog must still be met as soon as it arrives - as libzmq's
engine meets them - while the application reads nothing: these tests send a
backlog well beyond the read-ahead limit, then that frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

import purezmq as zmq
from purezmq._core.intake import IN_BATCH, READAHEAD_LIMIT

from .helpers import Bound, Monitor, wait_until
from .zmtp_raw import RawPeer, command, message, ping

#: Messages in the backlog: about 1.3 MB, five times the read-ahead limit.
BACKLOG = 20_000
BODY = b"m" * 60
#: Bytes per message on the wire: a short header and BODY + a 4-byte index.
FRAME = 2 + len(BODY) + 4
#: How long a PONG or the end of a bad connection may take.
WITHIN = 2.0

Raw = Callable[..., RawPeer]


def _backlog() -> bytes:
    return b"".join(message(BODY + i.to_bytes(4, "big")) for i in range(BACKLOG))


def _router(bound: Callable[..., Bound], raw: Raw, **opts: object) -> tuple[Bound, RawPeer]:
    router = bound("ROUTER", RCVHWM=0, **opts)
    peer = raw(router.port)
    peer.handshake(b"DEALER", b"peer")
    # The application looked once and went on with other work: from now on
    # only the I/O thread sees what arrives.
    assert router.sock.poll(50) == 0
    return router, peer


def _read_backlog(router: Bound) -> None:
    for i in range(BACKLOG):
        assert router.sock.recv_multipart() == [b"peer", BODY + i.to_bytes(4, "big")]


def _session_pipe(router: Bound) -> tuple[int, int]:
    """(messages parsed and queued for the application, bytes still unparsed)."""
    sessions = list(router.sock._core.sessions.live())
    assert len(sessions) == 1
    pipe, conn = sessions[0].pipe, sessions[0].conn
    assert pipe is not None and conn is not None
    return pipe.outbound_size, conn.unparsed_bytes


def test_backlog_is_read_and_kept_as_bytes(bound: Callable[..., Bound], raw: Raw) -> None:
    """The whole backlog is read (reading does not pause at the read-ahead
    limit) and at most a batch of it is parsed while nobody reads."""
    router, peer = _router(bound, raw)
    wire = _backlog()
    peer.send(wire)
    assert len(wire) > 4 * READAHEAD_LIMIT

    def all_received() -> bool:
        queued, unparsed = _session_pipe(router)
        return queued * FRAME + unparsed >= len(wire)

    wait_until(all_received)
    time.sleep(0.05)  # read-ahead's timer ran meanwhile, maybe more than once
    queued, unparsed = _session_pipe(router)
    assert queued <= IN_BATCH
    assert unparsed == len(wire) - queued * FRAME
    _read_backlog(router)


def test_ping_behind_backlog_is_answered(bound: Callable[..., Bound], raw: Raw) -> None:
    router, peer = _router(bound, raw)
    peer.timeout = WITHIN
    peer.send(_backlog() + ping(0, b"LOL"))
    assert peer.recv_exact(10) == b"\x04\x08\x04PONGLOL"
    _read_backlog(router)


@pytest.mark.parametrize(
    "bad",
    [b"\x80\x03abc", command(b"PING"), command(b"ERROR", b"\x04boom")],
    ids=["reserved-bits", "ping-without-ttl", "peer-error"],
)
def test_error_behind_backlog_closes_connection(
    bound: Callable[..., Bound], raw: Raw, monitor: Callable[..., Monitor], bad: bytes
) -> None:
    """The connection ends while the application reads nothing; every
    message before the bad frame is still delivered, in order."""
    router, peer = _router(bound, raw)
    mon = monitor(router.sock)
    peer.send(_backlog() + bad)
    peer.wait_closed(WITHIN)
    mon.wait_for(zmq.EVENT_DISCONNECTED)
    _read_backlog(router)
    assert router.sock.poll(100) == 0


def test_oversized_frame_behind_backlog_closes_connection(
    bound: Callable[..., Bound], raw: Raw, monitor: Callable[..., Monitor]
) -> None:
    router, peer = _router(bound, raw, MAXMSGSIZE=100)
    mon = monitor(router.sock)
    peer.send(_backlog() + message(b"x" * 101))
    peer.wait_closed(WITHIN)
    mon.wait_for(zmq.EVENT_DISCONNECTED)
    _read_backlog(router)


def test_bounded_pipe_fills_to_its_hwm_and_no_further(
    bound: Callable[..., Bound], raw: Raw
) -> None:
    """RCVHWM 1000 (the default): read-ahead parses in batches of at most
    IN_BATCH, so it takes several to fill the pipe - up to the HWM, never
    past it - and the rest waits as bytes (reading pauses past
    READAHEAD_LIMIT, as before)."""
    router = bound("ROUTER", RCVHWM=1000)
    peer = raw(router.port)
    peer.handshake(b"DEALER", b"peer")
    assert router.sock.poll(50) == 0
    wire = _backlog()[: 3000 * FRAME]
    peer.send(wire)
    assert IN_BATCH < 1000
    wait_until(lambda: _session_pipe(router)[0] == 1000)
    time.sleep(0.05)
    queued, unparsed = _session_pipe(router)
    assert queued == 1000
    assert unparsed == len(wire) - 1000 * FRAME
    for i in range(3000):
        assert router.sock.recv_multipart() == [b"peer", BODY + i.to_bytes(4, "big")]
