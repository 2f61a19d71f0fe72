"""CURVE (RFC 25/26) as a sans-I/O mechanism: handshakes, MESSAGE boxes,
nonces, and every way a peer can lie - no sockets, no threads.

`curvezmq_peer` is an independent CurveZMQ written from RFC 26 with PyNaCl,
so the bytes our mechanism produces are checked by other code than ours.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

pytest.importorskip("nacl")

from hypothesis import given, settings
from hypothesis import strategies as st

from purezmq import _crypto
from purezmq._zmtp import (
    ZMTP_CRYPTOGRAPHIC,
    ZMTP_INVALID_METADATA,
    ZMTP_INVALID_SEQUENCE,
    ZMTP_KEY_EXCHANGE,
    ZMTP_MALFORMED_COMMAND_HELLO,
    ZMTP_MALFORMED_COMMAND_INITIATE,
    ZMTP_MALFORMED_COMMAND_MESSAGE,
    ZMTP_MALFORMED_COMMAND_READY,
    ZMTP_UNEXPECTED_COMMAND,
    ProtocolError,
    ZapConfig,
    ZMTPConnection,
)
from purezmq._zmtp.mechanisms.base import MessageError
from purezmq._zmtp.mechanisms.curve import (
    MAX_NONCE,
    CurveClient,
    CurveServer,
)
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

from . import curvezmq_peer as ref

CRYPTO = _crypto.require()
ZAP = ZapConfig(domain=b"global", address=b"10.1.2.3", identity=b"IDENT")
GREETING_SERVER = greeting(mechanism=b"CURVE", as_server=1)
GREETING_CLIENT = greeting(mechanism=b"CURVE", as_server=0)


# ------------------------------------------------------------------ helpers
def frames_of(data: bytes) -> list[tuple[int, bytes]]:
    """Split wire bytes (after any greeting) into (flags, body) frames."""
    out = []
    pos = 0
    while pos < len(data):
        flags = data[pos]
        if flags & 0x02:
            size = struct.unpack(">Q", data[pos + 1 : pos + 9])[0]
            head = 9
        else:
            size = data[pos + 1]
            head = 2
        out.append((flags, data[pos + head : pos + head + size]))
        pos += head + size
    assert pos == len(data), "trailing partial frame"
    return out


class Pair:
    """Key material for one test: raw 32-byte keys."""

    def __init__(self) -> None:
        self.server_public, self.server_secret = ref.keypair()
        self.client_public, self.client_secret = ref.keypair()

    def client(
        self, *, server_key: bytes | None = None, socket_type: str = "DEALER"
    ) -> ZMTPConnection:
        mech = CurveClient(
            crypto=CRYPTO,
            public_key=self.client_public,
            secret_key=self.client_secret,
            server_key=server_key or self.server_public,
        )
        return ZMTPConnection(socket_type=socket_type, mechanism=mech, now=0.0)

    def server(
        self, *, zap: ZapConfig | None = None, socket_type: str = "ROUTER", **kw: object
    ) -> ZMTPConnection:
        mech = CurveServer(crypto=CRYPTO, secret_key=self.server_secret, zap=zap)
        return ZMTPConnection(socket_type=socket_type, mechanism=mech, now=0.0, **kw)  # type: ignore[arg-type]

    def ref_client(self) -> ref.Client:
        return ref.Client(self.server_public, self.client_public, self.client_secret)

    def ref_server(self) -> ref.Server:
        return ref.Server(self.server_public, self.server_secret)


@pytest.fixture
def keys() -> Pair:
    return Pair()


def connected(keys: Pair, **server_kw: object) -> tuple[ZMTPConnection, ZMTPConnection]:
    c, s = keys.client(), keys.server(**server_kw)  # type: ignore[arg-type]
    pump(c, s)
    assert c.handshake_done and s.handshake_done
    return c, s


def server_after_hello(
    keys: Pair, zap: ZapConfig | None = None
) -> tuple[ZMTPConnection, ref.Client]:
    """Our server, fed the reference client's greeting and HELLO; WELCOME read."""
    s = keys.server(zap=zap)
    peer = keys.ref_client()
    out_bytes(s)
    feed(s, GREETING_CLIENT + command_frame(peer.hello()))
    out = out_bytes(s)
    assert out[:54] == GREETING_SERVER[10:]  # the major came after the peer's signature
    [(flags, welcome)] = frames_of(out[54:])
    assert flags == 0x04
    peer.on_welcome(welcome)
    return s, peer


