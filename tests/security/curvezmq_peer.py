"""A second, minimal CurveZMQ implementation for the tests (RFC 26).

Written from the RFC's grammar with PyNaCl's bindings, independently of
``purezmq._zmtp.mechanisms.curve``: it checks our wire format from outside
and lets tests misbehave on purpose (replayed or reordered nonces, tampered
boxes, wrong keys, a vouch for another server, truncated commands).
"""

from __future__ import annotations

import os
import struct

from nacl.bindings import (
    crypto_box,
    crypto_box_afternm,
    crypto_box_beforenm,
    crypto_box_keypair,
    crypto_box_open,
    crypto_box_open_afternm,
    crypto_scalarmult_base,
    crypto_secretbox,
    crypto_secretbox_open,
)

from tests.wire import zmtp_raw

HELLO_PADDING = 72  # 70 in RFC 26's space-padded prose; names are length-prefixed on the wire


def short_nonce(n: int) -> bytes:
    return struct.pack(">Q", n)


def properties(*pairs: tuple[bytes, bytes]) -> bytes:
    return b"".join(zmtp_raw.prop(name, value) for name, value in pairs)


def parse_properties(data: bytes) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in zmtp_raw.parse_properties(data)}


class Client:
    """The client side: HELLO, INITIATE, MESSAGE; every field overridable."""

    def __init__(self, server_public: bytes, public: bytes, secret: bytes) -> None:
        self.server_public = server_public
        self.public = public
        self.secret = secret
        self.cn_public, self.cn_secret = crypto_box_keypair()
        self.nonce = 1
        self.cn_server = b""
        self.cookie = b""
        self.shared = b""
        self.peer_nonce = 0

    def take_nonce(self) -> int:
        n = self.nonce
        self.nonce += 1
        return n

    def hello(self, *, nonce: int | None = None, version: bytes = b"\x01\x00") -> bytes:
        n = short_nonce(self.take_nonce() if nonce is None else nonce)
        box = crypto_box(bytes(64), b"CurveZMQHELLO---" + n, self.server_public, self.cn_secret)
        return b"\x05HELLO" + version + bytes(HELLO_PADDING) + self.cn_public + n + box

    def on_welcome(self, body: bytes) -> None:
        assert body.startswith(b"\x07WELCOME") and len(body) == 168, (len(body), body[:8])
        plain = crypto_box_open(
            body[24:], b"WELCOME-" + body[8:24], self.server_public, self.cn_secret
        )
        assert len(plain) == 128
        self.cn_server, self.cookie = plain[:32], plain[32:]
        self.shared = crypto_box_beforenm(self.cn_server, self.cn_secret)

    def initiate(
        self,
        metadata: bytes,
        *,
        nonce: int | None = None,
        vouch_server: bytes | None = None,
        vouch_transient: bytes | None = None,
        cookie: bytes | None = None,
    ) -> bytes:
        vouch_nonce = os.urandom(16)
        vouch = crypto_box(
            (vouch_transient or self.cn_public) + (vouch_server or self.server_public),
            b"VOUCH---" + vouch_nonce,
            self.cn_server,
            self.secret,
        )
        n = short_nonce(self.take_nonce() if nonce is None else nonce)
        box = crypto_box(
            self.public + vouch_nonce + vouch + metadata,
            b"CurveZMQINITIATE" + n,
            self.cn_server,
            self.cn_secret,
        )
        return b"\x08INITIATE" + (cookie or self.cookie) + n + box

    def on_ready(self, body: bytes) -> dict[bytes, bytes]:
        assert body.startswith(b"\x05READY")
        n = body[6:14]
        self.peer_nonce = struct.unpack(">Q", n)[0]
        plain = crypto_box_open_afternm(body[14:], b"CurveZMQREADY---" + n, self.shared)
        return parse_properties(plain)

    def message(self, payload: bytes, *, flags: int = 0, nonce: int | None = None) -> bytes:
        n = short_nonce(self.take_nonce() if nonce is None else nonce)
        box = crypto_box_afternm(bytes((flags,)) + payload, b"CurveZMQMESSAGEC" + n, self.shared)
        return b"\x07MESSAGE" + n + box

    def open_message(self, body: bytes) -> tuple[int, bytes]:
        assert body.startswith(b"\x07MESSAGE")
        n = body[8:16]
        nonce = struct.unpack(">Q", n)[0]
        assert nonce > self.peer_nonce, "server reused or reordered a nonce"
        self.peer_nonce = nonce
        plain = crypto_box_open_afternm(body[16:], b"CurveZMQMESSAGES" + n, self.shared)
        return plain[0], plain[1:]


