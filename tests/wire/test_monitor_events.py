"""Monitor events for connections driven by raw peers: libzmq's event kinds,
values and order (``zmq_socket_monitor``; stream_engine_base.cpp ``error``).

- ACCEPTED / CONNECTED carry the OS socket's fd; DISCONNECTED the same fd.
- HANDSHAKE_FAILED_PROTOCOL carries libzmq's ZMQ_PROTOCOL_ERROR_* code; it is
  emitted once, only while handshaking, and is followed by DISCONNECTED.
- A peer's ERROR with a ZAP status ("400") is HANDSHAKE_FAILED_AUTH(400).
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

import purezmq as zmq

from .helpers import Bound, Monitor, wait_until
from .zmtp_raw import RawPeer, command, frame, greeting, message, ready

RawFactory = Callable[..., RawPeer]
FAILED = (
    zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
)


@pytest.fixture
def watched(
    bound: Callable[..., Bound], monitor: Callable[..., Monitor]
) -> Callable[..., tuple[Bound, Monitor]]:
    def make(stype: str = "ROUTER", **opts: object) -> tuple[Bound, Monitor]:
        b = bound(stype, **opts)
        mon = monitor(b.sock)
        return b, mon

    return make


def _kinds(mon: Monitor) -> list[int]:
    return [e.event for e in mon.seen]


def test_accepted_handshake_disconnected(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory
) -> None:
    b, mon = watched()
    peer = raw(b.port)
    peer.handshake(b"DEALER", b"p")
    accepted = mon.wait_for(zmq.EVENT_ACCEPTED)
    ok = mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    peer.close()
    gone = mon.wait_for(zmq.EVENT_DISCONNECTED)
    assert accepted.endpoint == ok.endpoint == gone.endpoint == b.endpoint
    assert ok.value == 0
    assert accepted.value == gone.value, "DISCONNECTED carries the accepted fd"
    assert accepted.value > 2
    assert not any(k & FAILED for k in _kinds(mon))


def test_connect_side_events(ctx: zmq.Context) -> None:
    lsock = socket.create_server(("127.0.0.1", 0))
    lsock.settimeout(5)
    port = lsock.getsockname()[1]
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    mon = Monitor(dealer.get_monitor_socket())
    endpoint = f"tcp://127.0.0.1:{port}"
    try:
        dealer.connect(endpoint)
        conn, _ = lsock.accept()
        peer = RawPeer(conn)
        peer.handshake(b"ROUTER")
        connected = mon.wait_for(zmq.EVENT_CONNECTED)
        assert connected.endpoint == endpoint
        mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        peer.close()
        gone = mon.wait_for(zmq.EVENT_DISCONNECTED)
        assert gone.value == connected.value
        assert gone.endpoint == endpoint
    finally:
        dealer.close(0)
        lsock.close()


# Cases where libzmq 4.3.5 itself emits HANDSHAKE_FAILED_PROTOCOL, with its code
# (checked against the pyzmq wheel's libzmq while writing these tests).
LIBZMQ_CODES = {
    "mechanism-plain": (greeting(mechanism=b"PLAIN"), zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH),
    "unknown-command": (greeting() + command(b"HELLO"), zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND),
    "message-first": (greeting() + message(b"x"), zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND),
    "malformed-error": (
        greeting() + command(b"ERROR", b"\xffshort"),
        zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR,
    ),
}


@pytest.mark.parametrize("case", sorted(LIBZMQ_CODES))
def test_handshake_failed_protocol_code(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory, case: str
) -> None:
    b, mon = watched()
    data, code = LIBZMQ_CODES[case]
    peer = raw(b.port)
    peer.send(data)
    peer.wait_closed(2.0)
    failed = mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert failed.value == code, f"{failed.value:#x} != {code:#x}"
    assert failed.endpoint == b.endpoint
    mon.wait_for(zmq.EVENT_DISCONNECTED)
    mon.drain(wait=0.05)
    kinds = _kinds(mon)
    # Exactly one failure event, before the one DISCONNECTED; never success.
    assert sum(1 for k in kinds if k & FAILED) == 1, mon.seen
    assert kinds.count(zmq.EVENT_DISCONNECTED) == 1, mon.seen
    assert kinds.index(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL) < kinds.index(zmq.EVENT_DISCONNECTED)
    assert zmq.EVENT_HANDSHAKE_SUCCEEDED not in kinds


@pytest.mark.parametrize("status", [b"300", b"400", b"500"])
def test_peer_error_with_zap_status_is_auth_failure(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory, status: bytes
) -> None:
    """libzmq (mechanism_base_t::handle_error_reason): an ERROR whose reason
    is a ZAP status code is reported as HANDSHAKE_FAILED_AUTH(code)."""
    b, mon = watched()
    peer = raw(b.port)
    peer.send(greeting())
    peer.read_greeting()
    peer.send(command(b"ERROR", bytes((len(status),)) + status))
    peer.wait_closed(2.0)
    ev = mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_AUTH)
    assert ev.value == int(status)


def test_peer_error_with_text_ends_handshake(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory
) -> None:
    b, mon = watched()
    peer = raw(b.port)
    peer.send(greeting())
    peer.read_greeting()
    peer.send(command(b"ERROR", b"\x04boom"))
    peer.wait_closed(2.0)
    mon.wait_for(zmq.EVENT_DISCONNECTED)
    assert zmq.EVENT_HANDSHAKE_SUCCEEDED not in _kinds(mon)
    assert zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL not in _kinds(mon)


def test_handshake_timeout_is_no_detail(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory
) -> None:
    b, mon = watched(HANDSHAKE_IVL=200)
    peer = raw(b.port)
    peer.send(greeting())  # and never READY
    peer.wait_closed(2.0)
    mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    mon.wait_for(zmq.EVENT_DISCONNECTED)
    assert zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL not in _kinds(mon)


@pytest.mark.parametrize(
    "bad",
    [b"\x08\x03abc", frame(b"", command=True), b"\x05" + command(b"PING", b"\x00\x00")[1:]],
    ids=["reserved-flags", "empty-command", "command-more"],
)
def test_error_after_handshake_is_only_disconnected(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory, bad: bytes
) -> None:
    """libzmq emits HANDSHAKE_FAILED_* only while handshaking; a broken
    established connection reports DISCONNECTED alone. Here the application
    keeps reading, so the bad bytes are parsed whatever the read-ahead does."""
    b, mon = watched()
    peer = raw(b.port)
    peer.handshake(b"DEALER", b"p")
    mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    peer.send(bad)

    def disconnected() -> bool:
        try:  # the application keeps reading (this parses buffered bytes)
            b.sock.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            pass
        mon.drain()
        return zmq.EVENT_DISCONNECTED in _kinds(mon)

    wait_until(disconnected, timeout=3)
    peer.wait_closed(2.0)
    assert not any(k & FAILED for k in _kinds(mon)), mon.seen


def test_incompatible_socket_type_event(
    watched: Callable[..., tuple[Bound, Monitor]], raw: RawFactory
) -> None:
    """purezmq reports INVALID_METADATA (libzmq's NULL mechanism reports no
    code here, its PLAIN/CURVE ones report INVALID_METADATA): the value must be
    a libzmq protocol error code, then DISCONNECTED."""
    b, mon = watched("PULL")
    peer = raw(b.port)
    peer.send(greeting())
    peer.read_greeting()
    peer.read_ready()
    peer.send(ready(b"PULL"))
    peer.wait_closed(2.0)
    ev = mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert ev.value == zmq.PROTOCOL_ERROR_ZMTP_INVALID_METADATA
    mon.wait_for(zmq.EVENT_DISCONNECTED)
