"""A peer can never crash us: malformed input ends *that* connection only.

Every test runs in an "arena": a purezmq ROUTER with a monitor and a healthy
raw DEALER that exchanged messages first. A bad raw peer then misbehaves;
the test checks that the bad connection ends (with the expected bytes and
monitor events) and that the healthy connection, a brand-new connection and
the socket itself keep working.
"""

from __future__ import annotations

import resource
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import purezmq as zmq

from .helpers import (
    Bound,
    HealthyPeer,
    Monitor,
    assert_still_serving,
    fd_count,
    rss_bytes,
    wait_until,
)
from .zmtp_raw import (
    GREETING_LEN,
    PREFIX_LEN,
    SIGNATURE,
    SIGNATURE_LEN,
    RawPeer,
    command,
    frame,
    greeting,
    libzmq_signature,
    message,
    prop,
    ready,
    split_command,
)

RawFactory = Callable[..., RawPeer]

#: Every ZMQ_PROTOCOL_ERROR_ZMTP_* value libzmq defines (zmq.h).
ZMTP_CODES = {
    zmq.PROTOCOL_ERROR_ZMTP_UNSPECIFIED,
    zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND,
    zmq.PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE,
    zmq.PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_MESSAGE,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_HELLO,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_INITIATE,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_READY,
    zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_WELCOME,
    zmq.PROTOCOL_ERROR_ZMTP_INVALID_METADATA,
    zmq.PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC,
    zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH,
}
#: How long a bad connection may take to be closed.
CLOSE_WITHIN = 1.5
#: What purezmq sends before reading anything (libzmq's signature), and once
#: the peer's signature showed a versioned peer (the major version too).
SIG_OUT = libzmq_signature()
PREFIX = SIG_OUT + b"\x03"


@dataclass
class Arena:
    router: Bound
    mon: Monitor
    good: HealthyPeer
    connect: RawFactory

    def bad_peer(self) -> RawPeer:
        return self.connect(self.router.port)

    def bad_after_handshake(self, identity: bytes = b"bad") -> RawPeer:
        """A raw peer whose handshake completed (HANDSHAKE_SUCCEEDED seen)."""
        peer = self.bad_peer()
        peer.handshake(b"DEALER", identity)
        self.mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        return peer

    def assert_serving(self) -> None:
        """Nothing from the bad peer was delivered; everybody else still talks."""
        self.good.roundtrip(strict=True)
        assert_still_serving(self.router, self.good, self.connect)

    def assert_handshake_failed(self, codes: set[int] | None) -> None:
        """HANDSHAKE_FAILED_PROTOCOL with one of `codes` (None: any libzmq
        ZMTP code), then DISCONNECTED; never HANDSHAKE_SUCCEEDED."""
        ev = self.mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
        allowed = ZMTP_CODES if codes is None else codes
        assert ev.value in allowed, f"{ev.value:#x} not in {sorted(hex(c) for c in allowed)}"
        self.mon.wait_for(zmq.EVENT_DISCONNECTED)
        assert not any(e.event == zmq.EVENT_HANDSHAKE_SUCCEEDED for e in self.mon.seen)


@pytest.fixture
def arena(
    bound: Callable[..., Bound],
    monitor: Callable[..., Monitor],
    healthy: Callable[[Bound], HealthyPeer],
    raw: RawFactory,
) -> Callable[..., Arena]:
    def make(**opts: object) -> Arena:
        router = bound("ROUTER", **opts)
        mon = monitor(router.sock)
        good = healthy(router)
        mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        mon.seen.clear()
        return Arena(router, mon, good, raw)

    return make


# ================================================================ greeting
# ZMTP 1.0 and 2.0 greetings are not bad any more (purezmq downgrades, as
# libzmq: tests/wire/test_legacy_golden.py). These still are: a ZMTP 1.0
# identity frame of length 0 (libzmq: EPROTO).
BAD_GREETINGS = {
    "zeros": b"\x00" * 64,
    "zmtp10-long-zero": b"\xff" + struct.pack(">Q", 0) + b"\x7e",  # byte 9 LSB = 0
}


