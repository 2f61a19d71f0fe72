"""The CURVE mechanism (RFC 25 "ZMTP-CURVE", RFC 26 "CurveZMQ").

::

    C: HELLO    version(1,0) padding(72) C' nonce(8) Box[64 zeros](C'->S)
    S: WELCOME  nonce(16) Box[S' + cookie](S->C')
                cookie = nonce(16) SecretBox[C' + s'](K)
    C: INITIATE cookie nonce(8) Box[C + vouch + metadata](C'->S')
                vouch  = nonce(16) Box[C' + S](C->S')
    S: READY    nonce(8) Box[metadata](S'->C')
    then        MESSAGE nonce(8) Box[flags + payload](S'<->C')

C/S are the long-term keys, C'/S' the per-connection (short-term) ones, K
the server's cookie key. Every box is NaCl's ``crypto_box``
(X25519 + XSalsa20-Poly1305), the cookie a ``crypto_secretbox``; the
primitives come from a `CurveCrypto` the socket layer supplies (libsodium
through PyNaCl, see ``purezmq._crypto``). This module holds only the
protocol: framing, nonces, key handling and checks. No primitive is
implemented here.

Nonces. Long nonces (16 bytes: WELCOME, cookie, vouch) are random. Short
nonces (8 bytes, big-endian) count up from 1 per direction: the client
uses 1 for HELLO and 2 for INITIATE, the server 1 for READY, and MESSAGEs
continue from there, as libzmq does. Each side refuses a short nonce that
does not strictly increase over the last one it accepted (HELLO, INITIATE,
READY, MESSAGE alike) - a replayed or reordered box ends the connection
with ZMTP_INVALID_SEQUENCE before it is even opened. The nonce is only
remembered once its box opened, so a forged frame cannot move it.

Wire details follow libzmq 4.3 (``curve_client.cpp``, ``curve_server.cpp``,
``curve_mechanism_base.cpp``) so both interoperate:

- command names are length-prefixed, so HELLO's padding is 72 bytes, not
  the 70 of RFC 26's space-padded prose; HELLO is exactly 200 bytes (more
  than WELCOME's 168: anti-amplification), INITIATE at least 257;
- a MESSAGE travels as an ordinary ZMTP frame without MORE or COMMAND
  flags; the frame's flags live *inside* the box: bit 0 MORE, bit 1 COMMAND
  (PING, SUBSCRIBE... after the handshake are encrypted too). Unknown flag
  bits are ignored, as libzmq does;
- the server sends ERROR only for a ZAP refusal (400/500); any other failure
  closes silently (RFC 26: no ERROR for a bad MESSAGE; a client never sends
  ERROR).

Beyond libzmq: the server checks that HELLO's box holds 64 zero bytes and
that the vouch names *its* public key (S), both with constant-time
comparisons, and short nonces must increase across the handshake commands
too (libzmq checks from the first MESSAGE on).

Python cannot wipe memory; the short-term secret keys and the cookie key
are dropped as soon as they are no longer needed, and no key ever appears
in a message, log line or repr.
"""

from __future__ import annotations

import hmac
import struct
from collections.abc import Mapping, Sequence
from typing import Final, NoReturn, Protocol

from purezmq._zmtp import commands
from purezmq._zmtp.errors import (
    ZMTP_CRYPTOGRAPHIC,
    ZMTP_INVALID_SEQUENCE,
    ZMTP_KEY_EXCHANGE,
    ZMTP_MALFORMED_COMMAND_HELLO,
    ZMTP_MALFORMED_COMMAND_INITIATE,
    ZMTP_MALFORMED_COMMAND_MESSAGE,
    ZMTP_MALFORMED_COMMAND_READY,
    ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
    ZMTP_UNEXPECTED_COMMAND,
    ProtocolError,
)
from purezmq._zmtp.frames import FLAG_COMMAND, FLAG_MORE
from purezmq._zmtp.greeting import PeerGreeting

from .base import Mechanism, MechanismStatus, MessageError
from .zap import ZapConfig

