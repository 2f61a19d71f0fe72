"""A peer's commands cannot grow our output without bound (issue 12).

A peer that sends PINGs and never reads the PONGs grew the server by
~70 bytes per PING (174 MiB after 2 M) while libzmq stayed flat: libzmq's
engine owes at most one PONG - the latest PING's - and encodes it only when
its output buffer is empty. Here a connection encodes up to PONG_BACKLOG
PONGs between two takes of its output (a peer that reads gets one per PING)
and owes one more for the latest PING beyond that, encoded when the output
is next taken: however many PINGs are parsed meanwhile, the queue is bounded.
"""

from __future__ import annotations

import struct

from purezmq._zmtp.connection import PONG_BACKLOG

from .helpers import command_frame, connected, feed, handshaken, out_bytes


def ping(ttl: int = 0, context: bytes = b"") -> bytes:
    return command_frame(b"\x04PING" + struct.pack(">H", ttl) + context)


def pong(context: bytes) -> bytes:
    return command_frame(b"\x04PONG" + context)


def test_unread_pongs_do_not_accumulate() -> None:
    conn = handshaken()
    context = b"x" * 16
    bound = (PONG_BACKLOG + 1) * len(pong(context))
    flood = ping(context=context) * 1000
    for _ in range(100):  # 100,000 PINGs, output never taken
        feed(conn, flood)
        assert conn.pull(1024) == []
        assert conn.queued_output_bytes <= bound, conn.queued_output_bytes
    assert conn.has_output


def test_beyond_the_backlog_the_latest_ping_is_answered() -> None:
    conn = handshaken()
    contexts = [b"%d" % n for n in range(PONG_BACKLOG + 5)]
    feed(conn, b"".join(ping(context=c) for c in contexts))
    assert conn.pull(10) == []
    expected = b"".join(pong(c) for c in contexts[:PONG_BACKLOG]) + pong(contexts[-1])
    assert conn.queued_output_bytes == len(expected)
    assert out_bytes(conn) == expected
    assert not conn.has_output
    assert out_bytes(conn) == b""  # owed once


def test_a_reading_peer_gets_one_pong_per_ping() -> None:
    """The backlog counts from the last take: a peer whose PONGs are written
    as they come is answered every time, whatever the total."""
    conn = handshaken()
    for n in range(3 * PONG_BACKLOG):
        feed(conn, ping(context=b"%d" % n))
        assert conn.pull(10) == []
        assert out_bytes(conn) == pong(b"%d" % n)


def test_pongs_between_two_of_our_connections_are_coalesced() -> None:
    _, b = connected("DEALER", "ROUTER")
    for _ in range(PONG_BACKLOG + 50):
        feed(b, ping(context=b"c"))
    assert b.pull(10) == []
    assert out_bytes(b) == pong(b"c") * (PONG_BACKLOG + 1)
