"""The mechanism seam, exercised with toy mechanisms the way PLAIN and
CURVE will use it: frames wrapped after the handshake (like CURVE's
MESSAGE), input paused while waiting for ZAP (like a PLAIN server), and
mechanisms that misbehave."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import pytest

from purezmq._zmtp import (
    ZMTP_MALFORMED_COMMAND_MESSAGE,
    Mechanism,
    MechanismStatus,
    ProtocolError,
    ZapConfig,
    ZMTPConnection,
    commands,
)
from purezmq._zmtp.frames import FLAG_COMMAND
from purezmq._zmtp.greeting import PeerGreeting

from .helpers import command_frame, feed, greeting, out_bytes, prop, pump


class WrapMechanism(Mechanism):
    """READY both ways, then every frame travels inside a MESSAGE command
    whose data starts with the inner flags byte (CURVE's layout, no crypto)."""

    name = b"WRAP"
    transforms_frames = True

    def start(self, peer: PeerGreeting) -> None:
        self.peer = peer
        self._send(commands.ready(self._ready_properties()))

    def process_handshake_command(self, body: bytes) -> None:
        name, data = commands.split_command(body)
        if name != commands.READY:
            raise ProtocolError("expected READY")
        self._accept_properties(data)
        self._set_status(MechanismStatus.READY)

    def encode_frame(self, flags: int, body: bytes) -> tuple[int, bytes]:
        return FLAG_COMMAND, b"\x07MESSAGE" + bytes((flags,)) + body

    def decode_frame(self, flags: int, body: bytes) -> tuple[int, bytes]:
        if not flags & FLAG_COMMAND or not body.startswith(b"\x07MESSAGE") or len(body) < 9:
            raise ProtocolError("not a MESSAGE", code=ZMTP_MALFORMED_COMMAND_MESSAGE)
        return body[8], body[9:]


class GateMechanism(Mechanism):
    """Server: HELLO(user) -> ZAP [user] -> READY; client: HELLO, then
    READY. The server takes no input while the ZAP reply is pending."""

    name = b"GATE"

    def __init__(self, *, as_server: bool, user: bytes = b"", zap: ZapConfig | None = None):
        super().__init__(as_server=as_server, zap=zap)
        self.user = user
        self._waiting = False
        self.fed: list[bytes] = []

    def start(self, peer: PeerGreeting) -> None:
        if not self.as_server:
            self._send(commands.command(b"HELLO", self.user))

    def wants_input(self) -> bool:
        return not self._waiting

    def process_handshake_command(self, body: bytes) -> None:
        self.fed.append(body)
        name, data = commands.split_command(body)
        if self.as_server and name == b"HELLO":
            self._request_zap([data])
            self._waiting = True
        elif name == commands.READY:
            self._accept_properties(data)
            if not self.as_server:
                self._send(commands.ready(self._ready_properties()))
            self._set_status(MechanismStatus.READY)
        elif name == commands.ERROR:
            self._peer_error(data)
        else:
            raise ProtocolError("unexpected command")

    def zap_reply(self, frames: Sequence[bytes]) -> None:
        reply = self._take_zap_reply(frames)
        self._waiting = False
        if reply.status_code != 200:
            self._fail(ProtocolError("denied", kind="auth"), error_reason=b"denied")
        self._send(commands.ready(self._ready_properties()))


def conn_with(mechanism: Mechanism, socket_type: str, **kwargs: object) -> ZMTPConnection:
    return ZMTPConnection(socket_type=socket_type, mechanism=mechanism, now=0.0, **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------- wrapping frames


def wrapped_pair(a_type: str = "DEALER", b_type: str = "ROUTER") -> tuple[ZMTPConnection, ...]:
    a = conn_with(WrapMechanism(identity=b"a"), a_type)
    b = conn_with(WrapMechanism(identity=b"b"), b_type)
    pump(a, b)
    assert a.handshake_done and b.handshake_done
    return a, b


def test_greeting_names_the_custom_mechanism() -> None:
    conn = conn_with(WrapMechanism(), "PAIR")
    feed(conn, greeting(mechanism=b"WRAP"))
    assert out_bytes(conn)[12:32] == b"WRAP".ljust(20, b"\x00")


@pytest.mark.parametrize("mode", ["whole", "bytewise", 1000])
def test_messages_travel_wrapped(mode: str | int) -> None:
    a, b = wrapped_pair()
    a.send_messages([[b"one"], [b"two", b"x" * 9000, b""]])
    wire = out_bytes(a)
    assert wire.startswith(b"\x04\x0c\x07MESSAGE\x00one")  # flags 0 inside
    feed(b, wire, mode)
    assert b.pull(1) == [[b"one"]]
    assert b.pull(10) == [[b"two", b"x" * 9000, b""]]


def test_commands_travel_wrapped_both_ways() -> None:
    a, b = wrapped_pair()
    a.send_command(commands.ping(0, b"ctx"))
    assert out_bytes(a) == command_frame(b"\x07MESSAGE\x04" + b"\x04PING\x00\x00ctx")
    a.send_command(commands.ping(0, b"ctx"))
    pump(a, b)
    assert b.pull(10) == []
    assert out_bytes(b) == command_frame(b"\x07MESSAGE\x04" + b"\x04PONGctx")


def test_wrapped_subscriptions_reach_a_publisher() -> None:
    sub, pub = wrapped_pair("SUB", "XPUB")
    sub.send_messages([[b"\x01A"], [b"\x00A"]])
    pump(sub, pub)
    assert pub.pull(10) == [[b"\x01A"], [b"\x00A"]]


def test_unwrapped_frame_after_handshake_is_refused_by_the_mechanism() -> None:
    _, b = wrapped_pair()
    feed(b, b"\x00\x03raw")
    with pytest.raises(ProtocolError) as info:
        b.pull(10)
    assert info.value.code == ZMTP_MALFORMED_COMMAND_MESSAGE


def test_wrapped_pull_respects_limit() -> None:
    a, b = wrapped_pair()
    a.send_messages([[b"%d" % i] for i in range(5)])
    pump(a, b)
    assert b.pull(2) == [[b"0"], [b"1"]]
    assert b.pull(10) == [[b"2"], [b"3"], [b"4"]]


# ------------------------------------------------------ pausing for ZAP

ZAP = ZapConfig(domain=b"d", address=b"10.0.0.1")


def gate_server() -> tuple[ZMTPConnection, GateMechanism]:
    mech = GateMechanism(as_server=True, zap=ZAP)
    conn = conn_with(mech, "ROUTER")
    out_bytes(conn)
    return conn, mech


def test_input_waits_while_the_mechanism_waits_for_zap() -> None:
    conn, mech = gate_server()
    hello = command_frame(b"\x05HELLOalice")
    client_ready = command_frame(b"\x05READY" + prop(b"Socket-Type", b"DEALER"))
    feed(conn, greeting(mechanism=b"GATE") + hello + client_ready)
    assert mech.fed == [b"\x05HELLOalice"]  # READY stays buffered
    assert conn.zap_request() == [b"1.0", b"1", b"d", b"10.0.0.1", b"", b"GATE", b"alice"]
    conn.zap_reply([b"1.0", b"1", b"200", b"OK", b"alice", b""], now=1.0)
    assert conn.handshake_done  # the buffered READY was processed after the reply
    assert conn.mechanism.user_id == b"alice"
    assert out_bytes(conn)[-len(b"ROUTER") :] == b"ROUTER"


def test_zap_reply_before_the_peer_is_done() -> None:
    conn, _ = gate_server()
    feed(conn, greeting(mechanism=b"GATE") + command_frame(b"\x05HELLObob"))
    conn.zap_reply([b"1.0", b"1", b"200", b"OK", b"bob", b""], now=0.5)
    assert not conn.handshake_done
    feed(conn, command_frame(b"\x05READY" + prop(b"Socket-Type", b"DEALER")))
    assert conn.handshake_done


def test_mechanism_refusal_flushes_its_error_command() -> None:
    conn, _ = gate_server()
    feed(conn, greeting(mechanism=b"GATE") + command_frame(b"\x05HELLOeve"))
    out_bytes(conn)
    with pytest.raises(ProtocolError) as info:
        conn.zap_reply([b"1.0", b"1", b"400", b"No", b"", b""], now=0.0)
    assert info.value.kind == "auth"
    assert out_bytes(conn) == command_frame(b"\x05ERROR\x06denied")


def test_gate_client_and_server_handshake() -> None:
    server = conn_with(GateMechanism(as_server=True, zap=ZAP), "ROUTER")
    client = conn_with(GateMechanism(as_server=False, user=b"carol"), "DEALER")
    pump(client, server)
    server.zap_reply([b"1.0", b"1", b"200", b"OK", b"carol", b""], now=0.0)
    pump(client, server)
    assert client.handshake_done and server.handshake_done
    assert server.peer_socket_type == "DEALER" and client.peer_socket_type == "ROUTER"


class SilentFailure(Mechanism):
    """Enters ERROR without raising: the connection must not hang."""

    name = b"NULL"

    def start(self, peer: PeerGreeting) -> None:
        pass

    def process_handshake_command(self, body: bytes) -> None:
        self._set_status(MechanismStatus.ERROR)


def test_mechanism_error_status_without_exception_fails_the_connection() -> None:
    conn = conn_with(SilentFailure(), "DEALER")
    with pytest.raises(ProtocolError, match="security handshake failed"):
        feed(conn, greeting() + command_frame(b"\x05READY"))


def test_big_handshake_command_arriving_in_pieces() -> None:
    from purezmq._zmtp import NullMechanism

    conn = conn_with(NullMechanism(), "DEALER")
    ready = command_frame(
        b"\x05READY" + prop(b"Socket-Type", b"ROUTER") + prop(b"X-Big", b"v" * 50_000)
    )
    assert ready[0] == 0x06 and struct.unpack(">Q", ready[1:9])[0] > 8192
    feed(conn, greeting() + ready, 4096)
    assert conn.handshake_done
    assert conn.peer_metadata["X-Big"] == b"v" * 50_000
