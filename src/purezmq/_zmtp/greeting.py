"""The 64-byte ZMTP 3.x greeting (RFC 37 "Version Negotiation").

::

    0      0xFF            signature start
    1-8    padding         (ignored; ZMTP 1.0 peers read it as a length)
    9      0x7F            signature end (bit 0 set = versioned peer)
    10     major = 3
    11     minor = 1       (0 for ZMTP 3.0)
    12-31  mechanism       ASCII, NUL-padded to 20 bytes
    32     as-server       0/1
    33-63  filler          zeros

We send it in two parts as libzmq does: the first 11 bytes (signature and
major version) at once, the other 53 once the peer's first 11 bytes showed
a ZMTP 3+ peer. ZMTP 1.0/2.0 peers are refused (no downgrade), which RFC 37
also recommends against downgrade attacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .errors import ZMTP_MECHANISM_MISMATCH, ZMTP_UNSPECIFIED, ProtocolError

GREETING_SIZE: Final = 64
#: Signature (10 bytes) plus the major version.
PREFIX_SIZE: Final = 11
MAJOR: Final = 3
MINOR: Final = 1
MECHANISM_SIZE: Final = 20

GREETING_PREFIX: Final = b"\xff" + b"\x00" * 8 + b"\x7f" + bytes((MAJOR,))


def greeting_rest(mechanism: bytes, as_server: bool, minor: int = MINOR) -> bytes:
    """Bytes 11-63 of our greeting."""
    if len(mechanism) > MECHANISM_SIZE:
        raise ValueError(f"mechanism name too long: {mechanism!r}")
    return (
        bytes((minor,))
        + mechanism.ljust(MECHANISM_SIZE, b"\x00")
        + (b"\x01" if as_server else b"\x00")
        + b"\x00" * 31
    )


def check_signature(data: bytes) -> None:
    """Reject a non-ZMTP or pre-3.0 peer from the first bytes it sent.

    Called with 1..11 bytes: fails as early as the bytes allow (a non-0xFF
    first byte is an unversioned ZMTP 1.0 peer or not ZMTP at all).
    """
    if data[0] != 0xFF:
        raise ProtocolError(
            f"not a ZMTP 3 greeting (first byte {data[0]:#04x}); ZMTP 1.0 peers are not supported",
            code=ZMTP_UNSPECIFIED,
        )
    if len(data) >= 10 and not data[9] & 0x01:
        raise ProtocolError(
            "unversioned ZMTP 1.0 greeting; ZMTP 1.0/2.0 peers are not supported",
            code=ZMTP_UNSPECIFIED,
        )
    if len(data) >= 11 and data[10] < MAJOR:
        raise ProtocolError(
            f"peer speaks ZMTP major version {data[10]}; downgrade to "
            "ZMTP 1.0/2.0 is not supported (need 3.0 or later)",
            code=ZMTP_UNSPECIFIED,
        )


@dataclass(frozen=True, slots=True)
class PeerGreeting:
    """What the peer's greeting told us."""

    major: int
    minor: int
    mechanism: bytes
    as_server: bool

    @property
    def speaks_31(self) -> bool:
        """ZMTP 3.1 or later: SUBSCRIBE/CANCEL commands, heartbeats."""
        return self.major > 3 or self.minor >= 1


def parse_greeting(data: bytes, mechanism: bytes) -> PeerGreeting:
    """Validate all 64 bytes against our mechanism name.

    The mechanism field must equal ours NUL-padded, byte for byte, as libzmq
    compares it (``memcmp`` of 20 bytes). The as-server byte is not checked
    for NULL - libzmq ignores it too - and higher versions are accepted
    (RFC 37: a peer MUST accept higher versions; we then speak 3.1 framing).
    """
    check_signature(data)
    field = data[12:32]
    if field != mechanism.ljust(MECHANISM_SIZE, b"\x00"):
        theirs = field.rstrip(b"\x00").decode("ascii", "replace")
        raise ProtocolError(
            f"security mechanism mismatch: we use {mechanism.decode()}, peer uses {theirs!r}",
            code=ZMTP_MECHANISM_MISMATCH,
        )
    return PeerGreeting(
        major=data[10], minor=data[11], mechanism=field.rstrip(b"\x00"), as_server=bool(data[32])
    )