def handshaken_server(keys: Pair) -> tuple[ZMTPConnection, ref.Client]:
    s, peer = server_after_hello(keys)
    feed(s, command_frame(peer.initiate(ref.properties((b"Socket-Type", b"DEALER")))))
    [(_, ready)] = frames_of(out_bytes(s))
    assert peer.on_ready(ready)[b"socket-type"] == b"ROUTER"
    assert s.handshake_done
    return s, peer


def handshaken_client(
    keys: Pair, *, minor: int = 1, socket_type: str = "DEALER", peer_type: bytes = b"ROUTER"
) -> tuple[ZMTPConnection, ref.Server]:
    c = keys.client(socket_type=socket_type)
    server = keys.ref_server()
    first = out_bytes(c)
    feed(c, greeting(mechanism=b"CURVE", as_server=1, minor=minor))
    sent = first + out_bytes(c)
    # libzmq's signature (padding: an empty identity's length + 1), then ours.
    assert sent[:64] == b"\xff" + bytes(7) + b"\x01" + greeting(mechanism=b"CURVE")[9:]
    [(_, hello)] = frames_of(sent[64:])
    server.on_hello(hello)
    feed(c, command_frame(server.welcome()))
    [(_, initiate)] = frames_of(out_bytes(c))
    props = server.on_initiate(initiate)
    assert props[b"socket-type"] == socket_type.encode()
    feed(c, command_frame(server.ready(ref.properties((b"Socket-Type", peer_type)))))
    assert c.handshake_done
    return c, server


def fails(action: Callable[[], object]) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        action()
    return info.value


# ------------------------------------------------------------ handshakes
@pytest.mark.parametrize("mode", FEED_MODES)
def test_handshake_and_messages_between_our_client_and_server(keys: Pair, mode: str) -> None:
    c, s = keys.client(), keys.server()
    pump(c, s, mode=mode)
    assert c.handshake_done and s.handshake_done
    assert c.peer_socket_type == "ROUTER" and s.peer_socket_type == "DEALER"
    assert s.mechanism.client_key == keys.client_public  # type: ignore[attr-defined]
    c.send_messages([[b"hello", b"", b"world"], [b"x" * 100_000]])
    s.send_messages([[b"back"]])
    pump(c, s, mode=mode)
    assert s.pull(10) == [[b"hello", b"", b"world"], [b"x" * 100_000]]
    assert c.pull(10) == [[b"back"]]


def test_command_sizes_match_the_rfc(keys: Pair) -> None:
    c, s = keys.client(), keys.server()
    first = out_bytes(c)
    feed(s, first)  # the signatures cross, then the major versions
    feed(c, out_bytes(s))
    feed(s, out_bytes(c))
    feed(c, out_bytes(s))
    sent = out_bytes(c)
    [(flags, hello)] = frames_of(sent)
    assert flags == 0x04 and len(hello) == 200 and hello[:8] == b"\x05HELLO\x01\x00"
    assert hello[8:80] == bytes(72)  # anti-amplification padding
    assert struct.unpack(">Q", hello[112:120])[0] == 1  # first short nonce
    feed(s, sent)
    [(_, welcome)] = frames_of(out_bytes(s))
    assert len(welcome) == 168 and welcome.startswith(b"\x07WELCOME")
    assert len(welcome) < len(hello)  # anti-amplification
    feed(c, command_frame(welcome))
    [(_, initiate)] = frames_of(out_bytes(c))
    assert len(initiate) >= 257 and initiate.startswith(b"\x08INITIATE")
    assert struct.unpack(">Q", initiate[105:113])[0] == 2
    feed(s, command_frame(initiate))
    [(_, ready)] = frames_of(out_bytes(s))
    assert len(ready) >= 30 and ready.startswith(b"\x05READY")
    assert struct.unpack(">Q", ready[6:14])[0] == 1
    feed(c, command_frame(ready))
    assert c.handshake_done and s.handshake_done