@pytest.mark.parametrize("case", sorted(BAD_GREETINGS))
def test_bad_greeting(arena: Callable[..., Arena], case: str) -> None:
    """Malformed from the first bytes: purezmq closes having sent only its
    signature (the peer never showed a versioned signature)."""
    a = arena()
    peer = a.bad_peer()
    peer.send(BAD_GREETINGS[case])
    got = peer.wait_closed(CLOSE_WITHIN)
    assert got == SIG_OUT, got
    a.assert_handshake_failed(None)
    a.assert_serving()


def test_http_request_stalls_as_a_zmtp10_identity(arena: Callable[..., Arena]) -> None:
    """'G' is the length of a ZMTP 1.0 identity frame that never completes:
    nothing is delivered, HANDSHAKE_IVL ends it (libzmq would wait for ever)."""
    a = arena(HANDSHAKE_IVL=300)
    peer = a.bad_peer()
    peer.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert peer.wait_closed(CLOSE_WITHIN) == SIG_OUT
    a.mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()


def test_major_two_is_zmtp3_and_its_empty_mechanism_a_mismatch(arena: Callable[..., Arena]) -> None:
    """libzmq speaks 3.x to a major version of 2: a full greeting goes out."""
    a = arena()
    peer = a.bad_peer()
    peer.send(SIGNATURE + b"\x02" + b"\x00" * 53)
    got = peer.wait_closed(CLOSE_WITHIN)
    assert len(got) == GREETING_LEN and got[:12] == PREFIX + b"\x01", got
    a.assert_handshake_failed({zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH})
    a.assert_serving()


@pytest.mark.parametrize(
    ("mechanism", "as_server"),
    [(b"PLAIN", 0), (b"CURVE", 1), (b"GSSAPI", 0), (b"NULLX", 0), (b"null", 0)],
)
def test_wrong_mechanism(arena: Callable[..., Arena], mechanism: bytes, as_server: int) -> None:
    a = arena()
    peer = a.bad_peer()
    peer.send(greeting(mechanism=mechanism, as_server=as_server))
    got = peer.wait_closed(CLOSE_WITHIN)
    # RFC 37: whoever reads a full greeting sends its full greeting - then closes.
    assert len(got) == GREETING_LEN and got[:12] == PREFIX + b"\x01", got
    assert b"READY" not in got
    a.assert_handshake_failed({zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH})
    a.assert_serving()


def test_peer_sends_half_a_greeting_and_stalls(arena: Callable[..., Arena]) -> None:
    a = arena(HANDSHAKE_IVL=300)
    peer = a.bad_peer()
    peer.send(greeting()[:5])
    assert peer.wait_closed(CLOSE_WITHIN) == SIG_OUT
    a.mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()


@pytest.mark.parametrize("sent", ["nothing", "greeting"])
def test_silent_peer_times_out(arena: Callable[..., Arena], sent: str) -> None:
    a = arena(HANDSHAKE_IVL=300)
    peer = a.bad_peer()
    if sent == "greeting":
        peer.send(greeting())
    got = peer.wait_closed(CLOSE_WITHIN)
    assert got.startswith(PREFIX if sent == "greeting" else SIG_OUT)
    a.mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()


# ================================================================ handshake
def _handshake_bad_ready(a: Arena, ready_frame: bytes) -> bytes:
    peer = a.bad_peer()
    peer.send(greeting())
    peer.read_greeting()
    assert peer.read_ready()[b"socket-type"] == b"ROUTER"
    peer.send(ready_frame)
    return peer.wait_closed(CLOSE_WITHIN)


