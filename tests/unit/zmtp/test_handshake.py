"""NULL handshake: READY golden bytes, socket-type checks, malformed
commands, ZAP, messages queued before the handshake ends."""

from __future__ import annotations

import itertools

import pytest

from purezmq._zmtp import (
    ZAP_BAD_REQUEST_ID,
    ZAP_BAD_VERSION,
    ZAP_INVALID_STATUS_CODE,
    ZAP_MALFORMED_REPLY,
    ZMTP_INVALID_METADATA,
    ZMTP_MALFORMED_COMMAND_ERROR,
    ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
    ZMTP_UNEXPECTED_COMMAND,
    MechanismStatus,
    NullMechanism,
    ProtocolError,
    ZapConfig,
    ZMTPConnection,
    socktypes,
)

from .helpers import (
    FEED_MODES,
    GREETING_31_NULL,
    OUR_GREETING_31_NULL,
    OUR_SIGNATURE,
    READY_DEALER,
    READY_SUB,
    READY_XPUB,
    command_frame,
    connected,
    feed,
    greeting,
    make_conn,
    message_bytes,
    out_bytes,
    prop,
    pump,
    ready_frame,
)

COMPATIBLE = [
    (a, b)
    for a, b in itertools.product(socktypes.SOCKET_TYPES + socktypes.DRAFT_SOCKET_TYPES, repeat=2)
    if socktypes.compatible(a, b) and a <= b
]
INCOMPATIBLE = [("PUB", "PUSH"), ("REQ", "REQ"), ("SUB", "SUB"), ("PAIR", "DEALER")]


def identity_for(socket_type: str) -> bytes | None:
    return b"" if socktypes.sends_identity(socket_type) else None


# ------------------------------------------------------------ golden bytes


def test_dealer_ready_golden_bytes() -> None:
    conn = make_conn("DEALER", identity=b"")
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn) == OUR_GREETING_31_NULL + READY_DEALER


@pytest.mark.parametrize(("socket_type", "ready"), [("XPUB", READY_XPUB), ("SUB", READY_SUB)])
def test_ready_golden_bytes_without_identity(socket_type: str, ready: bytes) -> None:
    conn = make_conn(socket_type)
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn)[64:] == ready


def test_ready_carries_identity_and_application_metadata() -> None:
    conn = make_conn("ROUTER", identity=b"me", properties={"X-App": b"v1"})
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn)[64:] == ready_frame(b"ROUTER", (b"Identity", b"me"), (b"X-App", b"v1"))


# ---------------------------------------------------------- peer pairs


@pytest.mark.parametrize(("a_type", "b_type"), COMPATIBLE)
def test_every_compatible_pair_completes_the_handshake(a_type: str, b_type: str) -> None:
    a = make_conn(a_type, identity=identity_for(a_type))
    b = make_conn(b_type, identity=identity_for(b_type))
    pump(a, b)
    assert a.handshake_done and b.handshake_done
    assert (a.peer_socket_type, b.peer_socket_type) == (b_type, a_type)
    assert a.state == b.state == "ready"
    assert a.mechanism.status is MechanismStatus.READY


@pytest.mark.parametrize(("a_type", "b_type"), INCOMPATIBLE)
def test_incompatible_pair_is_refused_with_error_command(a_type: str, b_type: str) -> None:
    conn = make_conn(a_type)
    with pytest.raises(ProtocolError) as info:
        feed(conn, GREETING_31_NULL + ready_frame(b_type.encode()))
    err = info.value
    assert err.code == ZMTP_INVALID_METADATA and err.kind == "protocol" and err.during_handshake
    reason = f"Incompatible Socket-Type {b_type}".encode()
    error_cmd = command_frame(b"\x05ERROR" + bytes((len(reason),)) + reason)
    assert out_bytes(conn).endswith(error_cmd)
    assert conn.state == "closed" and not conn.handshake_done


def test_two_incompatible_connections_both_fail() -> None:
    a, b = make_conn("PUB"), make_conn("PUSH")
    with pytest.raises(ProtocolError):
        pump(a, b)