KEY_SIZE: Final = 32
MAC_SIZE: Final = 16
HELLO_SIZE: Final = 200
WELCOME_SIZE: Final = 168
INITIATE_MIN_SIZE: Final = 257
READY_MIN_SIZE: Final = 30
#: "\\x07MESSAGE" + short nonce + MAC + the flags byte.
MESSAGE_MIN_SIZE: Final = 8 + 8 + MAC_SIZE + 1
#: Largest short nonce (RFC 26: at most 2^64-1 commands per connection).
MAX_NONCE: Final = (1 << 64) - 1

HELLO_PREFIX: Final = b"\x05HELLO\x01\x00" + bytes(72)
WELCOME_PREFIX: Final = b"\x07WELCOME"
INITIATE_PREFIX: Final = b"\x08INITIATE"
READY_PREFIX: Final = b"\x05READY"
MESSAGE_PREFIX: Final = b"\x07MESSAGE"

NONCE_HELLO: Final = b"CurveZMQHELLO---"
NONCE_WELCOME: Final = b"WELCOME-"
NONCE_COOKIE: Final = b"COOKIE--"
NONCE_INITIATE: Final = b"CurveZMQINITIATE"
NONCE_VOUCH: Final = b"VOUCH---"
NONCE_READY: Final = b"CurveZMQREADY---"
NONCE_MESSAGE_CLIENT: Final = b"CurveZMQMESSAGEC"
NONCE_MESSAGE_SERVER: Final = b"CurveZMQMESSAGES"

# Flags inside a MESSAGE box (libzmq's msg_t::more / msg_t::command).
_BOX_MORE: Final = 0x01
_BOX_COMMAND: Final = 0x02
#: ZMTP frame flags (MORE 0x01, COMMAND 0x04) -> the box's flags byte.
_BOX_FLAGS: Final = tuple(
    bytes(((_BOX_MORE if f & FLAG_MORE else 0) | (_BOX_COMMAND if f & FLAG_COMMAND else 0),))
    for f in range(8)
)
#: The box's flags byte -> ZMTP frame flags (unknown bits ignored).
_FRAME_FLAGS: Final = tuple(
    (FLAG_MORE if b & _BOX_MORE else 0) | (FLAG_COMMAND if b & _BOX_COMMAND else 0)
    for b in range(256)
)

_U64: Final = struct.Struct(">Q")
_ZEROS_64: Final = bytes(64)


class CurveCrypto(Protocol):
    """The NaCl primitives CURVE needs (libsodium's names and conventions).

    Boxes are in the "easy" form: 16-byte MAC followed by the ciphertext.
    ``*_open`` return None when the box does not authenticate. Keys are 32
    bytes, box nonces 24.

    ``precompute`` and ``box`` return None when libsodium refuses the key
    agreement: a public key of low order (all zero bytes, for one) gives a
    shared secret anyone can compute. The keys come from the peer, so this
    is the peer's fault and ends one connection, never more (issue 12).
    """

    def keypair(self) -> tuple[bytes, bytes]:
        """A fresh (public, secret) X25519 key pair."""

    def public_key(self, secret: bytes) -> bytes:
        """The public key of `secret` (``crypto_scalarmult_base``)."""

    def random(self, size: int) -> bytes:
        """`size` bytes from a cryptographic random source."""

    def box(self, message: bytes, nonce: bytes, public: bytes, secret: bytes) -> bytes | None: ...

    def box_open(self, box: bytes, nonce: bytes, public: bytes, secret: bytes) -> bytes | None: ...

    def precompute(self, public: bytes, secret: bytes) -> bytes | None:
        """``crypto_box_beforenm``: the shared key for the ``*_afternm`` calls."""

    def box_afternm(self, message: bytes, nonce: bytes, key: bytes) -> bytes: ...

    def box_open_afternm(self, box: bytes, nonce: bytes, key: bytes) -> bytes | None: ...

    def secretbox(self, message: bytes, nonce: bytes, key: bytes) -> bytes: ...

    def secretbox_open(self, box: bytes, nonce: bytes, key: bytes) -> bytes | None: ...