def test_our_client_against_the_reference_server(keys: Pair) -> None:
    c, server = handshaken_client(keys)
    c.send_messages([[b"part1", b"part2"]])
    frames = frames_of(out_bytes(c))
    # MESSAGE boxes travel as plain data frames: MORE lives inside the box.
    assert [flags for flags, _ in frames] == [0, 0]
    assert [struct.unpack(">Q", body[8:16])[0] for _, body in frames] == [3, 4]
    assert [server.open_message(body) for _, body in frames] == [(1, b"part1"), (0, b"part2")]
    feed(c, data_frame(server.message(b"a", flags=1)) + data_frame(server.message(b"b")))
    assert c.pull(5) == [[b"a", b"b"]]


def test_our_server_against_the_reference_client(keys: Pair) -> None:
    s, peer = handshaken_server(keys)
    feed(s, data_frame(peer.message(b"one")) + data_frame(peer.message(b"two", flags=1)))
    feed(s, data_frame(peer.message(b"three")))
    assert s.pull(5) == [[b"one"], [b"two", b"three"]]
    s.send_messages([[b"reply"]])
    [(flags, body)] = frames_of(out_bytes(s))
    assert flags == 0
    assert struct.unpack(">Q", body[8:16])[0] == 2  # READY used 1
    assert peer.open_message(body) == (0, b"reply")


def test_metadata_travels_inside_the_boxes(keys: Pair) -> None:
    c = ZMTPConnection(
        socket_type="DEALER",
        mechanism=CurveClient(
            crypto=CRYPTO,
            public_key=keys.client_public,
            secret_key=keys.client_secret,
            server_key=keys.server_public,
            identity=b"me",
            properties={"X-Secret-Label": b"visible-only-to-the-server"},
        ),
        now=0.0,
    )
    s = keys.server()
    wire = bytearray()
    for _ in range(10):
        for src, dst in ((c, s), (s, c)):
            data = out_bytes(src)
            wire += data
            feed(dst, data)
    assert s.handshake_done
    assert s.peer_metadata["X-Secret-Label"] == b"visible-only-to-the-server"
    assert s.peer_identity == b"me"
    assert b"visible-only" not in wire and b"Socket-Type" not in wire


def test_commands_after_the_handshake_are_encrypted(keys: Pair) -> None:
    """PING/PONG (heartbeats) travel inside MESSAGE boxes with the COMMAND flag."""
    c = ZMTPConnection(
        socket_type="DEALER",
        mechanism=CurveClient(
            crypto=CRYPTO,
            public_key=keys.client_public,
            secret_key=keys.client_secret,
            server_key=keys.server_public,
        ),
        now=0.0,
        heartbeat_ivl=1.0,
    )
    s = keys.server()
    pump(c, s)
    c.on_timer(1.5)
    [(flags, body)] = frames_of(out_bytes(c))
    assert flags == 0 and body.startswith(b"\x07MESSAGE") and b"PING" not in body
    feed(s, data_frame(body))
    assert s.pull(5) == []
    [(_, pong)] = frames_of(out_bytes(s))
    assert pong.startswith(b"\x07MESSAGE") and b"PONG" not in pong


@pytest.mark.parametrize(
    ("minor", "expected"), [(1, (2, b"\x09SUBSCRIBEtopic")), (0, (0, b"\x01topic"))]
)
def test_subscriptions_inside_boxes(keys: Pair, minor: int, expected: tuple[int, bytes]) -> None:
    """SUB to a ZMTP 3.1 peer: a SUBSCRIBE command in the box; to 3.0: a 0x01 message
    (libzmq's curve_encoding_t downgrade)."""
    c, server = handshaken_client(keys, minor=minor, socket_type="SUB", peer_type=b"PUB")
    c.send_messages([[b"\x01topic"]])
    [(_, body)] = frames_of(out_bytes(c))
    assert server.open_message(body) == expected


