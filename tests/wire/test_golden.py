"""Golden exchanges: hand-written ZMTP bytes against purezmq sockets over TCP.

The raw side is `zmtp_raw` (independent of purezmq's codec); expected bytes
come from RFC 23/37 and libzmq's tests (testutil.hpp, test_mock_pub_sub.cpp,
test_heartbeats.cpp).
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import pytest

import purezmq as zmq

from .helpers import Bound, Monitor
from .zmtp_raw import (
    GREETING_LEN,
    PREFIX_LEN,
    SIGNATURE_LEN,
    RawPeer,
    cancel_cmd,
    frame,
    greeting,
    libzmq_signature,
    message,
    ping,
    ready,
    subscribe_cmd,
)

RawFactory = Callable[..., RawPeer]
BoundFactory = Callable[..., Bound]

# Golden READY commands (libzmq tests/testutil.hpp; RFC 37 worked example).
READY_DEALER = b"\x04\x29\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER\x08Identity\x00\x00\x00\x00"
READY_ROUTER = b"\x04\x29\x05READY\x0bSocket-Type\x00\x00\x00\x06ROUTER\x08Identity\x00\x00\x00\x00"
READY_XPUB = b"\x04\x1a\x05READY\x0bSocket-Type\x00\x00\x00\x04XPUB"
READY_SUB = b"\x04\x19\x05READY\x0bSocket-Type\x00\x00\x00\x03SUB"

# purezmq type -> a legal raw peer type (RFC 37 "The Socket-Type Property").
PEER_OF = {
    "PAIR": b"PAIR",
    "PUB": b"SUB",
    "SUB": b"PUB",
    "REQ": b"REP",
    "REP": b"REQ",
    "DEALER": b"DEALER",
    "ROUTER": b"DEALER",
    "PULL": b"PUSH",
    "PUSH": b"PULL",
    "XPUB": b"SUB",
    "XSUB": b"PUB",
}
SENDS_IDENTITY = {"REQ", "DEALER", "ROUTER"}


def poke(sock: zmq.Socket) -> None:
    """Let a bound socket process its commands (attach the new pipe), as
    libzmq's test_mock_pub_sub does with a DONTWAIT recv: in libzmq and
    purezmq alike a pipe is attached when the application next uses the socket."""
    sock.poll(0)


ReadyPeer = Callable[..., tuple[Bound, RawPeer, Monitor]]


@pytest.fixture
def ready_peer(bound: BoundFactory, raw: RawFactory, monitor: Callable[..., Monitor]) -> ReadyPeer:
    """ready_peer("SUB", minor=0, HEARTBEAT_IVL=100) -> (bound socket, raw peer
    after a full handshake, monitor on the socket).

    With sync (the default) it also waits for HANDSHAKE_SUCCEEDED and pokes the
    socket, so the new pipe is attached before the test goes on: the raw peer
    has purezmq's READY before purezmq has processed ours."""

    def make(
        stype: str,
        *,
        minor: int = 1,
        major: int = 3,
        identity: bytes | None = None,
        sync: bool = True,
        **opts: object,
    ) -> tuple[Bound, RawPeer, Monitor]:
        b = bound(stype, **opts)
        mon = monitor(b.sock)
        peer = raw(b.port)
        _, props = peer.handshake(PEER_OF[stype], identity, minor=minor, major=major)
        assert props[b"socket-type"] == stype.encode()
        if sync:
            mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
            poke(b.sock)
        return b, peer, mon

    return make


# ------------------------------------------------------------ greeting + READY
@pytest.mark.parametrize("stype", sorted(PEER_OF))
def test_greeting_is_sent_in_three_steps_then_ready(
    bound: BoundFactory, raw: RawFactory, stype: str
) -> None:
    """As libzmq 4.3: the signature alone first (a ZMTP 1.0 peer must not see a
    major version), the major once the peer's signature shows a versioned
    peer, the rest once the peer's major shows ZMTP 3."""
    b = bound(stype)
    peer = raw(b.port)
    assert peer.recv_exact(SIGNATURE_LEN) == libzmq_signature()
    assert peer.recv_available(0.15) == b"", "major version sent before the peer's signature"
    ours = greeting(minor=1)
    peer.send(ours[:9])
    assert peer.recv_available(0.15) == b""
    peer.send(ours[9:10])
    assert peer.recv_exact(1) == b"\x03"
    assert peer.recv_available(0.15) == b"", "rest of greeting sent before the peer's major"
    peer.send(ours[10:11])
    rest = peer.recv_exact(GREETING_LEN - PREFIX_LEN)
    assert rest[0] == 1, "minor version must be 1 (ZMTP 3.1)"
    assert rest[1:21] == b"NULL" + b"\x00" * 16, rest[1:21]
    assert rest[21] == 0, "as-server must be 0 for NULL"
    assert rest[22:] == b"\x00" * 31, "filler must be zeros"
    # Nothing else until our whole greeting is in.
    assert peer.recv_available(0.15) == b""
    peer.send(ours[11:])
    props = peer.read_ready()
    expected = {b"socket-type": stype.encode()}
    if stype in SENDS_IDENTITY:
        expected[b"identity"] = b""
    assert props == expected