def test_socket_type_check_can_be_disabled() -> None:
    conn = make_conn("PUB", check_socket_type=False)
    feed(conn, GREETING_31_NULL + ready_frame(b"PUSH"))
    assert conn.handshake_done and conn.peer_socket_type == "PUSH"


def test_missing_socket_type_is_accepted_like_libzmq() -> None:
    conn = make_conn("DEALER")
    feed(conn, GREETING_31_NULL + ready_frame(None))
    assert conn.handshake_done and conn.peer_socket_type == ""


def test_socket_type_name_matching_is_case_insensitive() -> None:
    conn = make_conn("DEALER")
    feed(conn, GREETING_31_NULL + command_frame(b"\x05READY" + prop(b"socket-type", b"ROUTER")))
    assert conn.peer_socket_type == "ROUTER"


def test_peer_identity_and_metadata() -> None:
    conn = make_conn("ROUTER")
    feed(conn, GREETING_31_NULL + ready_frame(b"DEALER", (b"Identity", b"abc"), (b"X-K", b"v")))
    assert conn.peer_identity == b"abc"
    assert conn.peer_metadata["x-k"] == b"v"
    assert dict(conn.peer_metadata) == {"Socket-Type": b"DEALER", "Identity": b"abc", "X-K": b"v"}


def test_peer_without_identity_has_empty_identity() -> None:
    conn = make_conn("ROUTER")
    feed(conn, GREETING_31_NULL + ready_frame(b"DEALER"))
    assert conn.peer_identity == b""


# ------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"\x05READY\x0bSocket-Type\x00\x00\x00\x09DEALER", ZMTP_INVALID_METADATA),
        (b"\x05READY\x01", ZMTP_INVALID_METADATA),
        (b"\x05READ", ZMTP_MALFORMED_COMMAND_UNSPECIFIED),
        (b"", ZMTP_MALFORMED_COMMAND_UNSPECIFIED),
        (b"\x04PING\x00\x00", ZMTP_UNEXPECTED_COMMAND),
        (b"\x05HELLO", ZMTP_UNEXPECTED_COMMAND),
        (b"\x05ERROR\x09short", ZMTP_MALFORMED_COMMAND_ERROR),
        (b"\x05ERROR", ZMTP_MALFORMED_COMMAND_ERROR),
    ],
)
@pytest.mark.parametrize("mode", FEED_MODES)
def test_malformed_handshake_commands(body: bytes, code: int, mode: str) -> None:
    conn = make_conn("DEALER")
    with pytest.raises(ProtocolError) as info:
        feed(conn, GREETING_31_NULL + command_frame(body), mode)
    assert info.value.code == code and info.value.during_handshake


def test_message_frame_before_ready_is_refused() -> None:
    conn = make_conn("DEALER")
    with pytest.raises(ProtocolError) as info:
        feed(conn, GREETING_31_NULL + message_bytes([b"too early"]))
    assert info.value.code == ZMTP_UNEXPECTED_COMMAND


def test_reserved_flags_during_handshake() -> None:
    conn = make_conn("DEALER")
    with pytest.raises(ProtocolError, match="reserved"):
        feed(conn, GREETING_31_NULL + b"\x84\x05\x05READY")


def test_error_command_from_peer_during_handshake() -> None:
    conn = make_conn("DEALER")
    with pytest.raises(ProtocolError) as info:
        feed(conn, GREETING_31_NULL + command_frame(b"\x05ERROR\x03400"))
    err = info.value
    assert err.kind == "peer" and err.peer_reason == b"400" and err.zap_status == 400
    assert err.during_handshake and "400" in err.reason


def test_error_is_sticky() -> None:
    conn = make_conn("DEALER")
    with pytest.raises(ProtocolError) as first:
        feed(conn, b"\x00")
    for call in (lambda: feed(conn, b"x"), lambda: conn.pull(1), lambda: conn.on_timer(99.0),
                 lambda: conn.send_messages([[b"m"]])):  # fmt: skip
        with pytest.raises(ProtocolError) as again:
            call()
        assert again.value is first.value
    assert conn.next_deadline() is None


