"""The greeting: which ZMTP the peer speaks, and the 64-byte ZMTP 3.x greeting.

ZMTP 3.x (RFC 37 "Version Negotiation")::

    0      0xFF            signature start
    1-8    padding         our identity's length + 1 (for ZMTP 1.0 peers)
    9      0x7F            signature end (bit 0 set = versioned peer)
    10     major = 3
    11     minor = 1       (0 for ZMTP 3.0)
    12-31  mechanism       ASCII, NUL-padded to 20 bytes
    32     as-server       0/1
    33-63  filler          zeros

We send it in three steps, as libzmq 4.3 does, so that older peers can be
detected and spoken to (RFC 37 "Detecting ZMTP 1.0 and 2.0 Peers"):

1. the 10-byte signature at once. Its padding is the 64-bit length of an
   identity frame (our routing id's length + 1), so a ZMTP 1.0 peer, which
   knows no signature, reads it as the header of our identity frame;
2. the major version once the peer's own signature arrived (a ZMTP 1.0 peer
   has none: its first byte is not 0xFF, or bit 0 of its 10th byte is 0);
3. once the peer's major version arrived: for 3.x, the rest of the 3.x
   greeting; for 2.0 (revision 1) and versioned 1.0 (revision 0), our
   socket type (`legacy.py` carries on from there).

`peer_revision` reads the peer's first bytes the way libzmq's
``zmtp_engine_t::receive_greeting`` and ``select_handshake_fun`` do: a
revision of 2 or more is ZMTP 3.x (libzmq speaks 3.1 to a 2).
"""

from __future__ import annotations

from typing import Final

from .errors import ZMTP_MECHANISM_MISMATCH, ProtocolError

GREETING_SIZE: Final = 64
#: Signature (10 bytes) plus the major version.
PREFIX_SIZE: Final = 11
MAJOR: Final = 3
MINOR: Final = 1
MECHANISM_SIZE: Final = 20

#: The signature alone: what we send before reading anything.
SIGNATURE_SIZE: Final = 10
#: Our major version, sent once the peer's signature showed a versioned peer.
MAJOR_BYTE: Final = bytes((MAJOR,))

#: `peer_revision` for a ZMTP 1.0 peer that sent no revision at all.
UNVERSIONED: Final = -1
#: Peer revisions (byte 10 of its greeting) below ZMTP 3.x.
REVISION_ZMTP10: Final = 0
REVISION_ZMTP20: Final = 1


def _make_signature(routing_id_size: int) -> bytes:
    return b"\xff" + (routing_id_size + 1).to_bytes(8, "big") + b"\x7f"


#: Every signature a routing id can ask for (ZMQ_ROUTING_ID is 0-255 bytes),
#: made once: each connection asks for its own twice (the driver's first
#: write, then the connection), and three concatenations each time were
#: about 700 instructions compiled.
_SIGNATURES: Final = tuple(_make_signature(n) for n in range(256))


def signature(routing_id_size: int) -> bytes:
    """Our 10-byte signature: 0xFF, the 64-bit length of an identity frame
    of `routing_id_size` bytes (ZMTP 1.0 counts the flags octet), 0x7F."""
    if 0 <= routing_id_size < 256:
        return _SIGNATURES[routing_id_size]
    return _make_signature(routing_id_size)


def signature_complete(head: bytes) -> bool:
    """Do these first bytes hold a whole versioned signature (so our major
    version may follow)?"""
    return len(head) >= SIGNATURE_SIZE and head[0] == 0xFF and bool(head[9] & 0x01)


def peer_revision(head: bytes) -> int | None:
    """The peer's protocol revision from its first 1..11 bytes: `UNVERSIONED`
    (ZMTP 1.0), its major version byte (0: versioned 1.0, 1: 2.0, 2 or
    more: 3.x), or None while the bytes do not tell yet."""
    if head[0] != 0xFF:
        return UNVERSIONED  # a ZMTP 1.0 short identity length (or not ZMTP)
    if len(head) < SIGNATURE_SIZE:
        return None
    if not head[9] & 0x01:
        return UNVERSIONED  # a ZMTP 1.0 long identity length, then its flags
    if len(head) < PREFIX_SIZE:
        return None
    return head[10]


def greeting_rest(mechanism: bytes, as_server: bool, minor: int = MINOR) -> bytes:
    """Bytes 11-63 of our greeting."""
    if mechanism == b"NULL" and minor == MINOR:
        return _NULL_REST_SERVER if as_server else _NULL_REST
    return _make_rest(mechanism, as_server, minor)


def _make_rest(mechanism: bytes, as_server: bool, minor: int) -> bytes:
    if len(mechanism) > MECHANISM_SIZE:
        raise ValueError(f"mechanism name too long: {mechanism!r}")
    return (
        bytes((minor,))
        + mechanism.ljust(MECHANISM_SIZE, b"\x00")
        + (b"\x01" if as_server else b"\x00")
        + b"\x00" * 31
    )


#: The rest of a NULL greeting, made once (nearly every connection's).
_NULL_REST: Final = _make_rest(b"NULL", False, MINOR)
_NULL_REST_SERVER: Final = _make_rest(b"NULL", True, MINOR)


class PeerGreeting:
    """What the peer's greeting told us.

    A plain class, not a frozen dataclass: one is made per connection, and
    a frozen dataclass's generated ``__init__`` is interpreted code (an
    ``object.__setattr__`` per field) even in the compiled build."""

    __slots__ = ("as_server", "major", "mechanism", "minor")

    def __init__(self, major: int, minor: int, mechanism: bytes, as_server: bool) -> None:
        self.major = major
        self.minor = minor
        self.mechanism = mechanism
        self.as_server = as_server

    def __repr__(self) -> str:
        return (
            f"PeerGreeting(major={self.major}, minor={self.minor}, "
            f"mechanism={self.mechanism!r}, as_server={self.as_server})"
        )

    @property
    def speaks_31(self) -> bool:
        """ZMTP 3.1 or later: SUBSCRIBE/CANCEL commands, heartbeats. (A major
        version of 2 gets 3.1 too, as in libzmq.)"""
        return self.major != MAJOR or self.minor >= 1


def parse_greeting(data: bytes, mechanism: bytes) -> PeerGreeting:
    """Validate all 64 bytes of a ZMTP 3.x greeting against our mechanism name
    (the signature and version were read by `peer_revision` already).

    The mechanism field must equal ours NUL-padded, byte for byte, as libzmq
    compares it (``memcmp`` of 20 bytes). The as-server byte is not checked
    for NULL - libzmq ignores it too - and higher versions are accepted
    (RFC 37: a peer MUST accept higher versions; we then speak 3.1 framing).
    """
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
