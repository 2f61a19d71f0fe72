"""ZMTP/2.0 and ZMTP/1.0 peers: detection, handshake and framing, from bytes
written by hand after RFC 15, RFC 13 and what libzmq 4.3.5 sends (checked
against a real libzmq in tests/wire/test_legacy_golden.py)."""

from __future__ import annotations

import struct

import pytest

from purezmq._zmtp import (
    BIG_FRAME,
    ZMTP_INVALID_METADATA,
    NullMechanism,
    ProtocolError,
    ZapConfig,
    ZMTPConnection,
)
from purezmq._zmtp.mechanisms.plain import PlainClient

from .helpers import FEED_MODES, feed, make_conn, out_bytes, run_input

# ------------------------------------------------------------ hand-made bytes
SIG0 = b"\xff" + b"\x00" * 7 + b"\x01\x7f"  # a peer whose identity is empty


def sig(identity: bytes) -> bytes:
    """A signature whose padding is an identity frame's length (RFC 15)."""
    return b"\xff" + struct.pack(">Q", len(identity) + 1) + b"\x7f"


def v2_greeting(type_number: int, identity: bytes = b"", revision: int = 1) -> bytes:
    """ZMTP/2.0: signature, revision 1, socket type, identity as a final short frame."""
    return sig(identity) + bytes((revision, type_number, 0x00, len(identity))) + identity


def v2_frame(body: bytes, more: bool = False) -> bytes:
    flags = 0x01 if more else 0x00
    if len(body) <= 255:
        return bytes((flags, len(body))) + body
    return bytes((flags | 0x02,)) + struct.pack(">Q", len(body)) + body


def v1_frame(body: bytes, more: bool = False, *, long: bool = False) -> bytes:
    """RFC 13: length (counting the flags octet), flags, body."""
    flags = b"\x01" if more else b"\x00"
    length = len(body) + 1
    if length < 255 and not long:
        return bytes((length,)) + flags + body
    return b"\xff" + struct.pack(">Q", length) + flags + body


def v1_message(*frames: bytes) -> bytes:
    return b"".join(v1_frame(f, i < len(frames) - 1) for i, f in enumerate(frames))


def v2_message(*frames: bytes) -> bytes:
    return b"".join(v2_frame(f, i < len(frames) - 1) for i, f in enumerate(frames))


DEALER, ROUTER, PUB, SUB, PUSH, PULL = 5, 6, 1, 2, 8, 7


# ------------------------------------------------------------------ ZMTP/2.0
def test_zmtp20_what_we_send_is_libzmqs_bytes() -> None:
    """libzmq 4.3.5 to a 2.0 peer: signature (padding = identity + 1), major 3,
    socket type, identity frame - the 3.x greeting's rest never goes out."""
    conn = make_conn("DEALER", routing_id=b"abc")
    assert out_bytes(conn) == sig(b"abc")
    feed(conn, v2_greeting(ROUTER))
    assert out_bytes(conn) == b"\x03" + bytes((DEALER,)) + b"\x00\x03abc"
    assert conn.handshake_done and conn.protocol == "ZMTP/2.0"
    assert (conn.peer_major, conn.peer_socket_type, conn.peer_identity) == (1, "ROUTER", b"")
    assert dict(conn.peer_metadata) == {}


@pytest.mark.parametrize("mode", FEED_MODES)
def test_zmtp20_peer_in_any_chunking(mode: str) -> None:
    conn = make_conn("ROUTER")
    data = v2_greeting(DEALER, b"alice") + v2_message(b"a", b"b" * 300) + v2_message(b"")
    msgs, _out, error = run_input(conn, data, mode)
    assert error is None
    assert conn.peer_identity == b"alice" and conn.peer_socket_type == "DEALER"
    assert msgs == [[b"a", b"b" * 300], [b""]]


def test_zmtp20_messages_we_send_use_20_framing() -> None:
    conn = make_conn("PUSH")
    conn.send_messages([[b"early"]])  # before the handshake: waits for it
    out_bytes(conn)
    feed(conn, v2_greeting(PULL))
    assert out_bytes(conn) == b"\x03" + bytes((PUSH,)) + b"\x00\x00" + v2_frame(b"early")
    conn.send_messages([[b"x", b"y" * 300], [memoryview(b"z" * 9000)]])
    assert out_bytes(conn) == v2_message(b"x", b"y" * 300) + v2_message(b"z" * 9000)