def test_readys_after_handshake_are_ignored() -> None:
    conn = make_conn("DEALER")
    feed(conn, GREETING_31_NULL + ready_frame(b"ROUTER") + ready_frame(b"ROUTER"))
    feed(conn, message_bytes([b"ok"]))
    assert conn.pull(10) == [[b"ok"]]


# ------------------------------------------------- before the handshake


def test_messages_sent_before_the_handshake_wait_for_it() -> None:
    conn = make_conn("DEALER", identity=b"")
    conn.send_messages([[b"early"], [b"a", b"b"]])
    assert out_bytes(conn) == OUR_SIGNATURE
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn) == OUR_GREETING_31_NULL[10:] + READY_DEALER
    feed(conn, ready_frame(b"ROUTER"))
    assert out_bytes(conn) == message_bytes([b"early"]) + message_bytes([b"a", b"b"])


def test_pull_before_handshake_returns_nothing() -> None:
    conn = make_conn()
    feed(conn, GREETING_31_NULL)
    assert conn.pull(10) == []


def test_connection_pair_exchanges_messages_both_ways() -> None:
    a, b = connected("PAIR", "PAIR")
    a.send_messages([[b"ping"]])
    b.send_messages([[b"pong", b"x" * 70000]])
    pump(a, b)
    assert b.pull(5) == [[b"ping"]]
    assert a.pull(5) == [[b"pong", b"x" * 70000]]


# --------------------------------------------------------------------- ZAP

ZAP = ZapConfig(domain=b"global", address=b"127.0.0.1", identity=b"id1")


def zap_conn() -> ZMTPConnection:
    conn = make_conn("ROUTER", identity=b"id1", zap=ZAP)
    out_bytes(conn)
    feed(conn, GREETING_31_NULL + ready_frame(b"DEALER"))
    return conn


def reply(status: bytes, *, user: bytes = b"", metadata: bytes = b"") -> list[bytes]:
    return [b"1.0", b"1", status, b"text", user, metadata]


def test_null_zap_request_frames_follow_rfc27() -> None:
    conn = zap_conn()
    assert conn.zap_request() == [b"1.0", b"1", b"global", b"127.0.0.1", b"id1", b"NULL"]
    assert conn.zap_request() is None  # handed out once
    assert out_bytes(conn) == OUR_GREETING_31_NULL[10:]  # READY waits for ZAP
    assert not conn.handshake_done


def test_zap_200_sends_ready_and_completes() -> None:
    conn = zap_conn()
    conn.zap_request()
    out_bytes(conn)
    conn.zap_reply(reply(b"200", user=b"alice", metadata=prop(b"X-Role", b"admin")), now=1.0)
    assert conn.handshake_done
    assert out_bytes(conn) == ready_frame(b"ROUTER", (b"Identity", b"id1"))
    assert conn.mechanism.user_id == b"alice"
    assert conn.mechanism.zap_metadata["x-role"] == b"admin"


def test_zap_reply_with_envelope_delimiter_is_accepted() -> None:
    conn = zap_conn()
    conn.zap_reply([b"", *reply(b"200")], now=0.0)
    assert conn.handshake_done


@pytest.mark.parametrize("status", [400, 500])
def test_zap_refusal_sends_error_with_status_code(status: int) -> None:
    conn = zap_conn()
    with pytest.raises(ProtocolError) as info:
        conn.zap_reply(reply(str(status).encode()), now=0.0)
    assert info.value.kind == "auth" and info.value.zap_status == status
    assert info.value.during_handshake
    assert out_bytes(conn).endswith(command_frame(b"\x05ERROR\x03" + str(status).encode()))


def test_zap_temporary_failure_closes_without_error_command() -> None:
    conn = zap_conn()
    out_bytes(conn)
    with pytest.raises(ProtocolError) as info:
        conn.zap_reply(reply(b"300"), now=0.0)
    assert info.value.kind == "auth" and info.value.zap_status == 300
    assert out_bytes(conn) == b""