def test_client_key_and_zap_request(keys: Pair) -> None:
    s, peer = server_after_hello(keys, zap=ZAP)
    feed(s, command_frame(peer.initiate(ref.properties((b"Socket-Type", b"DEALER")))))
    assert out_bytes(s) == b""  # READY waits for ZAP
    assert s.zap_request() == [
        b"1.0",
        b"1",
        b"global",
        b"10.1.2.3",
        b"IDENT",
        b"CURVE",
        keys.client_public,
    ]
    s.zap_reply([b"1.0", b"1", b"200", b"OK", b"carol", prop(b"Group", b"admins")], now=0.0)
    [(_, ready)] = frames_of(out_bytes(s))
    peer.on_ready(ready)
    assert s.handshake_done
    assert s.mechanism.user_id == b"carol"
    assert s.mechanism.zap_metadata["group"] == b"admins"


@pytest.mark.parametrize("status", [b"400", b"500"])
def test_zap_refusal_sends_error(keys: Pair, status: bytes) -> None:
    s, peer = server_after_hello(keys, zap=ZAP)
    feed(s, command_frame(peer.initiate(b"")))
    s.zap_request()
    err = fails(lambda: s.zap_reply([b"1.0", b"1", status, b"no", b"", b""], now=0.0))
    assert err.kind == "auth" and err.zap_status == int(status)
    assert frames_of(out_bytes(s)) == [(0x04, b"\x05ERROR\x03" + status)]


def test_zap_temporary_failure_is_silent(keys: Pair) -> None:
    s, peer = server_after_hello(keys, zap=ZAP)
    feed(s, command_frame(peer.initiate(b"")))
    s.zap_request()
    err = fails(lambda: s.zap_reply([b"1.0", b"1", b"300", b"later", b"", b""], now=0.0))
    assert err.zap_status == 300
    assert out_bytes(s) == b""


def test_client_reports_the_servers_error(keys: Pair) -> None:
    c = keys.client()
    feed(c, GREETING_SERVER)
    out_bytes(c)
    err = fails(lambda: feed(c, command_frame(b"\x05ERROR\x03400")))
    assert err.kind == "peer" and err.zap_status == 400


# ------------------------------------------------------------ wrong keys
def test_wrong_server_key_fails_hello_silently(keys: Pair) -> None:
    other_public, _ = ref.keypair()
    c, s = keys.client(server_key=other_public), keys.server()
    err = fails(lambda: pump(c, s))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert not s.handshake_done and not c.handshake_done
    assert b"WELCOME" not in out_bytes(s) and b"ERROR" not in out_bytes(s)


def test_client_refuses_a_welcome_from_an_impostor(keys: Pair) -> None:
    """A server that does not hold the secret key the client expects."""
    c = keys.client()
    impostor = ref.Server(*ref.keypair())
    feed(c, GREETING_SERVER)
    [(_, hello)] = frames_of(out_bytes(c)[64:])
    # The impostor cannot open HELLO; it forges a WELCOME for C' anyway.
    impostor.cn_client = hello[80:112]
    err = fails(lambda: feed(c, command_frame(impostor.welcome())))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert out_bytes(c) == b""  # a client never sends ERROR (RFC 26)


def test_vouch_for_another_server_is_refused(keys: Pair) -> None:
    s, peer = server_after_hello(keys)
    other_public, _ = ref.keypair()
    err = fails(lambda: feed(s, command_frame(peer.initiate(b"", vouch_server=other_public))))
    assert err.code == ZMTP_KEY_EXCHANGE
    assert out_bytes(s) == b""


def test_vouch_for_another_transient_key_is_refused(keys: Pair) -> None:
    s, peer = server_after_hello(keys)
    other_public, _ = ref.keypair()
    err = fails(lambda: feed(s, command_frame(peer.initiate(b"", vouch_transient=other_public))))
    assert err.code == ZMTP_KEY_EXCHANGE


def test_client_claiming_a_key_it_does_not_hold(keys: Pair) -> None:
    """INITIATE names C, but the vouch was made with another secret key."""
    s, peer = server_after_hello(keys)
    _, thief_secret = ref.keypair()
    peer.secret = thief_secret
    err = fails(lambda: feed(s, command_frame(peer.initiate(b""))))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert s.zap_request() is None