def test_zmtp20_subscriptions_are_messages_both_ways() -> None:
    """RFC 15: 0x01/0x00 + topic messages; never SUBSCRIBE/CANCEL commands."""
    sub = make_conn("SUB")
    feed(sub, v2_greeting(PUB))
    out_bytes(sub)
    sub.send_messages([[b"\x01topic"], [b"\x00topic"]])
    assert out_bytes(sub) == v2_frame(b"\x01topic") + v2_frame(b"\x00topic")
    pub = make_conn("XPUB")
    feed(pub, v2_greeting(SUB) + v2_frame(b"\x01news"))
    assert pub.pull(10) == [[b"\x01news"]]


def test_zmtp20_peer_gets_no_heartbeats() -> None:
    """No commands in ZMTP/2.0: a PING would reach a 2.0 peer as a message."""
    conn = make_conn("DEALER", heartbeat_ivl=1.0, handshake_ivl=5.0)
    feed(conn, v2_greeting(ROUTER))
    out_bytes(conn)
    assert conn.next_deadline() is None
    conn.on_timer(100.0)
    assert out_bytes(conn) == b""


@pytest.mark.parametrize(
    ("ours", "theirs"), [("PUSH", PUSH), ("PUB", PUB), ("REQ", 3), ("DEALER", PULL), ("PAIR", 99)]
)
def test_zmtp20_incompatible_socket_type_is_refused(ours: str, theirs: int) -> None:
    """RFC 15 "Socket Compatibility" (libzmq does not check; the RFC says SHOULD)."""
    conn = make_conn(ours)
    with pytest.raises(ProtocolError, match="incompatible socket types") as info:
        feed(conn, v2_greeting(theirs))
    assert info.value.code == ZMTP_INVALID_METADATA and info.value.during_handshake
    assert not conn.handshake_done


def test_zmtp20_xpub_and_xsub_numbers_are_publishers_and_subscribers() -> None:
    """libzmq and JeroMQ send XPUB's and XSUB's own numbers (9, 10)."""
    for ours, theirs in (("SUB", 9), ("PUB", 10), ("XSUB", 9), ("XPUB", 2)):
        conn = make_conn(ours)
        feed(conn, v2_greeting(theirs))
        assert conn.handshake_done, (ours, theirs)


def test_zmtp20_type_check_can_be_turned_off() -> None:
    conn = make_conn("PUSH", check_socket_type=False)
    feed(conn, v2_greeting(PUSH))
    assert conn.handshake_done and conn.peer_socket_type == "PUSH"


def test_zmtp20_handshake_waits_for_the_identity_frame() -> None:
    conn = make_conn("DEALER", handshake_ivl=5.0)
    feed(conn, v2_greeting(ROUTER, b"long-identity")[:-3])
    assert not conn.handshake_done and conn.next_deadline() == 5.0
    feed(conn, b"ity")
    assert conn.handshake_done and conn.peer_identity == b"long-identity"
    assert conn.next_deadline() is None


# ------------------------------------------------------------- no security
def test_a_socket_with_a_mechanism_refuses_old_peers() -> None:
    """RFC 37: anything but NULL MUST close; libzmq then reports only
    DISCONNECTED, which kind "refused" tells the socket layer."""
    for data in (v2_greeting(ROUTER), b"\x01\x00", v1_frame(b"id")):
        plain = PlainClient(username=b"u", password=b"p")
        conn = ZMTPConnection(socket_type="DEALER", mechanism=plain, now=0.0)
        out_bytes(conn)
        with pytest.raises(ProtocolError, match="refused") as info:
            feed(conn, data)
        assert info.value.kind == "refused"
        assert out_bytes(conn) in (b"", b"\x03")  # not even the socket type