@pytest.mark.parametrize(
    ("frames", "code"),
    [
        ([b"1.0", b"1", b"200"], ZAP_MALFORMED_REPLY),
        ([b"2.0", b"1", b"200", b"", b"", b""], ZAP_BAD_VERSION),
        ([b"1.0", b"7", b"200", b"", b"", b""], ZAP_BAD_REQUEST_ID),
        ([b"1.0", b"1", b"201", b"", b"", b""], ZAP_INVALID_STATUS_CODE),
        ([b"1.0", b"1", b"200", b"", b"", b"\x05"], 0x20000005),
    ],
)
def test_malformed_zap_replies(frames: list[bytes], code: int) -> None:
    conn = zap_conn()
    with pytest.raises(ProtocolError) as info:
        conn.zap_reply(frames, now=0.0)
    assert info.value.code == code and info.value.kind == "protocol"


def test_zap_reply_without_request_is_refused() -> None:
    conn = make_conn("DEALER")
    feed(conn, GREETING_31_NULL)
    with pytest.raises(ProtocolError):
        conn.zap_reply(reply(b"200"), now=0.0)


def test_second_ready_while_waiting_for_zap_is_unexpected() -> None:
    conn = zap_conn()
    with pytest.raises(ProtocolError) as info:
        feed(conn, ready_frame(b"DEALER"))
    assert info.value.code == ZMTP_UNEXPECTED_COMMAND


def test_mechanism_status_and_defaults() -> None:
    mech = NullMechanism()
    assert mech.name == b"NULL" and not mech.transforms_frames
    assert mech.status is MechanismStatus.HANDSHAKING
    assert mech.next_handshake_command() is None and mech.zap_request() is None
    assert mech.encode_frame(1, b"x") == (1, b"x") and mech.decode_frame(0, b"y") == (0, b"y")
    assert mech.wants_input()


def test_null_mechanism_alone() -> None:
    from purezmq._zmtp.greeting import parse_greeting

    mech = NullMechanism(identity=None)
    mech.configure(socket_type="PUSH")
    mech.start(parse_greeting(greeting(), b"NULL"))
    assert mech.next_handshake_command() == b"\x05READY\x0bSocket-Type\x00\x00\x00\x04PUSH"
    mech.process_handshake_command(b"\x05READY" + prop(b"Socket-Type", b"PULL"))
    assert mech.status is MechanismStatus.READY
    assert mech.peer_metadata == {"Socket-Type": b"PULL"}


def test_unknown_socket_type_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown socket type"):
        make_conn("dealer")


def test_receive_data_larger_than_the_buffer_size() -> None:
    conn = make_conn("PULL", buffer_size=64 * 1024)
    feed(conn, GREETING_31_NULL + ready_frame(b"PUSH"))
    blob = message_bytes([b"m" * 100]) * 20_000  # ~2 MB of small messages
    conn.receive_data(blob, 0.0)
    assert conn.unparsed_bytes == len(blob)
    got = 0
    while batch := conn.pull(1000):
        got += len(batch)
    assert got == 20_000


def test_socket_layer_may_configure_identity_and_metadata_first() -> None:
    mech = NullMechanism()
    mech.configure(socket_type="DEALER", identity=b"", metadata={"X-Who": b"me"})
    conn = ZMTPConnection(socket_type="DEALER", mechanism=mech, now=0.0)
    assert mech.identity == b"" and mech.check_socket_type
    feed(conn, GREETING_31_NULL)
    assert out_bytes(conn)[64:] == ready_frame(b"DEALER", (b"Identity", b""), (b"X-Who", b"me"))


def test_configure_without_identity_keeps_the_constructor_value() -> None:
    mech = NullMechanism(identity=b"abc")
    mech.configure(socket_type="ROUTER", check_socket_type=False)
    assert mech.identity == b"abc" and not mech.check_socket_type
    mech.configure(socket_type="ROUTER", identity=None)
    assert mech.identity is None