@pytest.mark.parametrize(
    ("stype", "golden"),
    [("DEALER", READY_DEALER), ("ROUTER", READY_ROUTER), ("XPUB", READY_XPUB), ("SUB", READY_SUB)],
)
def test_ready_bytes_match_libzmq(
    bound: BoundFactory, raw: RawFactory, stype: str, golden: bytes
) -> None:
    b = bound(stype)
    peer = raw(b.port)
    peer.send(greeting())
    assert peer.recv_exact(GREETING_LEN)[:12] == libzmq_signature() + b"\x03\x01"
    assert peer.recv_exact(len(golden)) == golden


def test_routing_id_travels_as_identity(bound: BoundFactory, raw: RawFactory) -> None:
    b = bound("DEALER", ROUTING_ID=b"my-id")
    peer = raw(b.port)
    _, props = peer.handshake(b"ROUTER")
    assert props == {b"socket-type": b"DEALER", b"identity": b"my-id"}


def test_router_uses_peer_identity(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("ROUTER", identity=b"alice")
    peer.send_message(b"hi")
    assert b.sock.recv_multipart() == [b"alice", b"hi"]
    b.sock.send_multipart([b"alice", b"a", b"b"])
    assert peer.read_message() == [b"a", b"b"]


def test_router_generates_identity_for_anonymous_peer(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("ROUTER", identity=b"")
    peer.send_message(b"hi")
    rid, body = b.sock.recv_multipart()
    assert body == b"hi"
    # libzmq generates 5 bytes: 0x00 + a 32-bit counter (ids starting with 0 are reserved).
    assert len(rid) == 5 and rid[0] == 0, rid
    b.sock.send_multipart([rid, b"back"])
    assert peer.read_message() == [b"back"]


# ------------------------------------------------------------ connect side
def test_connecting_socket_speaks_first_and_waits(ctx: zmq.Context) -> None:
    lsock = socket.create_server(("127.0.0.1", 0))
    port = lsock.getsockname()[1]
    lsock.settimeout(5)
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.RCVTIMEO, 5000)
    dealer.setsockopt(zmq.ROUTING_ID, b"dd")
    try:
        dealer.connect(f"tcp://127.0.0.1:{port}")
        conn, _ = lsock.accept()
        peer = RawPeer(conn)
        assert peer.recv_exact(SIGNATURE_LEN) == libzmq_signature(b"dd")
        assert peer.recv_available(0.15) == b""
        peer.send(greeting()[:PREFIX_LEN])
        rest = peer.recv_exact(GREETING_LEN - SIGNATURE_LEN)
        assert rest[:22] == b"\x03\x01NULL" + b"\x00" * 16
        peer.send(greeting()[PREFIX_LEN:])
        assert peer.read_ready() == {b"socket-type": b"DEALER", b"identity": b"dd"}
        peer.send(ready(b"ROUTER"))
        dealer.send_multipart([b"x", b"y" * 300])
        assert peer.read_message() == [b"x", b"y" * 300]
        peer.send_message(b"reply")
        assert dealer.recv_multipart() == [b"reply"]
        peer.close()
    finally:
        dealer.close(0)
        lsock.close()


# ------------------------------------------------------------ messages
# Below purezmq's 256 KiB read-ahead limit in total; large frames have their own test.
FRAMES = [b"", b"a", b"x" * 255, b"y" * 256, b"z" * 70_000, bytes(range(256)) * 400]


def test_multipart_and_long_frames_raw_to_purezmq(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("PAIR")
    peer.send_message(*FRAMES)
    assert b.sock.recv_multipart() == FRAMES
    # A small frame in the long form is legal (RFC 37: long-size is 0..2^63-1).
    peer.send(frame(b"tiny", more=True, long=True) + frame(b"", long=True))
    assert b.sock.recv_multipart() == [b"tiny", b""]


def test_multipart_and_long_frames_purezmq_to_raw(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("PAIR")
    b.sock.send_multipart(FRAMES)
    last = len(FRAMES) - 1
    for i, body in enumerate(FRAMES):
        f = peer.read_frame()
        assert f.body == body
        assert f.more == (i < last)
        assert not f.is_command
        # libzmq's encoder: the 8-byte size exactly when the body exceeds 255.
        assert f.long_size == (len(body) > 255), (i, len(body), f.flags)


@pytest.mark.parametrize(
    "frames",
    [[4 << 20], [1 << 20, 2 << 20, 1 << 20]],
    ids=["one-4MiB-frame", "multipart-4MiB"],
)
def test_frames_larger_than_readahead_limit(ready_peer: ReadyPeer, frames: list[int]) -> None:
    """Frames bigger than the receive read-ahead (256 KiB): the kernel buffers
    cannot hold them, so purezmq must keep reading in the middle of a frame."""
    b, peer, _ = ready_peer("PULL")
    bodies = [bytes((i,)) * n for i, n in enumerate(frames, 1)]
    peer.sock.settimeout(3.0)
    try:
        peer.send_message(*bodies)
    except TimeoutError:
        pytest.fail("purezmq stopped reading in the middle of a large frame")
    assert b.sock.recv_multipart() == bodies
    # And both directions: the raw side reads a large frame from purezmq.
    b2, peer2, _ = ready_peer("PUSH")
    b2.sock.send_multipart(bodies)
    assert peer2.read_message() == bodies


def test_exact_frame_bytes_from_purezmq(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("PAIR")
    b.sock.send_multipart([b"abc", b"x" * 255, b"y" * 256])
    expected = (
        b"\x01\x03abc" + b"\x01\xff" + b"x" * 255 + b"\x02" + struct.pack(">Q", 256) + b"y" * 256
    )
    assert peer.recv_exact(len(expected)) == expected


def test_byte_by_byte_peer(bound: BoundFactory, raw: RawFactory) -> None:
    b = bound("PULL")
    peer = raw(b.port)
    peer.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for byte in greeting():
        peer.send(bytes((byte,)))
    peer.read_greeting()
    for byte in ready(b"PUSH") + message(b"one", b"t" * 300):
        peer.send(bytes((byte,)))
    assert peer.read_ready() == {b"socket-type": b"PULL"}
    assert b.sock.recv_multipart() == [b"one", b"t" * 300]


def test_push_to_raw_pull(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("PUSH")
    b.sock.send_multipart([b"job", b"1"])
    assert peer.read_message() == [b"job", b"1"]


def test_dealer_both_ways(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("DEALER", identity=b"")
    peer.send_message(b"in", b"2")
    assert b.sock.recv_multipart() == [b"in", b"2"]
    b.sock.send_multipart([b"out"])
    assert peer.read_message() == [b"out"]


def test_req_envelope_on_the_wire(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("REQ")
    b.sock.send(b"hello")
    # RFC 28: REQ prefixes an empty delimiter frame.
    assert peer.recv_exact(9) == b"\x01\x00\x00\x05hello"
    peer.send_message(b"", b"world")
    assert b.sock.recv() == b"world"


def test_rep_strips_and_restores_envelope(ready_peer: ReadyPeer) -> None:
    b, peer, _ = ready_peer("REP", identity=b"")
    peer.send_message(b"", b"question")
    assert b.sock.recv_multipart() == [b"question"]
    b.sock.send(b"answer")
    assert peer.read_message() == [b"", b"answer"]


# ------------------------------------------------------------ subscriptions
@pytest.mark.parametrize(("major", "minor"), [(3, 1), (3, 2), (4, 0)])
def test_sub_sends_commands_to_31_and_later_peers(
    bound: BoundFactory, raw: RawFactory, monitor: Callable[..., Monitor], major: int, minor: int
) -> None:
    b = bound("SUB")
    b.sock.setsockopt(zmq.SUBSCRIBE, b"early")
    mon = monitor(b.sock)
    peer = raw(b.port)
    theirs, props = peer.handshake(b"PUB", minor=minor, major=major)
    assert theirs.version == (3, 1)  # we speak 3.1 whatever the peer announced
    assert props == {b"socket-type": b"SUB"}
    mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    poke(b.sock)
    assert peer.read_command() == (b"SUBSCRIBE", b"early")
    b.sock.setsockopt(zmq.SUBSCRIBE, b"A")
    # test_mock_pub_sub: "\4\xb\x9SUBSCRIBEA"
    assert peer.recv_exact(13) == b"\x04\x0b\x09SUBSCRIBEA"
    peer.send_message(b"BLOL")  # filtered out by the SUB itself
    peer.send_message(b"ALOL")
    assert b.sock.recv() == b"ALOL"
    b.sock.setsockopt(zmq.UNSUBSCRIBE, b"A")
    assert peer.recv_exact(10) == b"\x04\x08\x06CANCELA"


def test_sub_sends_messages_to_30_peer(
    bound: BoundFactory, raw: RawFactory, monitor: Callable[..., Monitor]
) -> None:
    b = bound("SUB")
    b.sock.setsockopt(zmq.SUBSCRIBE, b"early")
    mon = monitor(b.sock)
    peer = raw(b.port)
    peer.handshake(b"PUB", minor=0)
    mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    poke(b.sock)
    assert peer.read_message() == [b"\x01early"]
    b.sock.setsockopt(zmq.SUBSCRIBE, b"A")
    # test_mock_pub_sub (legacy): "\0\2\1A"
    assert peer.recv_exact(4) == b"\x00\x02\x01A"
    peer.send_message(b"ALOL")
    assert b.sock.recv() == b"ALOL"
    b.sock.setsockopt(zmq.UNSUBSCRIBE, b"A")
    assert peer.recv_exact(4) == b"\x00\x02\x00A"


@pytest.mark.parametrize("minor", [1, 0])
def test_xsub_subscription_forms(ready_peer: ReadyPeer, minor: int) -> None:
    b, peer, _ = ready_peer("XSUB", minor=minor)
    b.sock.send(b"\x01topic")
    if minor:
        assert peer.read_command() == (b"SUBSCRIBE", b"topic")
    else:
        assert peer.read_message() == [b"\x01topic"]
    # Ordinary messages from XSUB go upstream as they are.
    b.sock.send(b"\x02other")
    assert peer.read_message() == [b"\x02other"]


@pytest.mark.parametrize(
    ("minor", "sub", "unsub"),
    [
        (1, subscribe_cmd(b"A"), cancel_cmd(b"A")),  # 3.1 commands
        (0, message(b"\x01A"), message(b"\x00A")),  # 3.0 messages
        (1, message(b"\x01A"), message(b"\x00A")),  # libzmq's XPUB accepts both from anyone
    ],
    ids=["31-commands", "30-messages", "31-messages"],
)
def test_xpub_accepts_both_forms(
    ready_peer: ReadyPeer, minor: int, sub: bytes, unsub: bytes
) -> None:
    b, peer, _ = ready_peer("XPUB", minor=minor)
    peer.send(sub)
    assert b.sock.recv() == b"\x01A"
    b.sock.send(b"BLOL")  # not subscribed: not sent
    b.sock.send(b"ALOL")
    assert peer.read_message() == [b"ALOL"]
    peer.send(unsub)
    assert b.sock.recv() == b"\x00A"


@pytest.mark.parametrize("minor", [1, 0])
def test_pub_delivers_after_raw_subscription(ready_peer: ReadyPeer, minor: int) -> None:
    b, peer, _ = ready_peer("PUB", minor=minor)
    peer.send(subscribe_cmd(b"t") if minor else message(b"\x01t"))
    # No feedback from a PUB: publish until the first matching message arrives.
    for i in range(500):
        b.sock.send(b"x-unwanted")
        b.sock.send(b"t-%d" % i)
        got = peer.recv_available(0.01)
        if got:
            break
    else:
        pytest.fail("PUB never delivered after the subscription")
    # Only matching messages: the first bytes must be a "t-" message.
    assert got.startswith(b"\x00") and got[2:4] == b"t-", got[:20]


# ------------------------------------------------------------ heartbeats
LOL_PING = b"\x04\x0a\x04PING\x00\x00LOL"
LOL_PONG = b"\x04\x08\x04PONGLOL"
#: Heartbeat tests use 100-300 ms intervals; 2 s is a generous bound.
HB_WAIT = 2.0


@pytest.mark.parametrize("stype", ["ROUTER", "PUB", "PUSH", "PULL"])
def test_ping_answered_with_pong(ready_peer: ReadyPeer, stype: str) -> None:
    """test_heartbeats.cpp mock: PING "LOL" -> PONG "LOL"; an over-long context
    is cut to 16 bytes. The application never calls recv here."""
    b, peer, _ = ready_peer(stype)
    peer.timeout = HB_WAIT
    if stype in ("ROUTER", "PULL"):
        # The application got a message, then found its queue empty and went
        # on with other work: only the I/O thread can answer from here on.
        peer.send_message(b"warm")
        assert b.sock.recv_multipart()[-1] == b"warm"
        assert b.sock.poll(0) == 0
    peer.send(LOL_PING)
    assert peer.recv_exact(10) == LOL_PONG
    long_ping = b"\x04\x41\x04PING\x00\x00LOL" + b"z" * 55
    peer.send(long_ping)
    assert peer.recv_exact(23) == b"\x04\x15\x04PONGLOL" + b"z" * 13
    peer.send(ping(0))
    assert peer.recv_exact(7) == b"\x04\x05\x04PONG"


@pytest.mark.parametrize("stype", ["ROUTER", "PUB", "PUSH", "PULL"])
def test_ping_right_behind_ready_is_answered(
    bound: BoundFactory, raw: RawFactory, stype: str
) -> None:
    """The peer's handshake is complete once it has sent READY and received
    ours, so it may send PING in the same segment as its READY. The PONG must
    come without the application touching the socket."""
    b = bound(stype)
    peer = raw(b.port)
    peer.send(greeting())
    peer.read_greeting()
    assert peer.read_ready()[b"socket-type"] == stype.encode()
    peer.timeout = HB_WAIT
    peer.send(ready(PEER_OF[stype]) + LOL_PING)
    assert peer.recv_exact(10) == LOL_PONG


def test_purezmq_sends_ping_with_ttl(ready_peer: ReadyPeer) -> None:
    _b, peer, _ = ready_peer("ROUTER", HEARTBEAT_IVL=100, HEARTBEAT_TTL=2000)
    peer.timeout = HB_WAIT  # 20 heartbeat intervals
    name, data = peer.read_command()
    assert name == b"PING"
    assert data[:2] == struct.pack(">H", 20), "TTL travels in deciseconds"
    assert len(data) <= 2 + 16


def test_heartbeat_timeout_closes_silent_peer(ready_peer: ReadyPeer) -> None:
    _b, peer, mon = ready_peer("ROUTER", HEARTBEAT_IVL=100, HEARTBEAT_TIMEOUT=300)
    got = peer.wait_closed(timeout=HB_WAIT)
    assert b"\x04PING" in got
    mon.wait_for(zmq.EVENT_DISCONNECTED)


def test_peer_ping_ttl_is_honoured(ready_peer: ReadyPeer) -> None:
    """A PING with TTL 0.3 s and then silence: the connection is dropped."""
    b, peer, mon = ready_peer("ROUTER")
    peer.timeout = HB_WAIT
    peer.send_message(b"warm")  # the application reads, then is idle
    assert b.sock.recv_multipart()[-1] == b"warm"
    assert b.sock.poll(0) == 0
    peer.send(ping(3, b"t"))
    assert peer.recv_exact(8) == b"\x04\x06\x04PONGt"
    peer.wait_closed(timeout=HB_WAIT)
    mon.wait_for(zmq.EVENT_DISCONNECTED)


def test_ready_with_extra_and_case_folded_properties(bound: BoundFactory, raw: RawFactory) -> None:
    """Names are case-insensitive (RFC 37); unknown and X- properties are fine."""
    b = bound("ROUTER")
    peer = raw(b.port)
    peer.send(greeting())
    peer.read_greeting()
    body = (
        b"\x05READY"
        + b"\x0bsocket-type\x00\x00\x00\x06DEALER"
        + b"\x08IDENTITY\x00\x00\x00\x03bob"
        + b"\x05X-App\x00\x00\x00\x02v1"
        + b"\x07Unknown\x00\x00\x00\x00"
    )
    peer.send(frame(body, command=True))
    peer.read_ready()
    peer.send_message(b"m")
    frames = b.sock.recv_multipart(copy=False)
    assert [f.bytes for f in frames] == [b"bob", b"m"]
    assert frames[-1].get("X-App") == "v1"
