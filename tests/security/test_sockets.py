"""PLAIN, CURVE and ZAP between purezmq sockets: policies with and without a
handler (libzmq's rules), User-Id and ZAP metadata, monitor events, and a
handler that misbehaves."""

from __future__ import annotations

import errno
import threading
from collections.abc import Sequence

import pytest

pytest.importorskip("nacl")

import purezmq as zmq
from purezmq.utils import z85
from tests.conftest import wait_until

from .helpers import (
    Decision,
    Keys,
    Monitor,
    curve_client,
    curve_server,
    last_endpoint,
    offer,
    recv_or_none,
    start_zap,
)

ZMTP_CRYPTOGRAPHIC = 0x11000001
ZAP_UNSPECIFIED = 0x20000000
TRANSPORTS = ["tcp", "ipc"]


def endpoint(transport: str, ipc_dir: str, name: str = "sec") -> str:
    return "tcp://127.0.0.1:*" if transport == "tcp" else f"ipc://{ipc_dir}/{name}"


def pair(
    ctx: zmq.Context, server_type: int = zmq.ROUTER, client_type: int = zmq.DEALER
) -> tuple[zmq.Socket, zmq.Socket]:
    server, client = ctx.socket(server_type), ctx.socket(client_type)
    for s in (server, client):
        s.linger = 0
        s.rcvtimeo = 5000
        s.sndtimeo = 5000
    return server, client


def connect(server: zmq.Socket, client: zmq.Socket, addr: str = "tcp://127.0.0.1:*") -> None:
    server.bind(addr)
    client.connect(last_endpoint(server))


def plain_server(sock: zmq.Socket) -> zmq.Socket:
    sock.plain_server = True
    return sock


def plain_client(
    sock: zmq.Socket, user: bytes = b"admin", password: bytes = b"secret"
) -> zmq.Socket:
    sock.plain_username = user
    sock.plain_password = password
    return sock


def check_password(request: Sequence[bytes]) -> Decision:
    if request[5] == b"PLAIN" and request[6:] == [b"admin", b"secret"]:
        return b"200", b"OK", b"admin-user", b"\x05Hello\x00\x00\x00\x05World"
    return b"400", b"bad password", b"", b""


def deny_all(request: Sequence[bytes]) -> Decision:
    return b"400", b"denied", b"", b""


def round_trip(server: zmq.Socket, client: zmq.Socket) -> list[zmq.Frame]:
    """client -> server -> client; returns the frames the server received."""
    client.send_multipart([b"ping", b"x" * 300])
    frames = server.recv_multipart(copy=False)
    assert [f.bytes for f in frames[-2:]] == [b"ping", b"x" * 300]
    server.send_multipart([frames[0].bytes, b"pong"])
    assert client.recv() == b"pong"
    return frames


# ------------------------------------------------------------------ PLAIN
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_plain_with_zap(ctx: zmq.Context, ipc_dir: str, transport: str) -> None:
    handler = start_zap(ctx, check_password)
    server, client = pair(ctx)
    plain_server(server)
    server.zap_domain = b"global"
    server.routing_id = b"SRV"
    plain_client(client)
    connect(server, client, endpoint(transport, ipc_dir))
    frames = round_trip(server, client)
    for frame in frames:
        assert frame.get("User-Id") == "admin-user"
        assert frame.get("Hello") == "World"
        assert frame.get("Socket-Type") == "DEALER"
    [request] = handler.requests
    address = b"127.0.0.1" if transport == "tcp" else b""
    assert request == [b"1.0", b"1", b"global", address, b"SRV", b"PLAIN", b"admin", b"secret"]
    handler.stop()


def test_plain_wrong_password(ctx: zmq.Context) -> None:
    handler = start_zap(ctx, check_password)
    server, client = pair(ctx)
    plain_server(server)
    plain_client(client, password=b"guess")
    server_events, client_events = Monitor(server), Monitor(client)
    connect(server, client)
    offer(client, b"let me in")
    assert server_events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert client_events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert recv_or_none(server, 200) is None
    handler.stop()


def test_plain_without_a_handler_refuses_everybody(ctx: zmq.Context) -> None:
    """libzmq: a PLAIN server with no ZAP handler fails every handshake."""
    server, client = pair(ctx)
    plain_server(server)
    plain_client(client)
    events = Monitor(server)
    connect(server, client)
    offer(client, b"hello?")
    assert events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL).value == errno.EFAULT
    assert recv_or_none(server, 200) is None