def _check_key(name: str, key: bytes) -> bytes:
    if len(key) != KEY_SIZE:
        raise ValueError(f"{name} must be {KEY_SIZE} bytes, got {len(key)}")
    return bytes(key)


def _crypto_error(what: str) -> ProtocolError:
    return ProtocolError(f"CURVE: {what}", code=ZMTP_CRYPTOGRAPHIC)


def _weak_key(whose: str) -> ProtocolError:
    """libsodium refused a key agreement with `whose` key (low order)."""
    return _crypto_error(f"{whose} key is unusable for key agreement (low order)")


def _unexpected(name: bytes, where: str) -> ProtocolError:
    shown = name.decode("ascii", "replace")
    return ProtocolError(f"unexpected {shown} command {where}", code=ZMTP_UNEXPECTED_COMMAND)


class _CurveBase(Mechanism):
    """What client and server share: nonces and the MESSAGE box codec."""

    name = b"CURVE"
    transforms_frames = True

    def __init__(
        self,
        *,
        crypto: CurveCrypto,
        as_server: bool,
        identity: bytes | None,
        properties: Mapping[str, bytes] | None,
        zap: ZapConfig | None,
    ) -> None:
        super().__init__(as_server=as_server, identity=identity, properties=properties, zap=zap)
        self._crypto = crypto
        self._nonce = 1  # our next short nonce
        self._peer_nonce = 0  # the last short nonce we accepted from the peer
        self._shared = b""  # crypto_box_beforenm(peer C'/S', our c'/s')
        self._cn_secret = b""  # our short-term secret key, until the shared key exists
        if as_server:
            self._send_prefix, self._recv_prefix = NONCE_MESSAGE_SERVER, NONCE_MESSAGE_CLIENT
        else:
            self._send_prefix, self._recv_prefix = NONCE_MESSAGE_CLIENT, NONCE_MESSAGE_SERVER
        self._seal = crypto.box_afternm
        self._unseal = crypto.box_open_afternm

    def __repr__(self) -> str:  # never show keys
        side = "server" if self.as_server else "client"
        return f"<{type(self).__name__} {side} {self.status.value}>"

    # ------------------------------------------------------------ nonces
    def _next_nonce(self) -> bytes:
        """Our next short nonce (8 bytes), never reused."""
        nonce = self._nonce
        if nonce > MAX_NONCE:
            raise ProtocolError("CURVE short nonces exhausted", code=ZMTP_INVALID_SEQUENCE)
        self._nonce = nonce + 1
        return _U64.pack(nonce)

    def _check_peer_nonce(self, short: bytes) -> int:
        """The peer's short nonce as a number; refused unless it increased."""
        value: int = _U64.unpack(short)[0]
        if value <= self._peer_nonce:
            raise ProtocolError(
                f"CURVE short nonce {value} after {self._peer_nonce}: replayed or reordered",
                code=ZMTP_INVALID_SEQUENCE,
            )
        return value

    def _fail_silently(self, error: ProtocolError) -> NoReturn:
        self._fail(error, error_reason=None)

    # ------------------------------------------------------------ MESSAGE
    def encode_frame(self, flags: int, body: bytes) -> tuple[int, bytes]:
        nonce = self._nonce
        if nonce > MAX_NONCE:
            raise ProtocolError("CURVE short nonces exhausted", code=ZMTP_INVALID_SEQUENCE)
        self._nonce = nonce + 1
        short = _U64.pack(nonce)
        box = self._seal(_BOX_FLAGS[flags & 0x07] + body, self._send_prefix + short, self._shared)
        return 0, MESSAGE_PREFIX + short + box

    def decode_frame(self, flags: int, body: bytes) -> tuple[int, bytes]:
        # Checks in libzmq's order: command structure, name, size, nonce, box.
        size = len(body)
        if not body.startswith(MESSAGE_PREFIX):
            if size <= 1 or size <= body[0]:
                raise MessageError("malformed command", code=ZMTP_MALFORMED_COMMAND_UNSPECIFIED)
            raise MessageError(
                "CURVE: frame is not a MESSAGE command", code=ZMTP_UNEXPECTED_COMMAND
            )
        if size < MESSAGE_MIN_SIZE:
            raise MessageError(
                f"CURVE MESSAGE of {size} bytes is too short", code=ZMTP_MALFORMED_COMMAND_MESSAGE
            )
        short = body[8:16]
        nonce: int = _U64.unpack(short)[0]
        if nonce <= self._peer_nonce:
            raise MessageError(
                f"CURVE MESSAGE nonce {nonce} after {self._peer_nonce}: replayed or reordered",
                code=ZMTP_INVALID_SEQUENCE,
            )
        plain = self._unseal(body[16:], self._recv_prefix + short, self._shared)
        if plain is None:
            raise MessageError(
                "CURVE: MESSAGE box does not authenticate (tampered or wrong key)",
                code=ZMTP_CRYPTOGRAPHIC,
            )
        self._peer_nonce = nonce
        return _FRAME_FLAGS[plain[0]], plain[1:]


