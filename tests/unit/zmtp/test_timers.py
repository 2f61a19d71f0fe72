"""HANDSHAKE_IVL and heartbeats with a fake clock (floats passed as `now`)."""

from __future__ import annotations

import pytest

from purezmq._zmtp import NO_CODE, ProtocolError, ZMTPConnection

from .helpers import (
    GREETING_31_NULL,
    command_frame,
    feed,
    make_conn,
    message_bytes,
    out_bytes,
    ready_frame,
)

PONG = b"\x04\x05\x04PONG"


def ready_at(t: float, **kwargs: object) -> ZMTPConnection:
    """A DEALER created at t=0 whose handshake completes at `t`."""
    conn = make_conn("DEALER", now=0.0, **kwargs)  # type: ignore[arg-type]
    feed(conn, GREETING_31_NULL + ready_frame(b"ROUTER"), now=t)
    assert conn.handshake_done
    out_bytes(conn)
    return conn


# ------------------------------------------------------------ handshake


def test_default_handshake_deadline_is_30s_after_creation() -> None:
    conn = make_conn(now=100.0)
    assert conn.next_deadline() == 130.0
    conn.on_timer(129.9)
    with pytest.raises(ProtocolError) as info:
        conn.on_timer(130.0)
    err = info.value
    assert err.kind == "timeout" and err.during_handshake and err.code == NO_CODE
    assert conn.state == "closed" and conn.next_deadline() is None


def test_handshake_timeout_while_greeting_half_done() -> None:
    conn = make_conn(now=0.0, handshake_ivl=2.0)
    feed(conn, GREETING_31_NULL, now=1.0)
    with pytest.raises(ProtocolError, match="handshake timed out"):
        conn.on_timer(2.5)


def test_handshake_ivl_zero_means_no_limit() -> None:
    conn = make_conn(handshake_ivl=0.0)
    assert conn.next_deadline() is None
    conn.on_timer(1e9)
    assert conn.state == "greeting"


def test_handshake_deadline_is_cancelled_when_ready() -> None:
    conn = ready_at(5.0)
    assert conn.next_deadline() is None  # no heartbeats configured
    conn.on_timer(1000.0)
    assert not conn.has_output


def test_received_bytes_do_not_extend_the_handshake_deadline() -> None:
    conn = make_conn(now=0.0, handshake_ivl=3.0)
    feed(conn, GREETING_31_NULL[:20], now=2.9)
    with pytest.raises(ProtocolError):
        conn.on_timer(3.0)


# ------------------------------------------------------------ heartbeats


def test_ping_every_interval_after_handshake() -> None:
    conn = ready_at(10.0, heartbeat_ivl=1.0, heartbeat_timeout=0.0)
    assert conn.next_deadline() == 11.0
    conn.on_timer(10.5)
    assert not conn.has_output
    conn.on_timer(11.0)
    assert out_bytes(conn) == b"\x04\x07\x04PING\x00\x00"
    assert conn.next_deadline() == 12.0
    conn.on_timer(12.0)
    assert out_bytes(conn) == b"\x04\x07\x04PING\x00\x00"


def test_ping_carries_our_ttl_in_deciseconds() -> None:
    conn = ready_at(0.0, heartbeat_ivl=1.0, heartbeat_ttl=2.5)
    conn.on_timer(1.0)
    assert out_bytes(conn) == b"\x04\x07\x04PING\x00\x19"


def test_huge_ttl_is_clamped() -> None:
    conn = ready_at(0.0, heartbeat_ivl=1.0, heartbeat_ttl=7000.0)
    conn.on_timer(1.0)
    assert out_bytes(conn) == b"\x04\x07\x04PING\xff\xff"


def test_timeout_fires_without_traffic() -> None:
    conn = ready_at(0.0, heartbeat_ivl=1.0)  # timeout -1: same as ivl
    conn.on_timer(1.0)
    assert conn.next_deadline() == 2.0
    conn.on_timer(1.99)
    with pytest.raises(ProtocolError) as info:
        conn.on_timer(2.0)
    err = info.value
    assert err.kind == "timeout" and not err.during_handshake and err.code == NO_CODE