@pytest.mark.parametrize("peer_type", [b"PUB", b"PULL", b"PAIR", b"dealer", b"FOO", b""])
def test_incompatible_socket_type_gets_error(arena: Callable[..., Arena], peer_type: bytes) -> None:
    """RFC 37: a peer validating the socket type SHOULD answer ERROR, then close."""
    a = arena()
    got = _handshake_bad_ready(a, ready(peer_type, b"x"))
    assert got, "expected an ERROR command before the close"
    assert got[0] == 0x04, f"ERROR must be a short command frame: {got!r}"
    assert got[1] == len(got) - 2, f"exactly one frame expected: {got!r}"
    name, data = split_command(got[2:])
    assert name == b"ERROR"
    reason_len = data[0]
    assert reason_len == len(data) - 1, data
    reason = data[1:]
    assert all(0x20 <= c < 0x7F for c in reason), f"reason must be printable: {reason!r}"
    assert reason, "a reason helps the peer's logs"
    a.assert_handshake_failed(None)
    a.assert_serving()


def _assert_nothing_or_one_error(got: bytes) -> None:
    """After a refused handshake the peer may get an ERROR command, nothing else."""
    if not got:
        return
    assert got[0] == 0x04 and got[1] == len(got) - 2, f"one short command expected: {got!r}"
    name, data = split_command(got[2:])
    assert name == b"ERROR" and data and data[0] == len(data) - 1, got


MALFORMED_READY = {
    # name length 11, body ends after 7 name bytes
    "truncated-name": b"\x05READY\x0bSocket-",
    # name present, 4-byte value length cut short
    "truncated-length": b"\x05READY\x0bSocket-Type\x00\x00",
    # value length beyond the body
    "value-overruns": b"\x05READY\x0bSocket-Type\x00\x00\x10\x00DEALER",
    # value length 2^31 (beyond INT32_MAX value limit and the body)
    "huge-value": b"\x05READY\x0bSocket-Type\x80\x00\x00\x00",
    # a lone trailing byte after a valid property
    "trailing-byte": b"\x05READY" + prop(b"Socket-Type", b"DEALER") + b"\x05",
}


@pytest.mark.parametrize("case", sorted(MALFORMED_READY))
def test_malformed_ready_metadata(arena: Callable[..., Arena], case: str) -> None:
    a = arena()
    got = _handshake_bad_ready(a, frame(MALFORMED_READY[case], command=True))
    _assert_nothing_or_one_error(got)
    a.assert_handshake_failed(
        {zmq.PROTOCOL_ERROR_ZMTP_INVALID_METADATA, zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_READY}
    )
    a.assert_serving()


HANDSHAKE_VIOLATIONS = {
    # (bytes after the greeting, acceptable codes; None = any libzmq ZMTP code)
    "unknown-command": (command(b"HELLO"), {zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND}),
    "message-before-ready": (message(b"hi"), {zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND}),
    "malformed-error": (
        command(b"ERROR", b"\x09abc"),
        {zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR},
    ),
    "empty-error": (command(b"ERROR"), {zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR}),
    "name-overruns": (
        frame(b"\x09REA", command=True),
        {
            zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
            zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND,
        },
    ),
    "empty-command": (
        frame(b"", command=True),
        {
            zmq.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
            zmq.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND,
        },
    ),
    "ready-reserved-flags": (b"\x0c" + ready(b"DEALER")[1:], None),
    "ready-with-more": (b"\x05" + ready(b"DEALER")[1:], None),
    "ready-twice": (ready(b"DEALER") * 2 + b"\x04\x00", None),
}


@pytest.mark.parametrize("case", sorted(HANDSHAKE_VIOLATIONS))
def test_handshake_violation(arena: Callable[..., Arena], case: str) -> None:
    a = arena()
    data, codes = HANDSHAKE_VIOLATIONS[case]
    peer = a.bad_peer()
    peer.send(greeting())
    peer.read_greeting()
    peer.send(data)
    peer.wait_closed(CLOSE_WITHIN)
    if case == "ready-twice":
        # Two READYs complete the handshake; the empty command after it is the error.
        a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    else:
        a.assert_handshake_failed(codes)
    a.assert_serving()