def test_plain_zap_temporary_failure_lets_the_client_retry(ctx: zmq.Context) -> None:
    answers = iter([b"300", b"200"])

    def flaky(request: Sequence[bytes]) -> Decision:
        return next(answers), b"", b"u", b""

    handler = start_zap(ctx, flaky)
    server, client = pair(ctx)
    plain_server(server)
    plain_client(client)
    client.reconnect_ivl = 20
    connect(server, client)
    client.send(b"eventually")
    assert server.recv_multipart()[-1] == b"eventually"
    assert len(handler.requests) == 2  # the first was a silent 300: the client came back
    handler.stop()


# ------------------------------------------------------------------ CURVE
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_curve_without_handler_accepts_any_client(
    ctx: zmq.Context, keys: Keys, ipc_dir: str, transport: str
) -> None:
    """libzmq's stonehouse default: with no handler, any key is welcome."""
    server, client = pair(ctx)
    curve_server(server, keys)
    curve_client(client, keys)
    connect(server, client, endpoint(transport, ipc_dir))
    frames = round_trip(server, client)
    with pytest.raises(zmq.ZMQError):
        frames[-1].get("User-Id")  # no ZAP, no User-Id


def test_curve_with_zap_gets_the_client_key(ctx: zmq.Context, keys: Keys) -> None:
    def by_key(request: Sequence[bytes]) -> Decision:
        ok = request[5] == b"CURVE" and request[6] == z85.decode(keys.client_public)
        return (b"200", b"OK", b"client-1", b"") if ok else (b"400", b"no", b"", b"")

    handler = start_zap(ctx, by_key)
    server, client = pair(ctx)
    curve_server(server, keys)
    curve_client(client, keys)
    connect(server, client)
    frames = round_trip(server, client)
    assert frames[-1].get("User-Id") == "client-1"
    assert len(handler.requests) == 1
    handler.stop()


def test_curve_unknown_client_key_is_refused(ctx: zmq.Context, keys: Keys) -> None:
    handler = start_zap(ctx, deny_all)
    server, client = pair(ctx)
    curve_server(server, keys)
    curve_client(client, keys)
    server_events, client_events = Monitor(server), Monitor(client)
    connect(server, client)
    offer(client, b"intruder")
    assert server_events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert client_events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert recv_or_none(server, 200) is None
    handler.stop()


def test_curve_wrong_server_key(ctx: zmq.Context, keys: Keys) -> None:
    server, client = pair(ctx)
    curve_server(server, keys)
    other_public, _ = zmq.curve_keypair()
    curve_client(client, keys, server_public=other_public)
    events = Monitor(server)
    connect(server, client)
    offer(client, b"who are you?")
    assert events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL).value == ZMTP_CRYPTOGRAPHIC
    assert recv_or_none(server, 200) is None


def test_curve_enforce_domain_without_handler_refuses(ctx: zmq.Context, keys: Keys) -> None:
    server, client = pair(ctx)
    curve_server(server, keys)
    server.zap_domain = b"strict"
    server.zap_enforce_domain = True
    curve_client(client, keys)
    events = Monitor(server)
    connect(server, client)
    offer(client, b"x")
    assert events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL).value == errno.EFAULT
    assert recv_or_none(server, 200) is None


def test_curve_enforce_without_domain_accepts(ctx: zmq.Context, keys: Keys) -> None:
    server, client = pair(ctx)
    curve_server(server, keys)
    server.zap_enforce_domain = True
    curve_client(client, keys)
    connect(server, client)
    round_trip(server, client)


def test_curve_keys_as_raw_bytes(ctx: zmq.Context, keys: Keys) -> None:
    server, client = pair(ctx)
    server.curve_server = True
    server.curve_secretkey = z85.decode(keys.server_secret)
    client.curve_serverkey = z85.decode(keys.server_public)
    client.curve_publickey = z85.decode(keys.client_public)
    client.curve_secretkey = z85.decode(keys.client_secret)
    assert server.mechanism == zmq.CURVE and client.mechanism == zmq.CURVE
    assert server.curve_server == 1 and client.curve_server == 0
    connect(server, client)
    round_trip(server, client)


def test_curve_pub_sub(ctx: zmq.Context, keys: Keys) -> None:
    pub, sub = pair(ctx, zmq.PUB, zmq.SUB)
    curve_server(pub, keys)
    curve_client(sub, keys)
    sub.subscribe(b"weather")
    connect(pub, sub)

    def delivered() -> bool:
        pub.send_multipart([b"weather", b"sunny"])
        pub.send_multipart([b"sports", b"no"])
        return sub.poll(20) != 0

    wait_until(delivered)
    assert sub.recv_multipart() == [b"weather", b"sunny"]


