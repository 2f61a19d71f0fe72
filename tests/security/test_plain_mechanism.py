"""PLAIN (RFC 24) as a sans-I/O mechanism: no sockets, no threads.

Wire bytes are written by hand from RFC 24's grammar (with the
length-prefixed command names libzmq sends); ZAP is answered by the test.
"""

from __future__ import annotations

import pytest

from purezmq._zmtp import (
    ZAP_MALFORMED_REPLY,
    ZMTP_INVALID_METADATA,
    ZMTP_MALFORMED_COMMAND_HELLO,
    ZMTP_MALFORMED_COMMAND_WELCOME,
    ZMTP_UNEXPECTED_COMMAND,
    ProtocolError,
    ZapConfig,
    ZMTPConnection,
)
from purezmq._zmtp.mechanisms.plain import PlainClient, PlainServer, hello_body, parse_hello
from tests.unit.zmtp.helpers import (
    FEED_MODES,
    command_frame,
    data_frame,
    feed,
    greeting,
    out_bytes,
    prop,
    pump,
)

ZAP = ZapConfig(domain=b"global", address=b"10.0.0.7", identity=b"IDENT")
GREETING_31_PLAIN_SERVER = greeting(mechanism=b"PLAIN", as_server=1)
GREETING_31_PLAIN_CLIENT = greeting(mechanism=b"PLAIN", as_server=0)


def zap_reply(status: bytes = b"200", user: bytes = b"alice", metadata: bytes = b"") -> list[bytes]:
    return [b"1.0", b"1", status, b"text", user, metadata]


def zap_request_head() -> list[bytes]:
    return [b"1.0", b"1", ZAP.domain, ZAP.address, ZAP.identity, b"PLAIN"]


def client(username: bytes = b"admin", password: bytes = b"secret") -> ZMTPConnection:
    return ZMTPConnection(
        socket_type="DEALER",
        mechanism=PlainClient(username=username, password=password),
        now=0.0,
    )


def server(zap: ZapConfig | None = ZAP) -> ZMTPConnection:
    return ZMTPConnection(socket_type="ROUTER", mechanism=PlainServer(zap=zap), now=0.0)


# ------------------------------------------------------------ happy path
def test_full_handshake_between_our_client_and_server() -> None:
    c, s = client(), server()
    pump(c, s)
    assert s.zap_request() == [*zap_request_head(), b"admin", b"secret"]
    assert not c.handshake_done and not s.handshake_done
    s.zap_reply(zap_reply(user=b"alice", metadata=prop(b"X-Role", b"ops")), now=0.0)
    pump(c, s)
    assert c.handshake_done and s.handshake_done
    assert c.peer_socket_type == "ROUTER" and s.peer_socket_type == "DEALER"
    assert s.mechanism.user_id == b"alice"
    assert s.mechanism.zap_metadata["x-role"] == b"ops"
    c.send_messages([[b"hello", b"world"]])
    pump(c, s)
    assert s.pull(10) == [[b"hello", b"world"]]


@pytest.mark.parametrize("mode", FEED_MODES)
def test_client_bytes_on_the_wire(mode: str) -> None:
    """HELLO, then INITIATE after WELCOME, then READY: hand-written peer."""
    c = client()
    first = out_bytes(c)
    feed(c, GREETING_31_PLAIN_SERVER, mode)
    sent = first + out_bytes(c)
    # libzmq's signature (padding: an empty identity's length + 1), then ours.
    assert sent[:64] == b"\xff" + b"\x00" * 7 + b"\x01" + GREETING_31_PLAIN_CLIENT[9:]
    assert sent[64:] == command_frame(b"\x05HELLO\x05admin\x06secret")
    feed(c, command_frame(b"\x07WELCOME"), mode)
    initiate = out_bytes(c)
    assert initiate == command_frame(b"\x08INITIATE" + prop(b"Socket-Type", b"DEALER"))
    feed(c, command_frame(b"\x05READY" + prop(b"Socket-Type", b"ROUTER")) + data_frame(b"x"), mode)
    assert c.handshake_done
    assert c.pull(5) == [[b"x"]]