def test_missing_socket_type_is_accepted(arena: Callable[..., Arena]) -> None:
    """Control: Socket-Type is a SHOULD (RFC 37) and libzmq does not require it."""
    a = arena()
    peer = a.bad_peer()
    peer.send(greeting())
    peer.read_greeting()
    peer.read_ready()
    peer.send(command(b"READY", prop(b"Identity", b"anon")))
    peer.send_message(b"hello")
    frames = []
    for _ in range(3):
        frames = a.router.sock.recv_multipart()
        if frames[0] == b"anon":
            break
    assert frames == [b"anon", b"hello"]
    a.assert_serving()


# ================================================================ traffic
POST_HANDSHAKE_VIOLATIONS = {
    "reserved-bit-3": b"\x08\x03abc",
    "reserved-bit-7": b"\x80\x03abc",
    "command-with-more": b"\x05" + command(b"PING", b"\x00\x00")[1:],
    "long-command-with-more": b"\x07" + struct.pack(">Q", 7) + b"\x04PING\x00\x00",
    "empty-command": frame(b"", command=True),
    "name-overruns": frame(b"\x20PING", command=True),
    "ping-without-ttl": command(b"PING"),
    "size-2**63": b"\x02" + struct.pack(">Q", 2**63) + b"x" * 100,
    "size-2**64-1": b"\x02" + struct.pack(">Q", 2**64 - 1) + b"x" * 100,
}


def _idle(a: Arena) -> None:
    """The application found its queue empty and went on with other work (a
    poll(0)); from now on only purezmq's I/O thread can notice new bytes."""
    assert a.router.sock.poll(0) == 0


@pytest.mark.parametrize("case", sorted(POST_HANDSHAKE_VIOLATIONS))
def test_malformed_traffic_closes_connection(arena: Callable[..., Arena], case: str) -> None:
    """After the handshake, with the application idle: the connection closes,
    nothing after the bad frame is delivered, no HANDSHAKE_FAILED event."""
    a = arena()
    peer = a.bad_after_handshake()
    peer.send_message(b"before")
    assert a.router.sock.recv_multipart() == [b"bad", b"before"]
    _idle(a)
    peer.send(POST_HANDSHAKE_VIOLATIONS[case] + message(b"after"))
    peer.wait_closed(CLOSE_WITHIN)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    assert not any(e.event & zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL for e in a.mon.seen)
    a.assert_serving()


@pytest.mark.parametrize(
    "bad",
    [b"\x80\x03abc", frame(b"", command=True), command(b"PING"), command(b"ERROR", b"\x04boom")],
    ids=["reserved-bits", "empty-command", "ping-without-ttl", "peer-error"],
)
def test_error_behind_good_messages_closes_connection(
    arena: Callable[..., Arena], bad: bytes
) -> None:
    """Good messages and a bad frame in the segment that also completes the
    handshake: the good ones are delivered, and the connection closes
    although the application, busy with the first message, reads no more.
    (Commands are consumed whole before they are found bad: nothing is left
    unparsed to trigger another look.)"""
    a = arena()
    peer = a.bad_peer()
    peer.send(greeting())
    peer.read_greeting()
    peer.read_ready()
    peer.send(ready(b"DEALER", b"bad") + message(b"one") + message(b"two") + bad)
    assert a.router.sock.recv_multipart() == [b"bad", b"one"]
    peer.wait_closed(CLOSE_WITHIN)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    # Received intact before the bad frame: still delivered.
    assert a.router.sock.recv_multipart() == [b"bad", b"two"]
    a.assert_serving()


@pytest.mark.parametrize(
    "bad",
    [b"\x80\x03abc", frame(b"", command=True), command(b"PING"), command(b"ERROR", b"\x04boom")],
    ids=["reserved-bits", "empty-command", "ping-without-ttl", "peer-error"],
)
def test_error_found_by_readahead_closes_connection(
    arena: Callable[..., Arena], bad: bytes
) -> None:
    """The application is idle, so purezmq's I/O thread parses the segment
    itself: it queues the good messages, meets the bad frame - and must still
    close the connection, although nothing is left to parse."""
    a = arena()
    peer = a.bad_after_handshake()
    _idle(a)
    peer.send(message(b"one") + message(b"two") + bad)
    peer.wait_closed(CLOSE_WITHIN)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    assert a.router.sock.recv_multipart() == [b"bad", b"one"]
    assert a.router.sock.recv_multipart() == [b"bad", b"two"]
    a.assert_serving()


