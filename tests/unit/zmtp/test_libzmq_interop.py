"""ZMTPConnection against the real libzmq (through the pyzmq wheel).

A blocking Python socket carries the bytes; `Link` is a minimal test driver
(get_buffer / recv_into / buffer_updated, sendall of data_to_send). Every
wait is on a condition with a timeout.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator

import pytest

from purezmq._zmtp import NullMechanism, ProtocolError, ZMTPConnection, commands

from .helpers import READY_DEALER

zmq = pytest.importorskip("zmq")

pytestmark = pytest.mark.interop
TIMEOUT = 5.0


class Link:
    """Drives one ZMTPConnection over a blocking TCP socket."""

    def __init__(self, conn: ZMTPConnection, sock: socket.socket) -> None:
        self.conn = conn
        self.sock = sock
        self.received = bytearray()  # every byte libzmq sent, for inspection
        self.inbox: list[list[bytes]] = []

    def flush(self) -> None:
        for chunk in self.conn.data_to_send():
            self.sock.sendall(chunk)

    def read_once(self, timeout: float) -> bool:
        self.sock.settimeout(max(timeout, 0.001))
        view = self.conn.get_buffer()
        try:
            count = self.sock.recv_into(view)
        except TimeoutError:
            return False
        if count == 0:
            raise ConnectionResetError("libzmq closed the connection")
        self.received += view[:count]
        self.conn.buffer_updated(count, time.monotonic())
        return True

    def wait_for(self, condition: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.flush()
            if self.conn.handshake_done:
                self.inbox.extend(self.conn.pull(1000))
                self.flush()
            if condition():
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("condition not met in time")
            self.read_once(min(left, 0.05))
            deadline_timer = self.conn.next_deadline()
            if deadline_timer is not None and deadline_timer <= time.monotonic():
                self.conn.on_timer(time.monotonic())

    def handshake(self) -> None:
        self.wait_for(lambda: self.conn.handshake_done)

    def messages(self, count: int) -> list[list[bytes]]:
        self.wait_for(lambda: len(self.inbox) >= count)
        taken, self.inbox = self.inbox[:count], self.inbox[count:]
        return taken


@pytest.fixture
def ctx() -> Iterator[object]:
    context = zmq.Context()
    yield context
    context.destroy(linger=0)


def bound(ctx: object, socket_type: int, **options: object) -> tuple[object, int]:
    sock = ctx.socket(socket_type)  # type: ignore[attr-defined]
    sock.linger = 0
    for name, value in options.items():
        sock.setsockopt(getattr(zmq, name), value)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    return sock, port


def connect(port: int, socket_type: str, identity: bytes | None = None, **kw: object) -> Link:
    raw = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    conn = ZMTPConnection(
        socket_type=socket_type,
        mechanism=NullMechanism(identity=identity),
        now=time.monotonic(),
        **kw,  # type: ignore[arg-type]
    )
    return Link(conn, raw)


def recv_multipart(sock: object) -> list[bytes]:
    assert sock.poll(int(TIMEOUT * 1000)), "libzmq socket got nothing"  # type: ignore[attr-defined]
    return sock.recv_multipart()  # type: ignore[attr-defined,no-any-return]


def test_libzmq_greeting_and_ready_bytes(ctx: object) -> None:
    """What libzmq 4.3 actually sends: signature, then the rest only after
    our first 11 bytes; minor version 1; READY as in testutil.hpp."""
    server, port = bound(ctx, zmq.DEALER)
    raw = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    got = b""
    while len(got) < 10:
        got += raw.recv(64)
    # libzmq's padding is its routing-id length + 1 (ZMTP 1.0 compatibility)
    assert got[:10] == b"\xff" + b"\x00" * 7 + b"\x01" + b"\x7f"
    raw.sendall(b"\xff" + b"\x00" * 8 + b"\x7f\x03")
    while len(got) < 64:
        got += raw.recv(64 - len(got))
    assert got[10:12] == b"\x03\x01"
    assert got[12:32] == b"NULL".ljust(20, b"\x00") and got[32] == 0
    raw.sendall(b"\x01NULL" + b"\x00" * 16 + b"\x00" + b"\x00" * 31)
    ready = b""
    while len(ready) < len(READY_DEALER):
        ready += raw.recv(len(READY_DEALER) - len(ready))
    assert ready == READY_DEALER
    raw.close()
    server.close()  # type: ignore[attr-defined]


def test_dealer_to_libzmq_router_both_ways(ctx: object) -> None:
    router, port = bound(ctx, zmq.ROUTER)
    link = connect(port, "DEALER", identity=b"purezmq")
    link.handshake()
    assert link.conn.peer_socket_type == "ROUTER"
    assert link.conn.peer_minor == 1
    link.conn.send_messages([[b"hello"], [b"multi", b"part", b""]])
    link.flush()
    assert recv_multipart(router) == [b"purezmq", b"hello"]
    assert recv_multipart(router) == [b"purezmq", b"multi", b"part", b""]
    router.send_multipart([b"purezmq", b"reply", b"x" * 300])  # type: ignore[attr-defined]
    assert link.messages(1) == [[b"reply", b"x" * 300]]


def test_large_messages_through_libzmq(ctx: object) -> None:
    peer, port = bound(ctx, zmq.PAIR)
    link = connect(port, "PAIR")
    link.handshake()
    big = bytes(range(256)) * 4096  # 1 MiB
    link.conn.send_messages([[big], [memoryview(big)[:70000], b"tail"]])
    link.flush()
    assert recv_multipart(peer) == [big]
    assert recv_multipart(peer) == [big[:70000], b"tail"]
    peer.send_multipart([big, big[:8192]])  # type: ignore[attr-defined]
    assert link.messages(1) == [[big, big[:8192]]]


def test_sub_sends_subscribe_commands_to_libzmq_xpub(ctx: object) -> None:
    xpub, port = bound(ctx, zmq.XPUB)
    link = connect(port, "SUB")
    link.conn.send_messages([[b"\x01weather"]])  # queued before the handshake
    link.handshake()
    before = len(link.received)
    link.flush()
    assert recv_multipart(xpub) == [b"\x01weather"]
    xpub.send_multipart([b"weather", b"sunny"])  # type: ignore[attr-defined]
    assert link.messages(1) == [[b"weather", b"sunny"]]
    link.conn.send_messages([[b"\x00weather"]])
    link.flush()
    assert recv_multipart(xpub) == [b"\x00weather"]
    assert len(link.received) >= before


def test_our_sub_output_uses_command_form_for_libzmq() -> None:
    """libzmq greets with minor 1, so our subscriptions are commands."""
    conn = ZMTPConnection(socket_type="SUB", mechanism=NullMechanism(), now=0.0)
    conn.receive_data(b"\xff" + b"\x00" * 7 + b"\x01\x7f\x03\x01NULL" + b"\x00" * 48, 0.0)
    conn.receive_data(b"\x04\x1a\x05READY\x0bSocket-Type\x00\x00\x00\x04XPUB", 0.0)
    conn.data_to_send()
    conn.send_messages([[b"\x01A"]])
    assert b"".join(bytes(c) for c in conn.data_to_send()) == b"\x04\x0b\x09SUBSCRIBEA"


def test_libzmq_sub_subscribes_to_our_xpub(ctx: object) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    sub = ctx.socket(zmq.SUB)  # type: ignore[attr-defined]
    sub.linger = 0
    sub.setsockopt(zmq.SUBSCRIBE, b"news")
    sub.connect(f"tcp://127.0.0.1:{port}")
    listener.settimeout(TIMEOUT)
    raw, _ = listener.accept()
    conn = ZMTPConnection(socket_type="XPUB", mechanism=NullMechanism(), now=time.monotonic())
    link = Link(conn, raw)
    link.handshake()
    assert conn.peer_socket_type == "SUB"
    assert link.messages(1) == [[b"\x01news"]]
    assert b"\x09SUBSCRIBEnews" in link.received  # libzmq sent the command form
    conn.send_messages([[b"news", b"flash"]])
    link.flush()
    assert recv_multipart(sub) == [b"news", b"flash"]
    sub.setsockopt(zmq.UNSUBSCRIBE, b"news")
    assert link.messages(1) == [[b"\x00news"]]
    raw.close()
    listener.close()


def test_we_answer_libzmq_pings(ctx: object) -> None:
    dealer, port = bound(ctx, zmq.DEALER, HEARTBEAT_IVL=50, HEARTBEAT_TTL=2000,
                         HEARTBEAT_TIMEOUT=300)  # fmt: skip
    link = connect(port, "DEALER", identity=b"")
    link.handshake()
    ping = b"\x04\x07\x04PING\x00\x14"  # TTL 2000 ms = 20 deciseconds
    link.wait_for(lambda: link.received.count(ping) >= 8)  # 400 ms > timeout
    # libzmq kept the connection: it would have closed it after 300 ms
    # without our PONGs (any traffic counts, and we send nothing else).
    link.conn.send_messages([[b"still here"]])
    link.flush()
    assert recv_multipart(dealer) == [b"still here"]


def test_libzmq_answers_our_ping_with_context(ctx: object) -> None:
    _router, port = bound(ctx, zmq.ROUTER)
    link = connect(port, "DEALER", identity=b"")
    link.handshake()
    link.conn.send_command(commands.ping(0, b"LOL"))
    link.wait_for(lambda: b"\x04\x08\x04PONGLOL" in link.received)


def test_our_heartbeats_with_libzmq(ctx: object) -> None:
    _router, port = bound(ctx, zmq.ROUTER)
    link = connect(port, "DEALER", identity=b"", heartbeat_ivl=0.05, heartbeat_ttl=1.0)
    link.handshake()
    link.wait_for(lambda: link.received.count(b"\x04\x05\x04PONG") >= 3)
    assert link.conn.state == "ready"


def test_libzmq_refuses_incompatible_socket_type(ctx: object) -> None:
    _push, port = bound(ctx, zmq.PUSH)
    link = connect(port, "PUSH")
    with pytest.raises((ProtocolError, ConnectionResetError)):
        link.handshake()
    if link.conn.close_reason is not None:
        assert "incompatible" in link.conn.close_reason.reason
        link.flush()  # the ERROR command goes out best-effort
