"""ZMTP/2.0 and ZMTP/1.0 on the wire: purezmq sockets against raw peers whose
bytes are written by hand from RFC 15 and RFC 13. What purezmq sends back is
what libzmq 4.3.5 sends (checked once by hand with pyzmq: the same signature
padding, major version, socket-type octet and identity frame)."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

import purezmq as zmq

from .helpers import Bound, Monitor
from .zmtp_raw import RawPeer, libzmq_signature

BoundFactory = Callable[..., Bound]
RawFactory = Callable[..., RawPeer]
MonitorFactory = Callable[..., Monitor]

PUB, SUB, REQ, REP, DEALER, ROUTER, PULL, PUSH = 1, 2, 3, 4, 5, 6, 7, 8


def sig(identity: bytes) -> bytes:
    return b"\xff" + struct.pack(">Q", len(identity) + 1) + b"\x7f"


def v2_frame(body: bytes, more: bool = False) -> bytes:
    flags = 0x01 if more else 0x00
    if len(body) <= 255:
        return bytes((flags, len(body))) + body
    return bytes((flags | 0x02,)) + struct.pack(">Q", len(body)) + body


def v1_frame(body: bytes, more: bool = False) -> bytes:
    flags = b"\x01" if more else b"\x00"
    if len(body) + 1 < 255:
        return bytes((len(body) + 1,)) + flags + body
    return b"\xff" + struct.pack(">Q", len(body) + 1) + flags + body


def read_v2(peer: RawPeer) -> list[bytes]:
    frames: list[bytes] = []
    while True:
        flags = peer.recv_exact(1)[0]
        assert flags & ~0x03 == 0, f"ZMTP/2.0 flags {flags:#x}"
        size = struct.unpack(">Q", peer.recv_exact(8))[0] if flags & 0x02 else peer.recv_exact(1)[0]
        frames.append(peer.recv_exact(size))
        if not flags & 0x01:
            return frames


def read_v1(peer: RawPeer) -> list[bytes]:
    frames: list[bytes] = []
    while True:
        length = peer.recv_exact(1)[0]
        if length == 0xFF:
            length = struct.unpack(">Q", peer.recv_exact(8))[0]
        flags = peer.recv_exact(1)[0]
        frames.append(peer.recv_exact(length - 1))
        if not flags & 0x01:
            return frames


# ------------------------------------------------------------------ ZMTP/2.0
def test_zmtp20_dealer_to_router(bound: BoundFactory, raw: RawFactory) -> None:
    b = bound("ROUTER")
    peer = raw(b.port)
    assert peer.recv_exact(10) == libzmq_signature()
    peer.send(sig(b"alice") + bytes((1, DEALER)) + v2_frame(b"alice"))
    # libzmq 4.3.5's answer to a 2.0 peer, byte for byte: major 3, ROUTER,
    # an empty identity frame (pyzmq sent b"\x03\x06\x00\x00" too).
    assert peer.recv_exact(4) == b"\x03\x06\x00\x00"
    peer.send(v2_frame(b"hi", more=True) + v2_frame(b"x" * 300))
    assert b.sock.recv_multipart() == [b"alice", b"hi", b"x" * 300]
    b.sock.send_multipart([b"alice", b"back", b""])
    assert read_v2(peer) == [b"back", b""]


def test_zmtp20_sub_gets_subscriptions_as_messages(bound: BoundFactory, raw: RawFactory) -> None:
    b = bound("SUB", ROUTING_ID=b"s")
    b.sock.setsockopt(zmq.SUBSCRIBE, b"topic")
    peer = raw(b.port)
    assert peer.recv_exact(10) == libzmq_signature(b"s")
    peer.send(sig(b"") + bytes((1, PUB)) + v2_frame(b""))
    assert peer.recv_exact(5) == b"\x03" + bytes((SUB,)) + v2_frame(b"s")
    b.sock.poll(0)  # a bound SUB sends its subscriptions once its thread runs
    assert read_v2(peer) == [b"\x01topic"]
    peer.send(v2_frame(b"other") + v2_frame(b"topic-1"))
    assert b.sock.recv_multipart() == [b"topic-1"]


def test_zmtp20_peer_is_not_sent_heartbeats(bound: BoundFactory, raw: RawFactory) -> None:
    b = bound("PULL", HEARTBEAT_IVL=20)
    peer = raw(b.port)
    peer.send(sig(b"") + bytes((1, PUSH)) + v2_frame(b""))
    assert peer.recv_exact(14) == libzmq_signature() + b"\x03" + bytes((PULL,)) + b"\x00\x00"
    assert peer.recv_available(0.2) == b"", "a PING reached a ZMTP/2.0 peer"


def test_zmtp20_wrong_socket_type_is_closed(
    bound: BoundFactory, raw: RawFactory, monitor: MonitorFactory
) -> None:
    b = bound("PULL")
    mon = monitor(b.sock)
    peer = raw(b.port)
    peer.send(sig(b"") + bytes((1, PULL)) + v2_frame(b""))
    assert peer.wait_closed(2.0).startswith(libzmq_signature() + b"\x03")
    ev = mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
    assert ev.value == zmq.PROTOCOL_ERROR_ZMTP_INVALID_METADATA


@pytest.mark.parametrize("security", ["PLAIN_SERVER", "ZAP_DOMAIN"])
@pytest.mark.parametrize("greeting", ["zmtp20", "zmtp10"])
def test_old_peer_refused_by_a_secure_socket(
    bound: BoundFactory, raw: RawFactory, monitor: MonitorFactory, security: str, greeting: str
) -> None:
    """RFC 37: MUST close. libzmq 4.3.5 reports ACCEPTED and DISCONNECTED
    only (checked with pyzmq), and so does purezmq."""
    value: object = 1 if security == "PLAIN_SERVER" else b"global"
    b = bound("PULL", **{security: value})
    mon = monitor(b.sock)
    peer = raw(b.port)
    first = sig(b"") + bytes((1, PUSH)) if greeting == "zmtp20" else b""
    peer.send(first + v1_frame(b"id") if greeting == "zmtp10" else first + v2_frame(b""))
    got = peer.wait_closed(2.0)
    assert got in (libzmq_signature(), libzmq_signature() + b"\x03"), got
    mon.wait_for(zmq.EVENT_DISCONNECTED)
    mon.drain(0.1)
    handshake_events = 0x7800  # HANDSHAKE_FAILED_NO_DETAIL ... HANDSHAKE_FAILED_AUTH
    assert not [e for e in mon.seen if e.event & handshake_events], mon.seen


# ------------------------------------------------------------------ ZMTP/1.0
def test_zmtp10_unversioned_pull(bound: BoundFactory, raw: RawFactory) -> None:
    """RFC 13 bytes: identity frame, then messages; our identity body follows
    our signature (empty here, so nothing at all)."""
    b = bound("PULL")
    peer = raw(b.port)
    peer.send(v1_frame(b"") + v1_frame(b"a", more=True) + v1_frame(b"b" * 300) + v1_frame(b"c"))
    assert b.sock.recv_multipart() == [b"a", b"b" * 300]
    assert b.sock.recv_multipart() == [b"c"]
    assert peer.recv_exact(10) == libzmq_signature()
    assert peer.recv_available(0.1) == b""


def test_zmtp10_router_and_named_dealer(bound: BoundFactory, raw: RawFactory) -> None:
    b = bound("ROUTER", ROUTING_ID=b"srv")
    peer = raw(b.port)
    peer.send(v1_frame(b"bob") + v1_frame(b"", more=True) + v1_frame(b"req"))
    assert b.sock.recv_multipart() == [b"bob", b"", b"req"]
    assert peer.recv_exact(13) == libzmq_signature(b"srv") + b"srv"
    b.sock.send_multipart([b"bob", b"", b"rep" * 100])
    assert read_v1(peer) == [b"", b"rep" * 100]


def test_zmtp10_publisher_sends_everything(bound: BoundFactory, raw: RawFactory) -> None:
    """A ZeroMQ 2.x subscriber never subscribes: the phantom subscription
    (libzmq's) makes our PUB send it every message."""
    b = bound("PUB")
    peer = raw(b.port)
    peer.send(v1_frame(b""))
    assert peer.recv_exact(10) == libzmq_signature()
    for _ in range(500):  # until the phantom subscription reached the PUB
        b.sock.send(b"probe")
        if peer.recv_available(0.01):
            break
    b.sock.send_multipart([b"any.topic", b"body"])
    while (msg := read_v1(peer)) == [b"probe"]:
        pass
    assert msg == [b"any.topic", b"body"]


def test_zmtp10_versioned_revision_0(bound: BoundFactory, raw: RawFactory) -> None:
    """libzmq's handshake_v1_0: signature, revision 0, socket type, then 1.0."""
    b = bound("REP")
    peer = raw(b.port)
    peer.send(sig(b"q") + bytes((0, REQ)) + v1_frame(b"q"))
    assert peer.recv_exact(14) == libzmq_signature() + b"\x03" + bytes((REP,)) + v1_frame(b"")
    peer.send(v1_frame(b"", more=True) + v1_frame(b"ask"))
    assert b.sock.recv_multipart() == [b"ask"]
    b.sock.send(b"answer")
    assert read_v1(peer) == [b"", b"answer"]