def test_peer_error_command_after_handshake_closes(arena: Callable[..., Arena]) -> None:
    a = arena()
    peer = a.bad_after_handshake()
    peer.send(command(b"ERROR", b"\x04boom"))
    peer.wait_closed(CLOSE_WITHIN)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()


@pytest.mark.parametrize("oversize", ["single", "second-frame", "long-header-only"])
def test_frame_above_maxmsgsize(arena: Callable[..., Arena], oversize: str) -> None:
    a = arena(MAXMSGSIZE=100)
    peer = a.bad_after_handshake()
    peer.send_message(b"x" * 100)  # exactly the limit: fine
    assert a.router.sock.recv_multipart() == [b"bad", b"x" * 100]
    _idle(a)
    if oversize == "single":
        peer.send_message(b"y" * 101)
    elif oversize == "second-frame":
        peer.send_message(b"part-1", b"z" * 101)
    else:
        # The header alone is enough: the body need not arrive.
        peer.send(b"\x02" + struct.pack(">Q", 1 << 40))
    peer.wait_closed(CLOSE_WITHIN)
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()  # strict: no (partial) message from the bad peer


@pytest.mark.parametrize(
    "size",
    [2**63, 2**64 - 1, 2**62, 2**40],
    ids=["2**63", "2**64-1", "2**62", "2**40"],
)
@pytest.mark.parametrize("phase", ["handshake", "traffic"])
def test_enormous_frame_is_not_allocated(
    arena: Callable[..., Arena], size: int, phase: str
) -> None:
    """A header claiming an enormous body must not make us allocate it. Sizes
    above 2**63-1 violate RFC 37 (long-size is 0..2^63-1) and end the
    connection at once (libzmq ends it too: the allocation fails)."""
    a = arena()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rss_before = rss_bytes()
    peer = a.bad_peer()
    if phase == "handshake":
        peer.send(greeting())
        peer.read_greeting()
        peer.read_ready()
        peer.send(b"\x06" + struct.pack(">Q", size) + b"\x05READY")
    else:
        peer.handshake(b"DEALER", b"bad")
        a.mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        peer.send(b"\x02" + struct.pack(">Q", size))
    closed = False
    try:
        # Some body bytes, so a lazy implementation would start storing them.
        for _ in range(16):
            peer.send(b"\x00" * 65536)
    except OSError:
        closed = True
    if size > 2**63 - 1:
        peer.wait_closed(CLOSE_WITHIN)
        closed = True
    else:
        a.good.roundtrip(strict=True)  # the I/O thread has handled the bytes by now
    grown = rss_bytes() - rss_before
    peak_grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - peak_before
    assert grown < 64 << 20, f"RSS grew by {grown >> 20} MiB for a {size}-byte claim"
    assert peak_grown < 64 << 20, f"peak RSS grew by {peak_grown >> 20} MiB"
    if not closed:
        peer.abort()
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()


# ================================================================ disconnects
MID_STREAM = {
    "mid-greeting": lambda: greeting()[:30],
    "mid-ready": lambda: greeting() + ready(b"DEALER", b"bad")[:12],
}
MID_TRAFFIC = {
    "mid-header": b"\x02\x00\x00",
    "mid-body": b"\x00\x05hel",
    "between-frames": message(b"one", b"two")[:5],
    "mid-second-frame": message(b"one", b"two")[:7],
    "mid-big-frame": frame(b"B" * 100_000)[:50_000],
}


