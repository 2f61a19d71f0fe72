"""PLAIN and CURVE against libzmq 4.3 (through pyzmq), both directions, tcp
and ipc: purezmq client <-> libzmq server and libzmq client <-> purezmq
server, with ZAP answered by each side's own ``zmq.auth`` (pyzmq's
ThreadAuthenticator for libzmq, ours for purezmq), plus the failures: bad
password, wrong server key, unknown client key."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("nacl")

import zmq
import zmq.auth.thread

import purezmq
import purezmq.auth.thread

from .helpers import (
    Keys,
    Monitor,
    curve_client,
    curve_server,
    last_endpoint,
    module_of,
    offer,
    recv_or_none,
)

pytestmark = pytest.mark.interop

ZMTP_CRYPTOGRAPHIC = 0x11000001
DIRECTIONS = ["pz-client/lz-server", "lz-client/pz-server"]
TRANSPORTS = ["tcp", "ipc"]


class Side:
    """The sockets, contexts and authenticators of one test."""

    def __init__(self, pz_ctx: purezmq.Context, lz_ctx: zmq.Context[Any], ipc_dir: str) -> None:
        self.ctx = {"pz": pz_ctx, "lz": lz_ctx}
        self.ipc_dir = ipc_dir
        self.sockets: list[Any] = []
        self.auths: list[Any] = []
        self.n = 0

    def socket(self, impl: str, kind: str) -> Any:
        mod = purezmq if impl == "pz" else zmq
        sock = self.ctx[impl].socket(getattr(mod, kind))
        sock.linger = 0
        sock.rcvtimeo = 5000
        sock.sndtimeo = 5000
        self.sockets.append(sock)
        return sock

    def authenticator(self, impl: str) -> Any:
        cls = (
            purezmq.auth.thread.ThreadAuthenticator
            if impl == "pz"
            else zmq.auth.thread.ThreadAuthenticator
        )
        auth = cls(self.ctx[impl])
        auth.start()
        self.auths.append(auth)
        return auth

    def endpoint(self, transport: str) -> str:
        self.n += 1
        if transport == "tcp":
            return "tcp://127.0.0.1:*"
        return f"ipc://{self.ipc_dir}/interop-{self.n}"

    def close(self) -> None:
        for s in self.sockets:
            s.close(0)
        for a in self.auths:
            a.stop()


@pytest.fixture
def side(ctx: purezmq.Context, lz_ctx: zmq.Context[Any], ipc_dir: str) -> Iterator[Side]:
    s = Side(ctx, lz_ctx, ipc_dir)
    yield s
    s.close()


def impls(direction: str) -> tuple[str, str]:
    """(client impl, server impl)."""
    client, server = direction.split("/")
    return client.split("-")[0], server.split("-")[0]


def connect(server: Any, client: Any, addr: str) -> None:
    server.bind(addr)
    client.connect(last_endpoint(server))


def round_trip(server: Any, client: Any, payload: bytes = b"payload") -> list[Any]:
    client.send_multipart([b"hello", payload])
    frames = server.recv_multipart(copy=False)
    assert [bytes(f.bytes) for f in frames[-2:]] == [b"hello", payload]
    server.send_multipart([frames[0].bytes, b"reply"])
    assert client.recv() == b"reply"
    return frames


# ------------------------------------------------------------------ PLAIN
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_plain(side: Side, direction: str, transport: str) -> None:
    c_impl, s_impl = impls(direction)
    auth = side.authenticator(s_impl)
    auth.configure_plain(domain="*", passwords={"admin": "s3cret"})
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    server.plain_server = True
    client.plain_username = b"admin"
    client.plain_password = b"s3cret"
    assert server.mechanism == module_of(server).PLAIN == client.mechanism
    connect(server, client, side.endpoint(transport))
    frames = round_trip(server, client)
    assert frames[-1].get("User-Id") == "admin"
    assert frames[-1].get("Socket-Type") == "DEALER"


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_plain_bad_password(side: Side, direction: str) -> None:
    c_impl, s_impl = impls(direction)
    auth = side.authenticator(s_impl)
    auth.configure_plain(domain="*", passwords={"admin": "s3cret"})
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    server.plain_server = True
    client.plain_username = b"admin"
    client.plain_password = b"guess"
    server_events, client_events = Monitor(server), Monitor(client)
    connect(server, client, "tcp://127.0.0.1:*")
    offer(client, b"x")
    server_auth = module_of(server).EVENT_HANDSHAKE_FAILED_AUTH
    client_auth = module_of(client).EVENT_HANDSHAKE_FAILED_AUTH
    assert server_events.wait_for(server_auth).value == 400
    assert client_events.wait_for(client_auth).value == 400
    assert recv_or_none(server, 200) is None


# ------------------------------------------------------------------ CURVE
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_curve_with_certificates(
    side: Side, keys: Keys, direction: str, transport: str, tmp_path: Any
) -> None:
    c_impl, s_impl = impls(direction)
    auth = side.authenticator(s_impl)
    certs = tmp_path / "public"
    certs.mkdir()
    (certs / "client.key").write_text(f'curve\n    public-key = "{keys.client_public.decode()}"\n')
    auth.configure_curve(domain="*", location=str(certs))
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    curve_server(server, keys)
    curve_client(client, keys)
    connect(server, client, side.endpoint(transport))
    frames = round_trip(server, client, os.urandom(1000))
    assert frames[-1].get("User-Id") == keys.client_public.decode()


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_curve_without_handler(side: Side, keys: Keys, direction: str, transport: str) -> None:
    c_impl, s_impl = impls(direction)
    server, client = side.socket(s_impl, "REP"), side.socket(c_impl, "REQ")
    curve_server(server, keys)
    curve_client(client, keys)
    connect(server, client, side.endpoint(transport))
    for i in range(3):
        client.send(b"request %d" % i)
        assert server.recv() == b"request %d" % i
        server.send(b"reply %d" % i)
        assert client.recv() == b"reply %d" % i


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_curve_large_messages(side: Side, keys: Keys, direction: str) -> None:
    c_impl, s_impl = impls(direction)
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    curve_server(server, keys)
    curve_client(client, keys)
    connect(server, client, "tcp://127.0.0.1:*")
    big = os.urandom(3 * 1024 * 1024)
    client.send_multipart([b"", big])
    rid, _, got = server.recv_multipart()
    assert got == big
    server.send_multipart([rid, big[::-1]])
    assert client.recv() == big[::-1]


@pytest.mark.parametrize("direction", ["pz-pub/lz-sub", "lz-pub/pz-sub"])
def test_curve_pub_sub(side: Side, keys: Keys, direction: str) -> None:
    pub_impl, sub_impl = (part.split("-")[0] for part in direction.split("/"))
    pub, sub = side.socket(pub_impl, "PUB"), side.socket(sub_impl, "SUB")
    curve_server(pub, keys)
    curve_client(sub, keys)
    sub.subscribe(b"A")
    connect(pub, sub, "tcp://127.0.0.1:*")
    deadline = time.monotonic() + 5
    got = None
    while got is None and time.monotonic() < deadline:
        pub.send(b"B-not-for-you")
        pub.send(b"A-news")
        got = recv_or_none(sub, 20)
    assert got == [b"A-news"]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_curve_heartbeats(side: Side, keys: Keys, direction: str) -> None:
    """PING/PONG travel encrypted; both sides keep the connection alive."""
    c_impl, s_impl = impls(direction)
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    for s in (server, client):
        s.heartbeat_ivl = 30
        s.heartbeat_timeout = 300
    curve_server(server, keys)
    curve_client(client, keys)
    events = Monitor(client)
    connect(server, client, "tcp://127.0.0.1:*")
    round_trip(server, client)
    time.sleep(0.5)  # many heartbeat intervals
    round_trip(server, client)
    assert module_of(client).EVENT_DISCONNECTED not in events.kinds()


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_curve_wrong_server_key(side: Side, keys: Keys, direction: str) -> None:
    c_impl, s_impl = impls(direction)
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    curve_server(server, keys)
    other_public, _ = zmq.curve_keypair()
    curve_client(client, keys, server_public=other_public)
    events = Monitor(server)
    connect(server, client, "tcp://127.0.0.1:*")
    offer(client, b"x")
    failed = events.wait_for(module_of(server).EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == ZMTP_CRYPTOGRAPHIC
    assert recv_or_none(server, 200) is None


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_curve_unknown_client_key(side: Side, keys: Keys, direction: str, tmp_path: Any) -> None:
    c_impl, s_impl = impls(direction)
    auth = side.authenticator(s_impl)
    empty = tmp_path / "nobody"
    empty.mkdir()
    auth.configure_curve(domain="*", location=str(empty))
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    curve_server(server, keys)
    curve_client(client, keys)
    server_events, client_events = Monitor(server), Monitor(client)
    connect(server, client, "tcp://127.0.0.1:*")
    offer(client, b"x")
    assert server_events.wait_for(module_of(server).EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert client_events.wait_for(module_of(client).EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert recv_or_none(server, 200) is None


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_null_zap_domain_allow_list(side: Side, direction: str) -> None:
    """NULL with a ZAP domain asks the handler, which checks the address."""
    c_impl, s_impl = impls(direction)
    auth = side.authenticator(s_impl)
    auth.allow("127.0.0.1")
    server, client = side.socket(s_impl, "ROUTER"), side.socket(c_impl, "DEALER")
    server.zap_domain = b"global"
    connect(server, client, "tcp://127.0.0.1:*")
    assert round_trip(server, client)[-1].get("User-Id") == "anonymous"