def test_cookie_tampering_is_refused(keys: Pair) -> None:
    s, peer = server_after_hello(keys)
    bad = bytearray(peer.cookie)
    bad[40] ^= 0x01
    err = fails(lambda: feed(s, command_frame(peer.initiate(b"", cookie=bytes(bad)))))
    assert err.code == ZMTP_CRYPTOGRAPHIC


def test_cookie_from_another_connection_is_refused(keys: Pair) -> None:
    _s1, peer1 = server_after_hello(keys)
    s2, peer2 = server_after_hello(keys)
    err = fails(lambda: feed(s2, command_frame(peer2.initiate(b"", cookie=peer1.cookie))))
    assert err.code == ZMTP_CRYPTOGRAPHIC


def test_initiate_replayed_on_a_new_connection_is_refused(keys: Pair) -> None:
    """A recorded INITIATE is useless: the cookie key died with its connection."""
    s1, peer = server_after_hello(keys)
    initiate = peer.initiate(ref.properties((b"Socket-Type", b"DEALER")))
    feed(s1, command_frame(initiate))
    assert s1.handshake_done
    s2 = keys.server()
    feed(s2, GREETING_CLIENT + command_frame(peer.hello(nonce=1)))
    out_bytes(s2)
    err = fails(lambda: feed(s2, command_frame(initiate)))
    assert err.code == ZMTP_CRYPTOGRAPHIC


# ------------------------------------------------------------ malformed handshake
@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda h: h[:199], ZMTP_MALFORMED_COMMAND_HELLO),
        (lambda h: h + b"\x00", ZMTP_MALFORMED_COMMAND_HELLO),
        (lambda h: h[:6] + b"\x02\x00" + h[8:], ZMTP_MALFORMED_COMMAND_HELLO),
        (lambda h: h[:150] + bytes((h[150] ^ 1,)) + h[151:], ZMTP_CRYPTOGRAPHIC),
        (lambda h: h[:112] + bytes(8) + h[120:], ZMTP_INVALID_SEQUENCE),
    ],
    ids=["short", "long", "version", "tampered-box", "nonce-zero"],
)
def test_malformed_hello(keys: Pair, mutate: Callable[[bytes], bytes], code: int) -> None:
    s = keys.server()
    peer = keys.ref_client()
    err = fails(lambda: feed(s, GREETING_CLIENT + command_frame(mutate(peer.hello()))))
    assert err.code == code
    assert b"WELCOME" not in out_bytes(s)


def test_hello_box_must_hold_zeros(keys: Pair) -> None:
    """A box that opens but holds other bytes is not a HELLO signature."""
    from nacl.bindings import crypto_box

    s = keys.server()
    peer = keys.ref_client()
    hello = bytearray(peer.hello())
    nonce = b"CurveZMQHELLO---" + bytes(hello[112:120])
    hello[120:200] = crypto_box(b"\x01" * 64, nonce, keys.server_public, peer.cn_secret)
    err = fails(lambda: feed(s, GREETING_CLIENT + command_frame(bytes(hello))))
    assert err.code == ZMTP_CRYPTOGRAPHIC


#: Curve25519 points of small order (libsodium refuses key agreement with
#: them: the shared secret does not depend on our secret key). Zero, one,
#: and a point of order 8, little-endian.
LOW_ORDER_KEYS = [
    bytes(32),
    b"\x01" + bytes(31),
    bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
]


@pytest.mark.parametrize("weak", LOW_ORDER_KEYS, ids=["zero", "one", "order8"])
def test_hello_with_a_low_order_client_key_fails_cleanly(keys: Pair, weak: bytes) -> None:
    """Issue 12: nacl's RuntimeError escaped CurveServer._on_hello into the
    I/O loop. Now a ProtocolError as for any HELLO that does not open:
    ZMTP_CRYPTOGRAPHIC, no WELCOME and no ERROR (libzmq's behaviour)."""
    s = keys.server()
    peer = keys.ref_client()
    peer.cn_public = weak
    err = fails(lambda: feed(s, GREETING_CLIENT + command_frame(peer.hello())))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert err.during_handshake
    out = out_bytes(s)
    assert b"WELCOME" not in out and b"ERROR" not in out
    assert s.state == "closed"


