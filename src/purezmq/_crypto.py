"""The one module that imports PyNaCl (libsodium): CURVE's primitives.

CURVE is optional: ``pip install 'purezmq[curve]'`` brings PyNaCl. Without
it everything else works; `require()` (called when a socket would use
CURVE, and by `curve_keypair` / `curve_public`) raises a ZMQError that names
the extra to install.

`NaclCrypto` adapts PyNaCl's bindings to the `CurveCrypto` protocol of the
sans-I/O CURVE mechanism (``_zmtp/mechanisms/curve.py``), which therefore
imports no third-party code. Nothing here implements a primitive.

The per-message pair (``box_afternm`` / ``box_open_afternm``: one call per
frame) calls libsodium's ``crypto_box_easy_afternm`` and
``crypto_box_open_easy_afternm`` through PyNaCl's cffi module directly when
it is there: PyNaCl's Python wrappers around them cost several times more
than the encryption of a small message itself. Lengths are checked here
exactly as the wrappers check them; without that module the public
bindings are used.
"""

from __future__ import annotations

import errno
import functools
import importlib
from collections.abc import Callable
from typing import Any

from purezmq.error import ZMQError

Seal = Callable[[bytes, bytes, bytes], bytes]
Unseal = Callable[[bytes, bytes, bytes], bytes | None]

#: What to tell people who ask for CURVE without PyNaCl.
INSTALL_HINT = (
    "CURVE security needs PyNaCl (libsodium), which is not installed: pip install 'purezmq[curve]'"
)


@functools.cache
def _bindings() -> Any:
    """PyNaCl's low-level bindings, or None when PyNaCl cannot be imported."""
    try:
        import nacl.bindings
    except ImportError:
        return None
    return nacl.bindings


def available() -> bool:
    """True when CURVE can be used (PyNaCl imports)."""
    return _bindings() is not None


def require() -> NaclCrypto:
    """The crypto provider, or ZMQError(ENOTSUP) saying which extra to install."""
    if _bindings() is None:
        raise ZMQError(errno.ENOTSUP, INSTALL_HINT)
    return _provider()


@functools.cache
def _provider() -> NaclCrypto:
    return NaclCrypto(_bindings())


class NaclCrypto:
    """`CurveCrypto` on PyNaCl's bindings (libsodium's crypto_box & co)."""

    def __init__(self, bindings: Any) -> None:
        from nacl.exceptions import CryptoError

        b = bindings
        self._error: type[Exception] = CryptoError
        self._box = b.crypto_box
        self._box_open = b.crypto_box_open
        self._beforenm = b.crypto_box_beforenm
        # The "easy" forms skip a padding copy; PyNaCl < 1.5 lacks them, and
        # the classic forms produce the same bytes (MAC + ciphertext).
        self._afternm = getattr(b, "crypto_box_easy_afternm", b.crypto_box_afternm)
        self._open_afternm = getattr(b, "crypto_box_open_easy_afternm", b.crypto_box_open_afternm)
        self._secretbox = getattr(b, "crypto_secretbox_easy", b.crypto_secretbox)
        self._secretbox_open = getattr(b, "crypto_secretbox_open_easy", b.crypto_secretbox_open)
        self._keypair = b.crypto_box_keypair
        self._scalarmult_base = b.crypto_scalarmult_base
        self._random = b.randombytes
        #: The per-message pair (attributes, so callers bind them once).
        self.box_afternm: Seal
        self.box_open_afternm: Unseal
        fast = _fast_box()
        if fast is not None:
            self.box_afternm, self.box_open_afternm = fast
        else:  # pragma: no cover - PyNaCl without its cffi module
            self.box_afternm, self.box_open_afternm = self._seal_slow, self._unseal_slow

    def __repr__(self) -> str:
        return "<NaclCrypto (libsodium via PyNaCl)>"

    def keypair(self) -> tuple[bytes, bytes]:
        public, secret = self._keypair()
        return bytes(public), bytes(secret)

    def public_key(self, secret: bytes) -> bytes:
        return bytes(self._scalarmult_base(secret))

    def random(self, size: int) -> bytes:
        return bytes(self._random(size))

    def box(self, message: bytes, nonce: bytes, public: bytes, secret: bytes) -> bytes | None:
        """None when libsodium refuses `public` (a low-order key)."""
        try:
            return bytes(self._box(message, nonce, public, secret))
        except self._error:
            return None

    def box_open(self, box: bytes, nonce: bytes, public: bytes, secret: bytes) -> bytes | None:
        try:
            return bytes(self._box_open(box, nonce, public, secret))
        except self._error:
            return None

    def precompute(self, public: bytes, secret: bytes) -> bytes | None:
        """None when libsodium refuses `public` (a low-order key: the shared
        secret would be known to anyone). PyNaCl raises its RuntimeError, a
        CryptoError, for it; a peer chooses the key, so it must not escape."""
        try:
            return bytes(self._beforenm(public, secret))
        except self._error:
            return None

    def _seal_slow(self, message: bytes, nonce: bytes, key: bytes) -> bytes:
        return bytes(self._afternm(message, nonce, key))

    def _unseal_slow(self, box: bytes, nonce: bytes, key: bytes) -> bytes | None:
        try:
            plain: bytes = self._open_afternm(box, nonce, key)
        except self._error:
            return None
        return plain

    def secretbox(self, message: bytes, nonce: bytes, key: bytes) -> bytes:
        return bytes(self._secretbox(message, nonce, key))

    def secretbox_open(self, box: bytes, nonce: bytes, key: bytes) -> bytes | None:
        try:
            return bytes(self._secretbox_open(box, nonce, key))
        except self._error:
            return None