@pytest.mark.parametrize("mode", FEED_MODES)
def test_server_bytes_on_the_wire(mode: str) -> None:
    s = server()
    out_bytes(s)
    feed(s, GREETING_31_PLAIN_CLIENT + command_frame(b"\x05HELLO\x01u\x02pw"), mode)
    assert out_bytes(s) == GREETING_31_PLAIN_SERVER[10:]  # nothing before ZAP answers
    assert s.zap_request() == [*zap_request_head(), b"u", b"pw"]
    s.zap_reply(zap_reply(), now=0.0)
    assert out_bytes(s) == command_frame(b"\x07WELCOME")
    feed(s, command_frame(b"\x08INITIATE" + prop(b"Socket-Type", b"DEALER")), mode)
    ready = out_bytes(s)
    assert ready == command_frame(b"\x05READY" + prop(b"Socket-Type", b"ROUTER"))
    assert s.handshake_done


def test_empty_credentials_are_valid() -> None:
    assert hello_body(b"", b"") == b"\x05HELLO\x00\x00"
    assert parse_hello(b"\x00\x00") == (b"", b"")


def test_credentials_longer_than_255_bytes_are_refused() -> None:
    with pytest.raises(ValueError):
        PlainClient(username=b"u" * 256, password=b"")


# ------------------------------------------------------------ ZAP verdicts
@pytest.mark.parametrize("status", [b"400", b"500"])
def test_refused_credentials_get_error_with_the_status(status: bytes) -> None:
    c, s = client(password=b"wrong"), server()
    pump(c, s)
    s.zap_request()
    with pytest.raises(ProtocolError) as info:
        s.zap_reply(zap_reply(status, user=b""), now=0.0)
    assert info.value.kind == "auth" and info.value.zap_status == int(status)
    error_frame = out_bytes(s)
    # libzmq's PLAIN form ("^RROR", see plain.py), which libzmq clients expect.
    assert error_frame == command_frame(b"^RROR\x03" + status)
    # The client sees the ERROR: an authentication failure with that status.
    with pytest.raises(ProtocolError) as peer:
        feed(c, error_frame)
    assert peer.value.kind == "peer" and peer.value.zap_status == int(status)
    assert not c.handshake_done


def test_temporary_failure_300_disconnects_silently() -> None:
    c, s = client(), server()
    pump(c, s)
    s.zap_request()
    with pytest.raises(ProtocolError) as info:
        s.zap_reply(zap_reply(b"300", user=b""), now=0.0)
    assert info.value.zap_status == 300
    assert out_bytes(s) == b""  # no ERROR for 300 (RFC 27)


def test_malformed_zap_reply_fails_the_connection() -> None:
    c, s = client(), server()
    pump(c, s)
    s.zap_request()
    with pytest.raises(ProtocolError) as info:
        s.zap_reply([b"1.0", b"1", b"200"], now=0.0)
    assert info.value.code == ZAP_MALFORMED_REPLY


def test_commands_wait_while_zap_decides() -> None:
    """An early INITIATE stays buffered until ZAP answered (fail closed: it
    is never judged before the credentials are)."""
    s = server()
    feed(
        s,
        GREETING_31_PLAIN_CLIENT
        + command_frame(b"\x05HELLO\x01u\x01p")
        + command_frame(b"\x08INITIATE" + prop(b"Socket-Type", b"DEALER")),
    )
    assert not s.handshake_done
    s.zap_request()
    s.zap_reply(zap_reply(), now=0.0)
    assert s.handshake_done  # the buffered INITIATE was processed after WELCOME


def test_server_without_zap_fails_closed() -> None:
    s = server(zap=None)
    with pytest.raises(ProtocolError) as info:
        feed(s, GREETING_31_PLAIN_CLIENT + command_frame(b"\x05HELLO\x01u\x01p"))
    assert info.value.kind == "auth"


# ------------------------------------------------------------ malformed peers
@pytest.mark.parametrize(
    "hello",
    [
        b"\x05HELLO",  # nothing at all
        b"\x05HELLO\x05adm",  # user name cut short
        b"\x05HELLO\x05admin",  # no password length
        b"\x05HELLO\x05admin\x06secre",  # password cut short
        b"\x05HELLO\x05admin\x06secret!",  # extra byte
    ],
)
def test_malformed_hello(hello: bytes) -> None:
    s = server()
    with pytest.raises(ProtocolError) as info:
        feed(s, GREETING_31_PLAIN_CLIENT + command_frame(hello))
    assert info.value.code == ZMTP_MALFORMED_COMMAND_HELLO
    assert s.zap_request() is None  # nothing reaches ZAP