@pytest.mark.parametrize("weak", LOW_ORDER_KEYS, ids=["zero", "one", "order8"])
def test_welcome_with_a_low_order_server_key_fails_cleanly(keys: Pair, weak: bytes) -> None:
    """The client side: a server (holding the right long-term key) puts a
    low-order S' in WELCOME. Neither the key agreement nor the vouch box
    may raise anything but ProtocolError; the client sends nothing back."""
    c = keys.client()
    server = keys.ref_server()
    feed(c, GREETING_SERVER)
    [(_, hello)] = frames_of(out_bytes(c)[64:])
    server.on_hello(hello)
    server.cn_public = weak
    err = fails(lambda: feed(c, command_frame(server.welcome())))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert out_bytes(c) == b""


@pytest.mark.parametrize("weak", LOW_ORDER_KEYS, ids=["zero", "one", "order8"])
def test_initiate_vouch_from_a_low_order_client_key_is_refused(keys: Pair, weak: bytes) -> None:
    """INITIATE names a low-order long-term key C: the vouch box cannot open."""
    s, peer = server_after_hello(keys)
    peer.public = weak
    err = fails(lambda: feed(s, command_frame(peer.initiate(b""))))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert s.zap_request() is None
    assert not s.handshake_done


def test_a_low_order_server_key_configured_on_a_client_fails_its_connection() -> None:
    """CURVE_SERVERKEY set to a low-order point: the connection fails at the
    start of the handshake, with a ProtocolError (never nacl's exception)."""
    public, secret = ref.keypair()
    mech = CurveClient(
        crypto=CRYPTO, public_key=public, secret_key=secret, server_key=LOW_ORDER_KEYS[0]
    )
    c = ZMTPConnection(socket_type="DEALER", mechanism=mech, now=0.0)
    err = fails(lambda: feed(c, GREETING_SERVER))
    assert err.code == ZMTP_CRYPTOGRAPHIC


def test_short_initiate(keys: Pair) -> None:
    s, peer = server_after_hello(keys)
    err = fails(lambda: feed(s, command_frame(peer.initiate(b"")[:256])))
    assert err.code == ZMTP_MALFORMED_COMMAND_INITIATE


def test_initiate_nonce_must_follow_hello(keys: Pair) -> None:
    s, peer = server_after_hello(keys)
    err = fails(lambda: feed(s, command_frame(peer.initiate(b"", nonce=1))))
    assert err.code == ZMTP_INVALID_SEQUENCE


@pytest.mark.parametrize("body", [b"\x05READY", b"\x07MESSAGE" + bytes(40), b"\x04PING\x00\x00"])
def test_server_wants_hello_first(keys: Pair, body: bytes) -> None:
    s = keys.server()
    err = fails(lambda: feed(s, GREETING_CLIENT + command_frame(body)))
    assert err.code == ZMTP_UNEXPECTED_COMMAND


def test_second_hello_is_refused(keys: Pair) -> None:
    s, peer = server_after_hello(keys)
    err = fails(lambda: feed(s, command_frame(peer.hello())))
    assert err.code == ZMTP_UNEXPECTED_COMMAND


def test_short_ready(keys: Pair) -> None:
    c = keys.client()
    server = keys.ref_server()
    feed(c, GREETING_SERVER)
    [(_, hello)] = frames_of(out_bytes(c)[64:])
    server.on_hello(hello)
    feed(c, command_frame(server.welcome()))
    out_bytes(c)
    err = fails(lambda: feed(c, command_frame(b"\x05READY" + bytes(20))))
    assert err.code == ZMTP_MALFORMED_COMMAND_READY


def test_tampered_ready(keys: Pair) -> None:
    c = keys.client()
    server = keys.ref_server()
    feed(c, GREETING_SERVER)
    [(_, hello)] = frames_of(out_bytes(c)[64:])
    server.on_hello(hello)
    feed(c, command_frame(server.welcome()))
    [(_, initiate)] = frames_of(out_bytes(c))
    server.on_initiate(initiate)
    ready = bytearray(server.ready(ref.properties((b"Socket-Type", b"ROUTER"))))
    ready[-1] ^= 0x80
    err = fails(lambda: feed(c, command_frame(bytes(ready))))
    assert err.code == ZMTP_CRYPTOGRAPHIC
    assert not c.handshake_done