def test_curve_large_message(ctx: zmq.Context, keys: Keys) -> None:
    server, client = pair(ctx, zmq.PULL, zmq.PUSH)
    curve_server(server, keys)
    curve_client(client, keys)
    connect(server, client)
    big = bytes(range(256)) * 8192  # 2 MiB
    client.send(big)
    assert server.recv() == big


def test_many_clients_through_one_handler(ctx: zmq.Context, keys: Keys) -> None:
    handler = start_zap(ctx)
    server = ctx.socket(zmq.PULL)
    server.linger = 0
    curve_server(server, keys)
    server.bind("tcp://127.0.0.1:*")
    clients = []
    for i in range(20):
        c = ctx.socket(zmq.PUSH)
        c.linger = 0
        curve_client(c, keys)
        c.connect(last_endpoint(server))
        c.send(b"%d" % i)
        clients.append(c)
    server.rcvtimeo = 5000
    got = {server.recv() for _ in clients}
    assert got == {b"%d" % i for i in range(20)}
    assert len(handler.requests) == 20
    handler.stop()


# ------------------------------------------------------------------ NULL + ZAP
def test_null_with_domain_and_no_handler_is_accepted(ctx: zmq.Context) -> None:
    server, client = pair(ctx)
    server.zap_domain = b"global"
    connect(server, client)
    round_trip(server, client)


def test_null_with_enforced_domain_and_no_handler_is_refused(ctx: zmq.Context) -> None:
    server, client = pair(ctx)
    server.zap_domain = b"global"
    server.zap_enforce_domain = True
    events = Monitor(server)
    connect(server, client)
    offer(client, b"x")
    assert events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL).value == errno.EFAULT
    assert recv_or_none(server, 200) is None


def test_null_denied_by_zap(ctx: zmq.Context) -> None:
    handler = start_zap(ctx, deny_all)
    server, client = pair(ctx)
    server.zap_domain = b"global"
    client_events = Monitor(client)
    connect(server, client)
    offer(client, b"x")
    assert client_events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_AUTH).value == 400
    assert handler.requests[0][5] == b"NULL"
    assert recv_or_none(server, 200) is None
    handler.stop()


def test_null_without_domain_never_asks_zap(ctx: zmq.Context) -> None:
    handler = start_zap(ctx, deny_all)
    server, client = pair(ctx)
    connect(server, client)
    round_trip(server, client)
    assert handler.requests == []
    handler.stop()


# ------------------------------------------------------------------ handlers
def test_router_handler(ctx: zmq.Context) -> None:
    handler = start_zap(ctx, check_password, router=True)
    server, client = pair(ctx)
    plain_server(server)
    plain_client(client)
    connect(server, client)
    assert round_trip(server, client)[-1].get("User-Id") == "admin-user"
    handler.stop()


def test_handler_that_never_answers_times_out(ctx: zmq.Context) -> None:
    handler = start_zap(ctx, lambda request: None)
    server, client = pair(ctx)
    plain_server(server)
    server.handshake_ivl = 200
    plain_client(client)
    events = Monitor(server)
    connect(server, client)
    offer(client, b"x")
    events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    assert recv_or_none(server, 100) is None
    handler.stop()


def test_handler_closing_before_answering(ctx: zmq.Context) -> None:
    asked = threading.Event()
    stop = threading.Event()

    def run() -> None:
        sock = ctx.socket(zmq.REP)
        sock.linger = 0
        sock.bind("inproc://zeromq.zap.01")
        sock.poll(5000)
        sock.recv_multipart()
        asked.set()
        stop.wait(5)
        sock.close()

    thread = threading.Thread(target=run)
    thread.start()
    wait_until(lambda: zmq_handler_bound(ctx))
    server, client = pair(ctx)
    plain_server(server)
    plain_client(client)
    events = Monitor(server)
    connect(server, client)
    offer(client, b"x")
    assert asked.wait(5)
    stop.set()
    thread.join()
    assert events.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL).value == ZAP_UNSPECIFIED
    assert recv_or_none(server, 100) is None


def zmq_handler_bound(ctx: zmq.Context) -> bool:
    from purezmq._core.zap import handler_bound

    return handler_bound(ctx._core)


def test_handler_bound_after_the_socket_still_counts(ctx: zmq.Context) -> None:
    """The handler is looked up per connection, not when the server binds."""
    server, client = pair(ctx)
    plain_server(server)
    server.bind("tcp://127.0.0.1:*")
    handler = start_zap(ctx, check_password)
    plain_client(client)
    client.connect(last_endpoint(server))
    round_trip(server, client)
    handler.stop()