@pytest.mark.parametrize("how", ["zap_enabled", "zap_config"])
def test_null_with_zap_refuses_old_peers(how: str) -> None:
    """libzmq's zap_enabled(): a ZAP domain is enough."""
    if how == "zap_enabled":
        conn = make_conn("ROUTER", zap_enabled=True)
    else:
        conn = make_conn("ROUTER", zap=ZapConfig(domain="d", address=b"1.2.3.4"))
    with pytest.raises(ProtocolError) as info:
        feed(conn, v2_greeting(DEALER))
    assert info.value.kind == "refused"


def test_zmtp3_peers_are_still_welcome_with_zap_enabled() -> None:
    from .helpers import GREETING_31_NULL, ready_frame

    conn = make_conn("PULL", zap_enabled=True)
    feed(conn, GREETING_31_NULL + ready_frame(b"PUSH"))
    assert conn.handshake_done and conn.protocol == "ZMTP/3.1"


# ------------------------------------------------------------------ ZMTP/1.0
@pytest.mark.parametrize("mode", FEED_MODES)
def test_zmtp10_unversioned_peer(mode: str) -> None:
    """RFC 15's detection: a first byte that is not 0xFF is a 1.0 identity
    length. Our signature was the header of our identity frame: its body
    follows, then 1.0 framing both ways."""
    conn = make_conn("DEALER", routing_id=b"me")
    assert out_bytes(conn) == sig(b"me")
    data = v1_frame(b"peer-id") + v1_message(b"one", b"x" * 300) + v1_message(b"two")
    msgs, out, error = run_input(conn, data, mode)
    assert error is None and conn.protocol == "ZMTP/1.0"
    assert conn.peer_identity == b"peer-id" and conn.peer_socket_type == ""
    assert msgs == [[b"one", b"x" * 300], [b"two"]]
    assert out == b"me"  # no major version, no socket type
    conn.send_messages([[b"a", b"b" * 254], [b""]])
    assert out_bytes(conn) == v1_message(b"a", b"b" * 254) + v1_message(b"")


def test_zmtp10_anonymous_identity_queues_no_empty_chunk() -> None:
    """Our signature was a whole (empty) identity frame: nothing follows it,
    not even an empty chunk (a driver may take b"" for a stalled write)."""
    conn = make_conn("PUSH")
    out_bytes(conn)
    feed(conn, v1_frame(b""))
    assert conn.handshake_done and not conn.has_output and conn.data_to_send() == []
    conn.send_messages([[b"hello"]])
    assert conn.data_to_send() == [b"\x06\x00hello"]


def test_zmtp10_long_identity_header_is_detected_at_the_tenth_byte() -> None:
    """0xFF then a 64-bit length: bit 0 of byte 9 (the flags) is 0."""
    conn = make_conn("PULL")
    out_bytes(conn)
    feed(conn, v1_frame(b"i" * 300)[:9])
    assert conn.protocol == ""
    feed(conn, v1_frame(b"i" * 300)[9:] + v1_frame(b"msg"))
    assert conn.protocol == "ZMTP/1.0" and conn.peer_identity == b"i" * 300
    assert conn.pull(5) == [[b"msg"]]


def test_zmtp10_versioned_revision_0() -> None:
    """libzmq's handshake_v1_0: the 2.0 greeting with revision 0, 1.0 framing."""
    conn = make_conn("REP", routing_id=b"r")
    out_bytes(conn)
    feed(conn, sig(b"q") + b"\x00\x03" + v1_frame(b"q") + v1_message(b"", b"req"))
    assert out_bytes(conn) == b"\x03\x04" + v1_frame(b"r")
    assert (conn.protocol, conn.peer_socket_type, conn.peer_identity) == ("ZMTP/1.0", "REQ", b"q")
    assert conn.pull(5) == [[b"", b"req"]]


@pytest.mark.parametrize(("stype", "phantom"), [("PUB", True), ("XPUB", True), ("PUSH", False)])
def test_zmtp10_publisher_gets_a_phantom_subscription(stype: str, phantom: bool) -> None:
    """ZeroMQ 2.x subscribers filter themselves and never subscribe: libzmq
    injects a subscription to everything after the identity (unversioned only)."""
    conn = make_conn(stype)
    feed(conn, v1_frame(b""))
    assert conn.has_pending_input is phantom
    assert conn.pull(5) == ([[b"\x01"]] if phantom else [])
    versioned = make_conn(stype, check_socket_type=False)
    feed(versioned, sig(b"") + b"\x00\x02" + v1_frame(b""))
    assert versioned.pull(5) == []


