"""A man in the middle against CURVE connections over real TCP: replayed,
reordered and tampered boxes, tampered handshakes, truncated handshakes,
and what a passive listener sees. Each attack must end only that
connection, with libzmq's monitor event, and deliver no forged data.

The relay (helpers.Relay) sits between a client and a server; the server is
purezmq or libzmq, so our events are checked against libzmq's own."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("nacl")

import zmq

import purezmq

from .helpers import (
    Keys,
    Monitor,
    Relay,
    curve_client,
    curve_server,
    last_endpoint,
    make_frame,
    recv_or_none,
    split_frame,
)

ZMTP_CRYPTOGRAPHIC = 0x11000001
ZMTP_INVALID_SEQUENCE = 0x10000002

#: (client impl, server impl) pairs the attacks run on.
PAIRS = [("pz", "pz"), ("pz", "lz"), ("lz", "pz")]


class Setup:
    def __init__(self, pz_ctx: purezmq.Context, lz_ctx: Any) -> None:
        self.ctx = {"pz": pz_ctx, "lz": lz_ctx}
        self.sockets: list[Any] = []
        self.relays: list[Relay] = []

    def socket(self, impl: str, kind: str) -> Any:
        mod = purezmq if impl == "pz" else zmq
        sock = self.ctx[impl].socket(getattr(mod, kind))
        sock.linger = 0
        sock.rcvtimeo = 3000
        sock.sndtimeo = 3000
        self.sockets.append(sock)
        return sock

    def curve_through_relay(
        self, client_impl: str, server_impl: str, keys: Keys, hook: Any = None
    ) -> tuple[Any, Any, Relay]:
        server = curve_server(self.socket(server_impl, "PULL"), keys)
        client = curve_client(self.socket(client_impl, "PUSH"), keys)
        server.bind("tcp://127.0.0.1:0")
        port = int(last_endpoint(server).rsplit(":", 1)[1])
        relay = Relay(port, hook)
        self.relays.append(relay)
        client.connect(relay.endpoint)
        return server, client, relay

    def close(self) -> None:
        for s in self.sockets:
            s.close(0)
        for r in self.relays:
            r.close()


@pytest.fixture
def setup(ctx: purezmq.Context, lz_ctx: Any) -> Iterator[Setup]:
    s = Setup(ctx, lz_ctx)
    yield s
    s.close()


def event_codes(impl: str) -> Any:
    return purezmq if impl == "pz" else zmq


def once(action: Any) -> Any:
    """A hook acting on the first connection only (reconnects pass untouched)."""
    state = {"conn": None}

    def hook(direction: str, index: int, frame: bytes) -> list[bytes]:
        if direction != "c2s":
            return [frame]
        if index == 0:  # HELLO starts a connection
            state["conn"] = 1 if state["conn"] is None else 2
        if state["conn"] != 1:
            return [frame]
        result: list[bytes] = action(index, frame)
        return result

    return hook


def drain(sock: Any, seconds: float) -> list[bytes]:
    got = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        msg = recv_or_none(sock, 20)
        if msg is not None:
            got.append(msg[0])
    return got


# ------------------------------------------------------------------ passive
@pytest.mark.parametrize(("client_impl", "server_impl"), PAIRS)
def test_captured_session_holds_no_plaintext(
    setup: Setup, keys: Keys, client_impl: str, server_impl: str
) -> None:
    server, client, relay = setup.curve_through_relay(client_impl, server_impl, keys)
    secret = b"Attack at dawn; the password is swordfish. " * 8
    random_payload = os.urandom(4096)
    client.send(secret)
    client.send(random_payload)
    assert server.recv() == secret
    assert server.recv() == random_payload
    wire = bytes(relay.recorded["c2s"]) + bytes(relay.recorded["s2c"])
    assert len(wire) > len(secret) + len(random_payload)
    for payload in (secret, random_payload):
        for i in range(len(payload) - 8):
            assert payload[i : i + 8] not in wire
    assert b"Socket-Type" not in wire[128:]  # metadata travels inside boxes too


# ------------------------------------------------------------------ active
@pytest.mark.parametrize(("client_impl", "server_impl"), PAIRS)
def test_replayed_message(setup: Setup, keys: Keys, client_impl: str, server_impl: str) -> None:
    hook = once(lambda index, frame: [frame, frame] if index == 2 else [frame])
    server, client, _ = setup.curve_through_relay(client_impl, server_impl, keys, hook)
    events = Monitor(server)
    client.send(b"pay 100 to mallory")
    failed = events.wait_for(event_codes(server_impl).EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == ZMTP_INVALID_SEQUENCE
    assert drain(server, 0.3).count(b"pay 100 to mallory") <= 1


@pytest.mark.parametrize(("client_impl", "server_impl"), PAIRS)
def test_reordered_messages(setup: Setup, keys: Keys, client_impl: str, server_impl: str) -> None:
    held: list[bytes] = []

    def swap(index: int, frame: bytes) -> list[bytes]:
        if index == 2:
            held.append(frame)
            return []
        if index == 3:
            return [frame, held.pop()]
        return [frame]

    server, client, _ = setup.curve_through_relay(client_impl, server_impl, keys, once(swap))
    events = Monitor(server)
    client.send(b"first")
    client.send(b"second")
    failed = events.wait_for(event_codes(server_impl).EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == ZMTP_INVALID_SEQUENCE
    # "second" (nonce 4) was authentic and in sequence when it came; "first"
    # (nonce 3) came after it and was refused: it is never delivered.
    assert drain(server, 0.3) == [b"second"]


@pytest.mark.parametrize(("client_impl", "server_impl"), PAIRS)
def test_tampered_message(setup: Setup, keys: Keys, client_impl: str, server_impl: str) -> None:
    def flip(index: int, frame: bytes) -> list[bytes]:
        if index != 2:
            return [frame]
        flags, body = split_frame(frame)
        tampered = bytearray(body)
        tampered[-3] ^= 0x20
        return [make_frame(flags, bytes(tampered))]

    server, client, _ = setup.curve_through_relay(client_impl, server_impl, keys, once(flip))
    events = Monitor(server)
    client.send(b"transfer 10 EUR")
    failed = events.wait_for(event_codes(server_impl).EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == ZMTP_CRYPTOGRAPHIC
    got = drain(server, 0.5)
    assert all(m == b"transfer 10 EUR" for m in got)  # the client's resend only, never a forgery


@pytest.mark.parametrize(("client_impl", "server_impl"), PAIRS)
def test_tampered_initiate(setup: Setup, keys: Keys, client_impl: str, server_impl: str) -> None:
    def flip(index: int, frame: bytes) -> list[bytes]:
        if index != 1:
            return [frame]
        flags, body = split_frame(frame)
        tampered = bytearray(body)
        tampered[150] ^= 0x01  # inside the INITIATE box
        return [make_frame(flags, bytes(tampered))]

    server, client, _ = setup.curve_through_relay(client_impl, server_impl, keys, once(flip))
    events = Monitor(server)
    client.send(b"hello")
    failed = events.wait_for(event_codes(server_impl).EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == ZMTP_CRYPTOGRAPHIC
    # The client reconnects (a dropped connection is a soft error) and gets through.
    assert server.recv() == b"hello"


@pytest.mark.parametrize(("client_impl", "server_impl"), PAIRS)
def test_server_messages_replayed_to_the_client(
    setup: Setup, keys: Keys, client_impl: str, server_impl: str
) -> None:
    """The other direction: the server's boxes replayed at the client."""
    state = {"seen": 0}

    def dup(direction: str, index: int, frame: bytes) -> list[bytes]:
        if direction == "s2c" and index == 2 and state["seen"] == 0:
            state["seen"] = 1
            return [frame, frame]
        return [frame]

    server = curve_server(setup.socket(server_impl, "PUSH"), keys)
    client = curve_client(setup.socket(client_impl, "PULL"), keys)
    server.bind("tcp://127.0.0.1:0")
    relay = Relay(int(last_endpoint(server).rsplit(":", 1)[1]), dup)
    setup.relays.append(relay)
    events = Monitor(client)
    client.connect(relay.endpoint)
    server.send(b"only once")
    failed = events.wait_for(event_codes(client_impl).EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == ZMTP_INVALID_SEQUENCE
    assert drain(client, 0.3).count(b"only once") <= 1


# ------------------------------------------------------------------ truncated handshakes
@pytest.mark.parametrize("server_impl", ["pz", "lz"])
@pytest.mark.parametrize("stall_after", [11, 64, 64 + 100])
def test_truncated_handshake_times_out(
    setup: Setup, keys: Keys, server_impl: str, stall_after: int
) -> None:
    server = curve_server(setup.socket(server_impl, "PULL"), keys)
    server.handshake_ivl = 300
    events = Monitor(server)
    server.bind("tcp://127.0.0.1:0")
    port = int(last_endpoint(server).rsplit(":", 1)[1])
    greeting = b"\xff" + bytes(8) + b"\x7f\x03\x01CURVE" + bytes(15) + b"\x00" + bytes(31)
    hello_frame = b"\x04\xc8" + b"\x05HELLO\x01\x00" + bytes(192)
    raw = socket.create_connection(("127.0.0.1", port))
    raw.sendall((greeting + hello_frame)[:stall_after])
    events.wait_for(event_codes(server_impl).EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    raw.settimeout(3)
    data = b""
    while True:  # the server closed the connection
        chunk = raw.recv(4096)
        if not chunk:
            break
        data += chunk
    raw.close()
    # A well-behaved client is still served.
    client = curve_client(setup.socket("pz", "PUSH"), keys)
    client.connect(last_endpoint(server))
    client.send(b"still here")
    assert server.recv() == b"still here"


@pytest.mark.parametrize("server_impl", ["pz", "lz"])
def test_client_vanishing_mid_handshake(setup: Setup, keys: Keys, server_impl: str) -> None:
    server = curve_server(setup.socket(server_impl, "PULL"), keys)
    events = Monitor(server)
    server.bind("tcp://127.0.0.1:0")
    port = int(last_endpoint(server).rsplit(":", 1)[1])
    greeting = b"\xff" + bytes(8) + b"\x7f\x03\x01CURVE" + bytes(15) + b"\x00" + bytes(31)
    for cut in (5, 64, 64 + 50):
        raw = socket.create_connection(("127.0.0.1", port))
        raw.sendall((greeting + b"\x04\xc8\x05HELLO\x01\x00" + bytes(192))[:cut])
        raw.close()
    events.wait_for(event_codes(server_impl).EVENT_DISCONNECTED)
    client = curve_client(setup.socket("pz", "PUSH"), keys)
    client.connect(last_endpoint(server))
    client.send(b"fine")
    assert server.recv() == b"fine"