def test_any_received_bytes_cancel_the_timeout() -> None:
    conn = ready_at(0.0, heartbeat_ivl=1.0, heartbeat_timeout=1.5)
    conn.on_timer(1.0)
    out_bytes(conn)
    feed(conn, PONG[:1], now=2.0)  # even part of a frame is traffic
    conn.on_timer(2.5)
    conn.on_timer(2.9)
    assert conn.state == "ready"
    feed(conn, PONG[1:], now=2.9)
    assert conn.pull(10) == []


def test_explicit_timeout_longer_than_interval() -> None:
    conn = ready_at(0.0, heartbeat_ivl=1.0, heartbeat_timeout=3.5)
    conn.on_timer(1.0)  # PING, timeout armed for 4.5
    conn.on_timer(2.0)  # PING, timeout stays armed (libzmq)
    conn.on_timer(3.0)
    assert out_bytes(conn) == b"\x04\x07\x04PING\x00\x00" * 3
    conn.on_timer(4.0)
    with pytest.raises(ProtocolError, match="heartbeat timeout"):
        conn.on_timer(4.5)


def test_traffic_then_next_ping_rearms_the_timeout() -> None:
    conn = ready_at(0.0, heartbeat_ivl=1.0)
    conn.on_timer(1.0)
    feed(conn, message_bytes([b"alive"]), now=1.5)
    conn.on_timer(2.0)  # no timeout; new PING arms 3.0
    assert conn.next_deadline() == 3.0
    with pytest.raises(ProtocolError):
        conn.on_timer(3.0)


def test_peer_ping_ttl_closes_a_silent_connection() -> None:
    conn = ready_at(0.0)
    feed(conn, command_frame(b"\x04PING\x00\x0a"), now=5.0)  # ttl 1.0 s
    assert conn.pull(10) == []
    assert out_bytes(conn) == PONG
    assert conn.next_deadline() == 6.0
    conn.on_timer(5.9)
    with pytest.raises(ProtocolError, match="TTL") as info:
        conn.on_timer(6.0)
    assert info.value.kind == "timeout"


def test_peer_ping_ttl_counts_from_reception_not_parsing() -> None:
    conn = ready_at(0.0)
    feed(conn, command_frame(b"\x04PING\x00\x14"), now=5.0)  # ttl 2.0 s
    conn.on_timer(6.0)  # parsed late, still measured from 5.0
    conn.pull(1)
    assert conn.next_deadline() == 7.0


def test_traffic_after_peer_ping_cancels_ttl() -> None:
    conn = ready_at(0.0)
    feed(conn, command_frame(b"\x04PING\x00\x0a"), now=5.0)
    conn.pull(1)
    feed(conn, message_bytes([b"x"]), now=5.5)
    assert conn.next_deadline() is None
    conn.on_timer(100.0)
    assert conn.pull(5) == [[b"x"]]


def test_peer_ping_with_zero_ttl_arms_nothing() -> None:
    conn = ready_at(0.0)
    feed(conn, command_frame(b"\x04PING\x00\x00ctx"), now=1.0)
    conn.pull(1)
    assert out_bytes(conn) == b"\x04\x08\x04PONGctx"
    assert conn.next_deadline() is None


def test_heartbeats_between_two_connections_keep_them_alive() -> None:
    from .helpers import pump

    a = make_conn("DEALER", heartbeat_ivl=1.0)
    b = make_conn("ROUTER", heartbeat_ivl=1.0, heartbeat_ttl=3.0)
    pump(a, b, now=0.0)
    for step in range(1, 20):
        now = step * 0.5
        for conn in (a, b):
            deadline = conn.next_deadline()
            if deadline is not None and deadline <= now:
                conn.on_timer(now)
        pump(a, b, now=now)
        a.pull(10)
        b.pull(10)
        pump(a, b, now=now)
    assert a.state == b.state == "ready"
