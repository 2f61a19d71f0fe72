"""A PING flood from a peer that never reads (issue 12).

The peer completes a NULL handshake and sends PINGs without reading a byte
(its receive window stays small: the kernel grows it only for a reader; a
tiny SO_RCVBUF is not used, as full receive queues on loopback drop the
ACKs riding on the server's segments and stall the peer's own sending).
libzmq owes such a peer one PONG at a time (+0.3 MiB RSS after 2 M PINGs);
purezmq queued one PONG per PING (+141 MiB).
Here the server's queued output - the connection's encoder and the engine's
unwritten chunks - must stay within one write batch, and RSS must not follow
the number of PINGs.
"""

from __future__ import annotations

from collections.abc import Callable

from .helpers import Bound, HealthyPeer, assert_still_serving, rss_bytes
from .zmtp_raw import RawPeer, message, ping

PINGS = 400_000
BATCH = 10_000


def queued_output(sock: object) -> int:
    """Bytes the server holds for its peers: encoded and not yet written."""
    total = 0
    for session in sock._core.sessions.live():  # type: ignore[attr-defined]
        conn = session.conn
        if conn is not None:
            total += conn.queued_output_bytes
        engine = session.engine
        for chunk in getattr(engine, "_out", ()):
            total += memoryview(chunk).nbytes
    return total


def test_ping_flood_from_a_peer_that_never_reads(
    bound: Callable[..., Bound],
    raw: Callable[..., RawPeer],
    healthy: Callable[[Bound], HealthyPeer],
) -> None:
    router = bound("ROUTER")
    good = healthy(router)
    peer = raw(router.port)
    peer.handshake(b"DEALER", b"flooder")
    before = rss_bytes()
    flood = ping(0, b"0123456789abcdef") * BATCH
    for _ in range(PINGS // BATCH):
        peer.send(flood)
    # A message after the PINGs: once the ROUTER has it, every PING was parsed.
    peer.send(message(b"after the flood"))
    assert router.sock.recv_multipart() == [b"flooder", b"after the flood"]
    held = queued_output(router.sock)
    grown = rss_bytes() - before
    # One PONG is owed at most, plus one write batch stuck in the engine.
    assert held <= 256 * 1024, held
    # 400k PONGs of 26 bytes queued as objects took ~30 MiB before the fix.
    assert grown < 12 * 1024 * 1024, grown
    assert_still_serving(router, good, raw)