def test_client_never_sends_error_for_bad_metadata(keys: Pair) -> None:
    c = keys.client()
    server = keys.ref_server()
    feed(c, GREETING_SERVER)
    [(_, hello)] = frames_of(out_bytes(c)[64:])
    server.on_hello(hello)
    feed(c, command_frame(server.welcome()))
    [(_, initiate)] = frames_of(out_bytes(c))
    server.on_initiate(initiate)
    err = fails(
        lambda: feed(c, command_frame(server.ready(ref.properties((b"Socket-Type", b"PUB")))))
    )
    assert err.code == ZMTP_INVALID_METADATA
    assert out_bytes(c) == b""


def test_truncated_handshake_times_out(keys: Pair) -> None:
    s = keys.server(handshake_ivl=5.0)
    peer = keys.ref_client()
    feed(s, GREETING_CLIENT + command_frame(peer.hello())[:100])
    s.on_timer(4.9)
    err = fails(lambda: s.on_timer(5.0))
    assert err.kind == "timeout" and err.during_handshake


# ------------------------------------------------------------ MESSAGE attacks
def test_replayed_message_is_refused_and_not_delivered(keys: Pair) -> None:
    s, peer = handshaken_server(keys)
    first = peer.message(b"pay alice 10")
    feed(s, data_frame(first))
    assert s.pull(5) == [[b"pay alice 10"]]
    feed(s, data_frame(first))
    err = fails(lambda: s.pull(5))
    assert isinstance(err, MessageError) and err.code == ZMTP_INVALID_SEQUENCE
    assert not err.during_handshake


def test_reordered_messages(keys: Pair) -> None:
    s, peer = handshaken_server(keys)
    m3, m4 = peer.message(b"first"), peer.message(b"second")
    feed(s, data_frame(m4) + data_frame(m3))
    assert s.pull(5) == [[b"second"]]  # authentic and in sequence so far
    err = fails(lambda: s.pull(5))
    assert err.code == ZMTP_INVALID_SEQUENCE


def test_nonce_gaps_are_allowed(keys: Pair) -> None:
    """RFC 26 asks for increasing nonces, not consecutive ones (as libzmq)."""
    s, peer = handshaken_server(keys)
    feed(s, data_frame(peer.message(b"a", nonce=10)) + data_frame(peer.message(b"b", nonce=99)))
    assert s.pull(5) == [[b"a"], [b"b"]]


def test_nonce_equal_to_initiate_is_refused(keys: Pair) -> None:
    s, peer = handshaken_server(keys)
    feed(s, data_frame(peer.message(b"a", nonce=2)))
    assert fails(lambda: s.pull(5)).code == ZMTP_INVALID_SEQUENCE


@pytest.mark.parametrize("where", [8, 16, 20, -1])
def test_tampered_message_is_refused_and_not_delivered(keys: Pair, where: int) -> None:
    s, peer = handshaken_server(keys)
    good = peer.message(b"transfer 10 EUR")
    bad = bytearray(good)
    bad[where] ^= 0x01
    feed(s, data_frame(bytes(bad)) + data_frame(peer.message(b"later")))
    err = fails(lambda: s.pull(5))
    assert err.code in (ZMTP_CRYPTOGRAPHIC, ZMTP_INVALID_SEQUENCE)
    assert fails(lambda: s.pull(5)) is err  # the connection stays dead


def test_forged_nonce_does_not_advance_the_counter(keys: Pair) -> None:
    """A forged box with a huge nonce fails without moving the expected nonce
    (the connection is dead anyway, but nothing is remembered from a forgery)."""
    s, _ = handshaken_server(keys)
    mech = s.mechanism
    forged = b"\x07MESSAGE" + struct.pack(">Q", 2**63) + bytes(40)
    with pytest.raises(ProtocolError):
        mech.decode_frame(0, forged)
    assert mech._peer_nonce == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"\x07MESSAGE" + bytes(24), ZMTP_MALFORMED_COMMAND_MESSAGE),  # 32 bytes: too short
        (b"\x05HELLO" + bytes(30), ZMTP_UNEXPECTED_COMMAND),
        (b"plaintext!", ZMTP_UNEXPECTED_COMMAND),
        (b"", ZMTP_UNEXPECTED_COMMAND),
    ],
)
def test_anything_but_a_message_box_is_refused(keys: Pair, body: bytes, code: int) -> None:
    s, _ = handshaken_server(keys)
    feed(s, data_frame(body))
    err = fails(lambda: s.pull(5))
    assert err.code in (code, 0x10000011)  # UNSPECIFIED when not even a command
    assert s.close_reason is err


