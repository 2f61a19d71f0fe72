"""Greeting: golden bytes, sending in three steps, validation (RFC 23/37, libzmq)."""

from __future__ import annotations

import pytest

from purezmq._zmtp import ZMTP_MECHANISM_MISMATCH, ProtocolError

from .helpers import (
    FEED_MODES,
    GREETING_30_NULL,
    GREETING_31_NULL,
    OUR_GREETING_31_NULL,
    OUR_SIGNATURE,
    command_frame,
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


def test_signature_is_queued_at_once_with_libzmqs_padding() -> None:
    """10 bytes first, as libzmq 4.3: the padding is an identity frame's length
    (routing id + 1), so that a ZMTP 1.0 peer reads our identity frame."""
    conn = make_conn()
    before = conn.has_output
    assert out_bytes(conn) == OUR_SIGNATURE == b"\xff" + b"\x00" * 7 + b"\x01\x7f"
    assert (before, conn.has_output) == (True, False)
    assert conn.state == "greeting"
    named = make_conn(routing_id=b"abc")
    assert out_bytes(named) == b"\xff" + b"\x00" * 7 + b"\x04\x7f"


def test_major_waits_for_the_peers_signature_and_the_rest_for_its_major() -> None:
    conn = make_conn()
    out_bytes(conn)
    feed(conn, GREETING_31_NULL[:9])
    assert not conn.has_output
    feed(conn, GREETING_31_NULL[9:10])
    assert out_bytes(conn) == b"\x03"
    feed(conn, GREETING_31_NULL[10:11])
    assert out_bytes(conn) == OUR_GREETING_31_NULL[11:]


def test_major_and_rest_go_together_when_eleven_bytes_arrive_at_once() -> None:
    conn = make_conn()
    out_bytes(conn)
    feed(conn, GREETING_31_NULL[:11])
    assert out_bytes(conn) == OUR_GREETING_31_NULL[10:]


def test_full_greeting_is_zmtp_31_null() -> None:
    conn = make_conn()
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn).startswith(OUR_GREETING_31_NULL)
    assert conn.protocol == "ZMTP/3.1"


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


def test_zero_first_byte_is_a_zmtp10_frame_of_length_zero() -> None:
    """A first byte that is not 0xFF is a ZMTP 1.0 identity length (RFC 15);
    0 is no valid length (libzmq: EPROTO)."""
    conn = make_conn()
    with pytest.raises(ProtocolError, match="length 0") as info:
        feed(conn, b"\x00")
    assert info.value.kind == "protocol" and info.value.during_handshake
    assert conn.state == "closed" and conn.close_reason is info.value


def test_http_request_waits_as_a_zmtp10_identity_until_the_handshake_timer() -> None:
    """'G' reads as a 1.0 identity of 70 bytes: nothing is refused, nothing is
    delivered, and HANDSHAKE_IVL ends it (libzmq would wait for ever)."""
    conn = make_conn(handshake_ivl=5.0)
    feed(conn, b"GET / HTTP/1.1\r\n\r\n")
    assert conn.protocol == "ZMTP/1.0" and not conn.handshake_done
    with pytest.raises(ProtocolError, match="handshake timed out"):
        conn.on_timer(5.0)


def test_unversioned_long_header_of_length_zero_is_refused() -> None:
    conn = make_conn()
    with pytest.raises(ProtocolError, match="length 0"):
        feed(conn, b"\xff" + b"\x00" * 8 + b"\x7e")


def test_major_two_is_zmtp3_as_libzmq_takes_it() -> None:
    """libzmq's select_handshake_fun speaks 3.1 to any revision from 2 on."""
    conn = make_conn("SUB")
    feed(conn, greeting(major=2, minor=0) + ready_frame(b"PUB"))
    assert conn.handshake_done and conn.protocol == "ZMTP/3.1"
    conn.send_messages([[b"\x01topic"]])
    assert out_bytes(conn).endswith(command_frame(b"\x09SUBSCRIBE" + b"topic"))


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