_NONCE = 24
_KEY = 32
_MAC = 16


def _fast_box() -> tuple[Seal, Unseal] | None:
    """libsodium's easy/afternm pair through PyNaCl's cffi module, or None."""
    try:
        sodium = importlib.import_module("nacl._sodium")
    except ImportError:  # pragma: no cover - PyNaCl without its cffi module
        return None
    ffi, lib = sodium.ffi, sodium.lib
    seal_c = getattr(lib, "crypto_box_easy_afternm", None)
    open_c = getattr(lib, "crypto_box_open_easy_afternm", None)
    if seal_c is None or open_c is None or lib.crypto_box_macbytes() != _MAC:
        return None  # pragma: no cover
    new, buffer = ffi.new, ffi.buffer

    def seal(message: bytes, nonce: bytes, key: bytes) -> bytes:
        if len(nonce) != _NONCE or len(key) != _KEY:
            raise ValueError("crypto_box: bad nonce or key length")
        size = len(message) + _MAC
        out = new("unsigned char[]", size)
        if seal_c(out, message, len(message), nonce, key) != 0:
            raise RuntimeError("crypto_box_easy_afternm failed")  # pragma: no cover
        data: bytes = buffer(out, size)[:]
        return data

    def unseal(box: bytes, nonce: bytes, key: bytes) -> bytes | None:
        if len(nonce) != _NONCE or len(key) != _KEY:
            raise ValueError("crypto_box: bad nonce or key length")
        size = len(box) - _MAC
        if size < 0:
            return None
        out = new("unsigned char[]", max(1, size))
        if open_c(out, box, len(box), nonce, key) != 0:
            return None
        data: bytes = buffer(out, size)[:]
        return data

    return seal, unseal


def curve_keypair() -> tuple[bytes, bytes]:
    """A new CURVE key pair as Z85 text: (public, secret), 40 bytes each."""
    from purezmq.utils import z85

    public, secret = require().keypair()
    return z85.encode(public), z85.encode(secret)


def curve_public(secret_key: bytes | str) -> bytes:
    """The Z85 public key of a Z85 (40-character) secret key."""
    from purezmq.utils import z85

    crypto = require()
    text = secret_key.encode("utf8") if isinstance(secret_key, str) else bytes(secret_key)
    try:
        secret = z85.decode(text)
    except ValueError:
        secret = b""
    if len(secret) != 32:
        raise ZMQError(errno.EINVAL, "curve_public needs a 40-character Z85 secret key")
    return z85.encode(crypto.public_key(secret))
