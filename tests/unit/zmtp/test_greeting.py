"""Greeting: golden bytes, two-part sending, validation (RFC 23/37, libzmq)."""

from __future__ import annotations

import pytest

from purezmq._zmtp import ZMTP_MECHANISM_MISMATCH, ProtocolError

from .helpers import (
    FEED_MODES,
    GREETING_30_NULL,
    GREETING_31_NULL,
    feed,
    greeting,
    make_conn,
    out_bytes,
    ready_frame,
)


def test_hand_written_greetings_match_the_spec_layout() -> None:
    assert len(GREETING_30_NULL) == 64
    assert greeting(minor=0) == GREETING_30_NULL
    assert greeting() == GREETING_31_NULL
    assert GREETING_31_NULL[11] == 1


def test_first_eleven_bytes_are_queued_at_once() -> None:
    conn = make_conn()
    before = conn.has_output
    assert out_bytes(conn) == b"\xff" + b"\x00" * 8 + b"\x7f\x03"
    assert (before, conn.has_output) == (True, False)
    assert conn.state == "greeting"


def test_rest_of_greeting_waits_for_peers_first_eleven_bytes() -> None:
    conn = make_conn()
    out_bytes(conn)
    feed(conn, GREETING_31_NULL[:10])
    assert not conn.has_output
    feed(conn, GREETING_31_NULL[10:11])
    assert out_bytes(conn) == GREETING_31_NULL[11:]


def test_full_greeting_is_zmtp_31_null() -> None:
    conn = make_conn()
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn).startswith(GREETING_31_NULL)


@pytest.mark.parametrize("mode", FEED_MODES)
def test_greeting_fed_in_any_chunking_gives_same_output(mode: str) -> None:
    conn = make_conn("DEALER", identity=b"")
    feed(conn, GREETING_30_NULL + ready_frame(b"ROUTER"), mode)
    assert conn.handshake_done
    assert conn.peer_minor == 0 and conn.peer_major == 3


def test_peer_version_is_recorded() -> None:
    conn = make_conn()
    feed(conn, GREETING_31_NULL)
    assert (conn.peer_major, conn.peer_minor) == (3, 1)
    assert conn.state == "handshake"


@pytest.mark.parametrize("major_minor", [(3, 7), (4, 0), (255, 255)])
def test_higher_versions_are_accepted(major_minor: tuple[int, int]) -> None:
    major, minor = major_minor
    conn = make_conn()
    feed(conn, greeting(major=major, minor=minor) + ready_frame(b"ROUTER"))
    assert conn.handshake_done and (conn.peer_major, conn.peer_minor) == major_minor


@pytest.mark.parametrize("first", [b"\x00", b"G", b"\x01\x00"])
def test_non_zmtp3_first_byte_fails_immediately(first: bytes) -> None:
    conn = make_conn()
    with pytest.raises(ProtocolError, match=r"ZMTP 1\.0") as info:
        feed(conn, first)
    assert info.value.kind == "protocol" and info.value.during_handshake
    assert conn.state == "closed" and conn.close_reason is info.value


def test_http_request_is_refused() -> None:
    conn = make_conn()
    with pytest.raises(ProtocolError):
        feed(conn, b"GET / HTTP/1.1\r\n\r\n")


def test_unversioned_signature_is_refused() -> None:
    conn = make_conn()
    with pytest.raises(ProtocolError, match="unversioned"):
        feed(conn, b"\xff" + b"\x00" * 8 + b"\x7e")


@pytest.mark.parametrize("major", [0, 1, 2])
def test_zmtp_1_and_2_peers_are_refused_without_downgrade(major: int) -> None:
    conn = make_conn()
    out_bytes(conn)
    with pytest.raises(ProtocolError, match="not supported"):
        feed(conn, greeting(major=major))
    assert out_bytes(conn) == b""  # nothing beyond our first 11 bytes


@pytest.mark.parametrize(
    "mechanism", [b"PLAIN", b"CURVE", b"GSSAPI", b"null", b"NULLX", b"NUL", b""]
)
def test_mechanism_must_match_exactly(mechanism: bytes) -> None:
    conn = make_conn()
    with pytest.raises(ProtocolError) as info:
        feed(conn, greeting(mechanism=mechanism))
    assert info.value.code == ZMTP_MECHANISM_MISMATCH
    assert info.value.during_handshake


def test_mechanism_field_with_junk_after_nul_is_a_mismatch() -> None:
    data = bytearray(GREETING_31_NULL)
    data[20] = 0x41
    conn = make_conn()
    with pytest.raises(ProtocolError) as info:
        feed(conn, bytes(data))
    assert info.value.code == ZMTP_MECHANISM_MISMATCH


def test_as_server_flag_is_ignored_for_null_like_libzmq() -> None:
    conn = make_conn()
    feed(conn, greeting(as_server=1) + ready_frame(b"ROUTER"))
    assert conn.handshake_done


def test_filler_and_padding_bytes_are_ignored() -> None:
    data = bytearray(GREETING_31_NULL)
    data[1:9] = b"\x00\x00\x00\x00\x00\x00\x00\x01"  # libzmq's routing-id length
    data[33:64] = b"\xee" * 31
    conn = make_conn()
    feed(conn, bytes(data) + ready_frame(b"ROUTER"))
    assert conn.handshake_done


def test_greeting_and_handshake_bytes_in_one_read() -> None:
    conn = make_conn("PULL")
    out_bytes(conn)
    feed(conn, GREETING_31_NULL + ready_frame(b"PUSH") + b"\x00\x03abc")
    assert conn.handshake_done
    assert conn.pull(10) == [[b"abc"]]