def test_plaintext_command_after_handshake_is_refused(keys: Pair) -> None:
    s, _ = handshaken_server(keys)
    feed(s, command_frame(b"\x04PING\x00\x00"))
    assert fails(lambda: s.pull(5)).code == ZMTP_UNEXPECTED_COMMAND


def test_client_detects_replay_by_the_server(keys: Pair) -> None:
    c, server = handshaken_client(keys)
    m = server.message(b"x")
    feed(c, data_frame(m))
    assert c.pull(5) == [[b"x"]]
    feed(c, data_frame(m))
    assert fails(lambda: c.pull(5)).code == ZMTP_INVALID_SEQUENCE


def test_message_boxes_are_direction_bound(keys: Pair) -> None:
    """The client cannot be fed its own box back (reflection): the nonce
    prefixes differ per direction."""
    c, _ = handshaken_client(keys)
    c.send_messages([[b"echo me"]])
    [(_, mine)] = frames_of(out_bytes(c))
    feed(c, data_frame(mine))
    assert fails(lambda: c.pull(5)).code == ZMTP_CRYPTOGRAPHIC


def test_ciphertext_holds_no_plaintext(keys: Pair) -> None:
    c, s = keys.client(), keys.server()
    wire = bytearray()
    secret = b"The eagle lands at midnight; bring 3 umbrellas. " * 4
    c.send_messages([[secret], [b"a" * 64]])
    for _ in range(10):
        for src, dst in ((c, s), (s, c)):
            data = out_bytes(src)
            wire += data
            feed(dst, data)
    assert s.pull(10) == [[secret], [b"a" * 64]]
    for i in range(len(secret) - 6):
        assert secret[i : i + 6] not in wire
    assert b"aaaaaa" not in wire


def test_nonce_exhaustion_is_an_error(keys: Pair) -> None:
    c, _ = connected(keys)
    c.mechanism._nonce = MAX_NONCE  # type: ignore[attr-defined]
    c.send_messages([[b"last one"]])
    with pytest.raises(ProtocolError):
        c.send_messages([[b"one too many"]])


def test_keys_must_be_32_bytes() -> None:
    with pytest.raises(ValueError):
        CurveClient(crypto=CRYPTO, public_key=bytes(31), secret_key=bytes(32), server_key=bytes(32))
    with pytest.raises(ValueError):
        CurveServer(crypto=CRYPTO, secret_key=bytes(33))


def test_repr_shows_no_key_material(keys: Pair) -> None:
    c, s = connected(keys)
    for mech in (c.mechanism, s.mechanism):
        text = repr(mech)
        for key in (keys.client_secret, keys.server_secret, keys.client_public, keys.server_public):
            assert key.hex() not in text and repr(key) not in text


def test_short_term_secrets_are_dropped_after_the_handshake(keys: Pair) -> None:
    c, s = connected(keys)
    assert c.mechanism._cn_secret == b"" and c.mechanism._secret == b""  # type: ignore[attr-defined]
    assert s.mechanism._cn_secret == b"" and s.mechanism._cookie_key == b""  # type: ignore[attr-defined]


# ------------------------------------------------------------ fuzz
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_after_the_greeting_only_raise_protocol_error(data: bytes) -> None:
    s = Pair().server()
    try:
        feed(s, GREETING_CLIENT + data)
        s.pull(10)
    except ProtocolError:
        pass
    assert not s.handshake_done


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=1, max_size=300))
def test_random_frames_after_the_handshake_only_raise_protocol_error(body: bytes) -> None:
    s, _ = handshaken_server(Pair())
    try:
        feed(s, data_frame(body))
        assert s.pull(10) == []
    except ProtocolError:
        pass