@pytest.mark.parametrize(
    "body", [b"\x08INITIATE", b"\x05READY", b"\x07WELCOME", b"\x04PING\x00\x00"]
)
def test_server_refuses_anything_but_hello_first(body: bytes) -> None:
    s = server()
    with pytest.raises(ProtocolError) as info:
        feed(s, GREETING_31_PLAIN_CLIENT + command_frame(body))
    assert info.value.code == ZMTP_UNEXPECTED_COMMAND


def test_client_refuses_ready_before_welcome() -> None:
    c = client()
    with pytest.raises(ProtocolError) as info:
        feed(c, GREETING_31_PLAIN_SERVER + command_frame(b"\x05READY"))
    assert info.value.code == ZMTP_UNEXPECTED_COMMAND


def test_client_refuses_welcome_with_data() -> None:
    c = client()
    with pytest.raises(ProtocolError) as info:
        feed(c, GREETING_31_PLAIN_SERVER + command_frame(b"\x07WELCOMEjunk"))
    assert info.value.code == ZMTP_MALFORMED_COMMAND_WELCOME


def test_client_refuses_a_second_welcome() -> None:
    c = client()
    feed(c, GREETING_31_PLAIN_SERVER + command_frame(b"\x07WELCOME"))
    with pytest.raises(ProtocolError) as info:
        feed(c, command_frame(b"\x07WELCOME"))
    assert info.value.code == ZMTP_UNEXPECTED_COMMAND


def test_data_before_the_handshake_is_refused() -> None:
    s = server()
    with pytest.raises(ProtocolError):
        feed(s, GREETING_31_PLAIN_CLIENT + data_frame(b"sneaky"))
    assert s.zap_request() is None


def test_incompatible_socket_type_in_initiate() -> None:
    c, s = client(), server()
    pump(c, s)
    s.zap_request()
    s.zap_reply(zap_reply(), now=0.0)
    out_bytes(s)
    with pytest.raises(ProtocolError) as info:
        feed(s, command_frame(b"\x08INITIATE" + prop(b"Socket-Type", b"PUB")))
    assert info.value.code == ZMTP_INVALID_METADATA


def test_mechanism_mismatch_with_a_null_peer() -> None:
    s = server()
    with pytest.raises(ProtocolError):
        feed(s, greeting(mechanism=b"NULL"))


def test_credentials_never_appear_in_errors() -> None:
    c, s = client(username=b"topsecretuser", password=b"hunter2hunter2"), server()
    pump(c, s)
    s.zap_request()
    with pytest.raises(ProtocolError) as info:
        s.zap_reply(zap_reply(b"400", user=b""), now=0.0)
    text = repr(info.value) + str(info.value)
    assert "hunter2" not in text and "topsecretuser" not in text


def test_spec_error_form_can_be_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    from purezmq._zmtp.mechanisms import plain

    monkeypatch.setattr(plain, "LIBZMQ_PLAIN_ERROR", False)
    c, s = client(), server()
    pump(c, s)
    s.zap_request()
    with pytest.raises(ProtocolError):
        s.zap_reply(zap_reply(b"400", user=b""), now=0.0)
    assert out_bytes(s) == command_frame(b"\x05ERROR\x03400")


@pytest.mark.parametrize("error", [b"\x05ERROR\x03400", b"^RROR\x03400"])
@pytest.mark.parametrize("state", ["welcome", "ready"])
def test_client_accepts_both_error_forms(error: bytes, state: str) -> None:
    """The RFC's ERROR and the one libzmq's PLAIN server really sends."""
    c = client()
    feed(c, GREETING_31_PLAIN_SERVER)
    if state == "ready":
        feed(c, command_frame(b"\x07WELCOME"))
    with pytest.raises(ProtocolError) as info:
        feed(c, command_frame(error))
    assert info.value.kind == "peer" and info.value.zap_status == 400