class Server:
    """The server side: WELCOME, READY, MESSAGE."""

    def __init__(self, public: bytes, secret: bytes) -> None:
        self.public = public
        self.secret = secret
        self.cn_client = b""
        self.cn_public, self.cn_secret = crypto_box_keypair()
        self.cookie_key = os.urandom(32)
        self.shared = b""
        self.nonce = 1
        self.client_key = b""
        self.peer_nonce = 0

    def on_hello(self, body: bytes) -> None:
        assert body.startswith(b"\x05HELLO\x01\x00") and len(body) == 200, len(body)
        assert body[8:80] == bytes(72), "anti-amplification padding must be zeros"
        self.cn_client = body[80:112]
        n = body[112:120]
        self.peer_nonce = struct.unpack(">Q", n)[0]
        plain = crypto_box_open(body[120:], b"CurveZMQHELLO---" + n, self.cn_client, self.secret)
        assert plain == bytes(64)

    def welcome(self) -> bytes:
        cookie_nonce = os.urandom(16)
        cookie = cookie_nonce + crypto_secretbox(
            self.cn_client + self.cn_secret, b"COOKIE--" + cookie_nonce, self.cookie_key
        )
        welcome_nonce = os.urandom(16)
        box = crypto_box(
            self.cn_public + cookie, b"WELCOME-" + welcome_nonce, self.cn_client, self.secret
        )
        return b"\x07WELCOME" + welcome_nonce + box

    def on_initiate(self, body: bytes) -> dict[bytes, bytes]:
        assert body.startswith(b"\x08INITIATE") and len(body) >= 257
        cookie = crypto_secretbox_open(body[25:105], b"COOKIE--" + body[9:25], self.cookie_key)
        assert cookie == self.cn_client + self.cn_secret
        n = body[105:113]
        nonce = struct.unpack(">Q", n)[0]
        assert nonce > self.peer_nonce
        self.peer_nonce = nonce
        plain = crypto_box_open(body[113:], b"CurveZMQINITIATE" + n, self.cn_client, self.cn_secret)
        self.client_key = plain[:32]
        vouch = crypto_box_open(
            plain[48:128], b"VOUCH---" + plain[32:48], self.client_key, self.cn_secret
        )
        assert vouch == self.cn_client + self.public
        self.shared = crypto_box_beforenm(self.cn_client, self.cn_secret)
        return parse_properties(plain[128:])

    def ready(self, metadata: bytes, *, nonce: int | None = None) -> bytes:
        n = short_nonce(self.take_nonce() if nonce is None else nonce)
        box = crypto_box_afternm(metadata, b"CurveZMQREADY---" + n, self.shared)
        return b"\x05READY" + n + box

    def take_nonce(self) -> int:
        n = self.nonce
        self.nonce += 1
        return n

    def message(self, payload: bytes, *, flags: int = 0, nonce: int | None = None) -> bytes:
        n = short_nonce(self.take_nonce() if nonce is None else nonce)
        box = crypto_box_afternm(bytes((flags,)) + payload, b"CurveZMQMESSAGES" + n, self.shared)
        return b"\x07MESSAGE" + n + box

    def open_message(self, body: bytes) -> tuple[int, bytes]:
        assert body.startswith(b"\x07MESSAGE")
        n = body[8:16]
        nonce = struct.unpack(">Q", n)[0]
        assert nonce > self.peer_nonce, "client reused or reordered a nonce"
        self.peer_nonce = nonce
        plain = crypto_box_open_afternm(body[16:], b"CurveZMQMESSAGEC" + n, self.shared)
        return plain[0], plain[1:]


def keypair() -> tuple[bytes, bytes]:
    """(public, secret), raw 32 bytes each."""
    public, secret = crypto_box_keypair()
    assert crypto_scalarmult_base(secret) == public
    return public, secret