def test_zmtp10_length_boundaries() -> None:
    """Lengths 1..254 take one octet; 255 and more the 0xFF escape; the long
    form is also accepted for small frames (RFC 13: MAY)."""
    conn = make_conn("PULL")
    feed(conn, v1_frame(b""))
    wire = v1_frame(b"a" * 253) + v1_frame(b"b" * 254) + v1_frame(b"c", long=True)
    assert wire[0] == 254 and wire[255] == 0xFF
    feed(conn, wire)
    assert conn.pull(5) == [[b"a" * 253], [b"b" * 254], [b"c"]]
    pusher = make_conn("PUSH")
    feed(pusher, v1_frame(b""))
    out_bytes(pusher)
    pusher.send_messages([[b"a" * 253], [b"b" * 254]])
    assert out_bytes(pusher) == v1_frame(b"a" * 253) + v1_frame(b"b" * 254)


def test_zmtp10_flag_bits_other_than_more_are_ignored() -> None:
    """RFC 13: reserved bits SHOULD be zero; libzmq keeps only MORE."""
    conn = make_conn("PULL")
    feed(conn, v1_frame(b"") + b"\x02\xfe" + b"a" + b"\x02\x7e" + b"b")
    assert conn.pull(5) == [[b"a"], [b"b"]]


@pytest.mark.parametrize("where", ["identity", "message"])
def test_zmtp10_length_zero_is_a_protocol_error(where: str) -> None:
    conn = make_conn("PULL")
    data = b"\x00" if where == "identity" else v1_frame(b"") + v1_frame(b"ok") + b"\x00\x00"
    msgs, _out, error = run_input(conn, data, "whole")
    assert isinstance(error, ProtocolError) and "length 0" in error.reason
    assert msgs == ([] if where == "identity" else [[b"ok"]])


def test_zmtp10_max_msg_size_is_checked_per_frame() -> None:
    conn = make_conn("PULL", max_msg_size=10)
    msgs, _out, error = run_input(
        conn, v1_frame(b"") + v1_frame(b"x" * 10) + v1_frame(b"y" * 11), "whole"
    )
    assert msgs == [[b"x" * 10]]
    assert isinstance(error, ProtocolError) and "max_msg_size" in error.reason


@pytest.mark.parametrize("mode", ["whole", "random", 4096])
def test_zmtp10_big_frames_arrive_into_their_own_storage(mode: str | int) -> None:
    """Frames of BIG_FRAME bytes and more are received straight into their
    storage, as with 3.x (the ring keeps only the header)."""
    conn = make_conn("PULL")
    body = bytes(range(256)) * ((3 * BIG_FRAME) // 256)
    data = v1_frame(b"") + v1_message(b"head", body) + v1_frame(b"tail")
    msgs, _out, error = run_input(conn, data, mode)
    assert error is None
    assert msgs == [[b"head", body], [b"tail"]]


def test_zmtp10_big_frame_is_sent_by_reference() -> None:
    conn = make_conn("PUSH")
    feed(conn, v1_frame(b""))
    out_bytes(conn)
    body = memoryview(bytearray(b"z" * (BIG_FRAME + 1)))
    conn.send_messages([[body]])
    chunks = conn.data_to_send()
    assert chunks[0] == b"\xff" + struct.pack(">Q", BIG_FRAME + 2) + b"\x00"
    assert chunks[1] is body or bytes(chunks[1]) == bytes(body)


def test_two_purezmq_connections_never_downgrade() -> None:
    """Both sides versioned: ZMTP 3.1, whatever their routing ids."""
    a = ZMTPConnection(
        socket_type="DEALER", mechanism=NullMechanism(), now=0.0, routing_id=b"x" * 255
    )
    b = make_conn("ROUTER")
    for _ in range(4):
        for src, dst in ((a, b), (b, a)):
            data = out_bytes(src)
            if data:
                feed(dst, data)
    assert a.protocol == b.protocol == "ZMTP/3.1"