class CurveClient(_CurveBase):
    """CURVE client: knows the server's public key, proves its own key pair.

    Four X25519 operations per handshake (libzmq does six): C' and S box
    both HELLO and WELCOME, so their shared key is computed once; C' and S'
    box INITIATE, READY and every MESSAGE; only the vouch needs C and S'.
    """

    def __init__(
        self,
        *,
        crypto: CurveCrypto,
        public_key: bytes,
        secret_key: bytes,
        server_key: bytes,
        identity: bytes | None = None,
        properties: Mapping[str, bytes] | None = None,
    ) -> None:
        super().__init__(
            crypto=crypto, as_server=False, identity=identity, properties=properties, zap=None
        )
        self._public = _check_key("CURVE_PUBLICKEY", public_key)
        self._secret = _check_key("CURVE_SECRETKEY", secret_key)
        self._server = _check_key("CURVE_SERVERKEY", server_key)
        self._cn_public = b""
        self._hello_key = b""  # crypto_box_beforenm(S, c')
        self._cn_server = b""
        self._cookie = b""
        self._state = "start"

    def _fail(self, error: ProtocolError, *, error_reason: bytes | None) -> NoReturn:
        # RFC 26: "A client peer SHALL NOT send ERROR to the server."
        super()._fail(error, error_reason=None)

    def start(self, peer: PeerGreeting) -> None:
        self.peer = peer
        crypto = self._crypto
        self._cn_public, cn_secret = crypto.keypair()
        hello_key = crypto.precompute(self._server, cn_secret)
        if hello_key is None:
            self._fail_silently(_weak_key("the configured server"))
        self._hello_key = hello_key
        self._cn_secret = cn_secret
        short = self._next_nonce()
        box = self._seal(_ZEROS_64, NONCE_HELLO + short, self._hello_key)
        self._send(HELLO_PREFIX + self._cn_public + short + box)
        self._state = "welcome"

    def process_handshake_command(self, body: bytes) -> None:
        name, data = commands.split_command(body)
        state = self._state
        if name == commands.WELCOME and state == "welcome":
            self._on_welcome(body)
        elif name == commands.READY and state == "ready":
            self._on_ready(body)
        elif name == commands.ERROR and state in ("welcome", "ready"):
            self._state = "error"
            self._peer_error(data)
        else:
            raise _unexpected(name, "in CURVE client handshake")

    def _on_welcome(self, body: bytes) -> None:
        if len(body) != WELCOME_SIZE:
            # libzmq reports any WELCOME it cannot use as CRYPTOGRAPHIC.
            self._fail_silently(_crypto_error(f"WELCOME of {len(body)} bytes, expected 168"))
        plain = self._unseal(body[24:], NONCE_WELCOME + body[8:24], self._hello_key)
        self._hello_key = b""
        if plain is None:
            self._fail_silently(_crypto_error("cannot open WELCOME (wrong server key?)"))
        self._cn_server = plain[:32]
        self._cookie = plain[32:128]
        shared = self._crypto.precompute(self._cn_server, self._cn_secret)
        if shared is None:
            self._fail_silently(_weak_key("the server's short-term"))
        self._shared = shared
        self._send_initiate()
        self._state = "ready"

    def _send_initiate(self) -> None:
        crypto = self._crypto
        vouch_nonce = crypto.random(16)
        vouch = crypto.box(
            self._cn_public + self._server, NONCE_VOUCH + vouch_nonce, self._cn_server, self._secret
        )
        if vouch is None:
            self._fail_silently(_weak_key("the server's short-term"))
        short = self._next_nonce()
        plain = self._public + vouch_nonce + vouch + self._ready_properties()
        box = self._seal(plain, NONCE_INITIATE + short, self._shared)
        self._send(INITIATE_PREFIX + self._cookie + short + box)
        # The long-term secret and c' are not needed again (the shared key is).
        self._secret = self._cn_secret = self._cookie = b""

    def _on_ready(self, body: bytes) -> None:
        if len(body) < READY_MIN_SIZE:
            self._fail_silently(
                ProtocolError(
                    f"CURVE READY of {len(body)} bytes", code=ZMTP_MALFORMED_COMMAND_READY
                )
            )
        short = body[6:14]
        nonce = self._check_peer_nonce(short)
        plain = self._unseal(body[14:], NONCE_READY + short, self._shared)
        if plain is None:
            self._fail_silently(_crypto_error("cannot open READY"))
        self._peer_nonce = nonce
        self._accept_properties(plain)
        self._state = "connected"
        self._set_status(MechanismStatus.READY)