@pytest.mark.parametrize("how", ["close", "reset"])
@pytest.mark.parametrize("case", sorted(MID_STREAM) + sorted(MID_TRAFFIC))
def test_peer_disconnects_midway(arena: Callable[..., Arena], case: str, how: str) -> None:
    a = arena()
    if case in MID_STREAM:
        peer = a.bad_peer()
        peer.send(MID_STREAM[case]())
        peer.recv_exact(PREFIX_LEN)  # purezmq saw us
    else:
        peer = a.bad_after_handshake()
        peer.send(MID_TRAFFIC[case])
    if how == "reset":
        peer.abort()
    else:
        peer.close()
    a.mon.wait_for(zmq.EVENT_DISCONNECTED)
    a.assert_serving()  # strict: no partial message was delivered


# ================================================================ churn
def test_many_connections_opened_and_closed(arena: Callable[..., Arena]) -> None:
    a = arena()
    a.mon.drain()
    baseline = fd_count()
    accepted = 0
    ops = ["close", "reset", "prefix", "full-greeting", "handshake", "garbage"]
    rounds = 25
    for _ in range(rounds):
        for op in ops:
            peer = a.bad_peer()
            if op == "prefix":
                peer.send(greeting()[:PREFIX_LEN])
            elif op == "full-greeting":
                peer.send(greeting())
            elif op == "handshake":
                peer.handshake(b"DEALER")
                peer.send_message(b"from churn")
            elif op == "garbage":
                peer.send(b"\x00garbage" * 10)
            if op == "reset":
                peer.abort()
            else:
                peer.close()
        accepted += len(ops)
        # Keep the listen backlog short: wait for this batch to be handled.
        wait_until(lambda n=accepted: _count(a.mon, zmq.EVENT_DISCONNECTED) >= n, timeout=10)
    assert _count(a.mon, zmq.EVENT_ACCEPTED) == accepted
    # Every OS socket purezmq accepted has been closed again.
    wait_until(lambda: fd_count() <= baseline, timeout=5)
    # Messages from the churning peers may have been delivered; skip them.
    a.good.roundtrip()
    assert_still_serving(a.router, a.good, a.connect)


def _count(mon: Monitor, event: int) -> int:
    mon.drain()
    return sum(1 for e in mon.seen if e.event == event)


# ================================================================ connect side
def _server() -> tuple[socket.socket, str]:
    lsock = socket.create_server(("127.0.0.1", 0))
    lsock.settimeout(5)
    return lsock, f"tcp://127.0.0.1:{lsock.getsockname()[1]}"


def test_connecting_socket_and_misbehaving_server(ctx: zmq.Context) -> None:
    """purezmq connects to a server that misbehaves. As libzmq
    (session_base_t::engine_error): a dropped connection is retried, a
    protocol error ends that endpoint for good. The socket keeps working with
    its other endpoints."""
    bad_l, bad_ep = _server()
    good_l, good_ep = _server()
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.RCVTIMEO, 5000)
    dealer.setsockopt(zmq.RECONNECT_IVL, 50)
    mon = Monitor(dealer.get_monitor_socket())
    try:
        dealer.connect(bad_ep)
        conn, _ = bad_l.accept()
        RawPeer(conn).recv_exact(SIGNATURE_LEN)
        conn.close()  # dropped mid-greeting: a connection error, retried
        conn, _ = bad_l.accept()
        peer = RawPeer(conn)
        peer.send(greeting(mechanism=b"PLAIN"))  # a protocol error
        peer.wait_closed(CLOSE_WITHIN)
        peer.close()
        mon.wait_for(zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
        bad_l.settimeout(10 * 0.05)
        with pytest.raises(TimeoutError):
            bad_l.accept()  # no reconnection within ten reconnect intervals
        dealer.connect(good_ep)
        conn, _ = good_l.accept()
        good = RawPeer(conn)
        _, props = good.handshake(b"ROUTER")
        assert props[b"socket-type"] == b"DEALER"
        dealer.send(b"hello")
        assert good.read_message() == [b"hello"]
        good.send_message(b"ok")
        assert dealer.recv() == b"ok"
        good.close()
    finally:
        dealer.close(0)
        bad_l.close()
        good_l.close()