class CurveServer(_CurveBase):
    """CURVE server: proves its key pair; authenticates clients through ZAP.

    With a `ZapConfig`, the client's long-term public key goes to the ZAP
    handler after INITIATE and READY waits for its verdict. Without one
    (the socket layer decides: no handler bound and ZAP_ENFORCE_DOMAIN off)
    any client that completes the handshake is accepted - libzmq's
    behaviour, the guide's "stonehouse" without authentication.

    Four X25519 operations per handshake, like the client: HELLO and
    WELCOME share one key (C', S), INITIATE/READY/MESSAGE another (C', S'),
    plus the key pair and the vouch.
    """

    def __init__(
        self,
        *,
        crypto: CurveCrypto,
        secret_key: bytes,
        public_key: bytes = b"",
        identity: bytes | None = None,
        properties: Mapping[str, bytes] | None = None,
        zap: ZapConfig | None = None,
    ) -> None:
        """`public_key` is derived from `secret_key` when not given; a factory
        making many connections derives it once. (libzmq's CURVE_PUBLICKEY
        option plays no part on the server: the vouch is checked against the
        key the secret key really belongs to.)"""
        super().__init__(
            crypto=crypto, as_server=True, identity=identity, properties=properties, zap=zap
        )
        self._secret = _check_key("CURVE_SECRETKEY", secret_key)
        self._public = public_key or crypto.public_key(self._secret)
        self._cn_client = b""
        self._cn_public = b""
        self._cookie_key = b""
        #: The client's long-term public key once INITIATE checked out.
        self.client_key = b""
        self._state = "hello"

    def start(self, peer: PeerGreeting) -> None:
        self.peer = peer

    def wants_input(self) -> bool:
        return self._state != "zap"

    def process_handshake_command(self, body: bytes) -> None:
        name, _ = commands.split_command(body)
        state = self._state
        if name == commands.HELLO and state == "hello":
            self._on_hello(body)
        elif name == commands.INITIATE and state == "initiate":
            self._on_initiate(body)
        else:
            raise _unexpected(name, "in CURVE server handshake")

    def _on_hello(self, body: bytes) -> None:
        if len(body) != HELLO_SIZE:
            self._fail_silently(
                ProtocolError(
                    f"CURVE HELLO of {len(body)} bytes, expected 200",
                    code=ZMTP_MALFORMED_COMMAND_HELLO,
                )
            )
        if body[6:8] != b"\x01\x00":
            self._fail_silently(
                ProtocolError(
                    f"CURVE HELLO version {body[6]}.{body[7]}, expected 1.0",
                    code=ZMTP_MALFORMED_COMMAND_HELLO,
                )
            )
        cn_client = body[80:112]
        short = body[112:120]
        nonce = self._check_peer_nonce(short)
        hello_key = self._crypto.precompute(cn_client, self._secret)
        if hello_key is None:
            # libzmq: crypto_box_open fails, HANDSHAKE_FAILED_PROTOCOL with
            # ZMTP_CRYPTOGRAPHIC and no ERROR to the client.
            self._fail_silently(_weak_key("the client's short-term"))
        plain = self._unseal(body[120:200], NONCE_HELLO + short, hello_key)
        if plain is None or not hmac.compare_digest(plain, _ZEROS_64):
            self._fail_silently(_crypto_error("cannot open HELLO (wrong server key?)"))
        self._peer_nonce = nonce
        self._cn_client = cn_client
        self._send_welcome(hello_key)
        self._state = "initiate"

    def _send_welcome(self, hello_key: bytes) -> None:
        crypto = self._crypto
        self._cn_public, self._cn_secret = crypto.keypair()
        self._cookie_key = crypto.random(32)
        cookie_nonce = crypto.random(16)
        cookie = cookie_nonce + crypto.secretbox(
            self._cn_client + self._cn_secret, NONCE_COOKIE + cookie_nonce, self._cookie_key
        )
        welcome_nonce = crypto.random(16)
        box = self._seal(self._cn_public + cookie, NONCE_WELCOME + welcome_nonce, hello_key)
        self._send(WELCOME_PREFIX + welcome_nonce + box)

    def _on_initiate(self, body: bytes) -> None:
        if len(body) < INITIATE_MIN_SIZE:
            self._fail_silently(
                ProtocolError(
                    f"CURVE INITIATE of {len(body)} bytes", code=ZMTP_MALFORMED_COMMAND_INITIATE
                )
            )
        crypto = self._crypto
        cookie = crypto.secretbox_open(body[25:105], NONCE_COOKIE + body[9:25], self._cookie_key)
        self._cookie_key = b""  # RFC 26: forget the cookie key after INITIATE
        if cookie is None or not hmac.compare_digest(cookie, self._cn_client + self._cn_secret):
            self._fail_silently(_crypto_error("INITIATE cookie is not ours"))
        short = body[105:113]
        nonce = self._check_peer_nonce(short)
        shared = crypto.precompute(self._cn_client, self._cn_secret)
        if shared is None:  # C' passed HELLO's key agreement: cannot happen
            self._fail_silently(_weak_key("the client's short-term"))
        plain = self._unseal(body[113:], NONCE_INITIATE + short, shared)
        if plain is None:
            self._fail_silently(_crypto_error("cannot open INITIATE"))
        self._peer_nonce = nonce
        client_key = plain[:32]
        vouch = crypto.box_open(
            plain[48:128], NONCE_VOUCH + plain[32:48], client_key, self._cn_secret
        )
        if vouch is None:
            self._fail_silently(_crypto_error("cannot open the INITIATE vouch"))
        if not (
            hmac.compare_digest(vouch[:32], self._cn_client)
            and hmac.compare_digest(vouch[32:64], self._public)
        ):
            self._fail_silently(
                ProtocolError("CURVE vouch does not match the handshake", code=ZMTP_KEY_EXCHANGE)
            )
        self._shared = shared
        self._cn_secret = b""
        self.client_key = client_key
        self._accept_properties(plain[128:])
        if self.zap is not None:
            self._request_zap((client_key,))
            self._state = "zap"
        else:
            self._send_ready()

    def _send_ready(self) -> None:
        short = self._next_nonce()
        box = self._seal(self._ready_properties(), NONCE_READY + short, self._shared)
        self._send(READY_PREFIX + short + box)
        self._state = "connected"
        self._set_status(MechanismStatus.READY)

    def zap_reply(self, frames: Sequence[bytes]) -> None:
        if self._state != "zap":
            super().zap_reply(frames)
        reply = self._take_zap_reply(frames)
        if reply.status_code != 200:
            self._state = "error"
            self._zap_refused(reply)
        self._send_ready()
