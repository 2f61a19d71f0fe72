"""ZMTP command bodies: ``name-len(1) name data`` (RFC 37 "Commands").

These functions build and take apart the *body* of a command frame; the
frame header (flags 0x04/0x06 and size) is `frames.command_frame`'s job.
Bodies are small and rare next to data traffic, so clarity wins here.
"""

from __future__ import annotations

import struct
from typing import Final

from .errors import (
    ZMTP_MALFORMED_COMMAND_ERROR,
    ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
    ProtocolError,
)

READY: Final = b"READY"
ERROR: Final = b"ERROR"
SUBSCRIBE: Final = b"SUBSCRIBE"
CANCEL: Final = b"CANCEL"
PING: Final = b"PING"
PONG: Final = b"PONG"
HELLO: Final = b"HELLO"
WELCOME: Final = b"WELCOME"
INITIATE: Final = b"INITIATE"
MESSAGE: Final = b"MESSAGE"
JOIN: Final = b"JOIN"
LEAVE: Final = b"LEAVE"

#: Longest PING context a PONG echoes (RFC 37; libzmq truncates longer ones).
MAX_PING_CONTEXT: Final = 16
#: Largest TTL a PING can carry, in deciseconds (16-bit field).
MAX_PING_TTL: Final = 0xFFFF

_U16: Final = struct.Struct(">H")
_PING_PREFIX: Final = b"\x04PING"
_PONG_PREFIX: Final = b"\x04PONG"
_SUBSCRIBE_PREFIX: Final = b"\x09SUBSCRIBE"
_CANCEL_PREFIX: Final = b"\x06CANCEL"


def command(name: bytes, data: bytes = b"") -> bytes:
    """A command body: name-len, name, data."""
    if not 0 < len(name) <= 255:
        raise ValueError(f"command name must be 1..255 bytes: {name!r}")
    return bytes((len(name),)) + name + data


def split_command(body: bytes) -> tuple[bytes, bytes]:
    """(name, data) of a command body; ProtocolError when name-len overruns.

    An empty body or a name longer than the body is malformed
    (libzmq ``check_basic_command_structure``: MALFORMED_COMMAND_UNSPECIFIED).
    """
    if not body:
        raise ProtocolError("empty command", code=ZMTP_MALFORMED_COMMAND_UNSPECIFIED)
    end = 1 + body[0]
    if end > len(body):
        raise ProtocolError(
            f"command name length {body[0]} exceeds command body of {len(body)} bytes",
            code=ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
        )
    return body[1:end], body[end:]


def ready(metadata: bytes) -> bytes:
    """READY with an already encoded property list."""
    return b"\x05READY" + metadata


def error(reason: bytes) -> bytes:
    """ERROR: reason-len(1) reason; reasons longer than 255 bytes are cut."""
    reason = reason[:255]
    return b"\x05ERROR" + bytes((len(reason),)) + reason


def parse_error(data: bytes) -> bytes:
    """The reason of an ERROR command's data (after the name)."""
    if not data or data[0] > len(data) - 1:
        raise ProtocolError("malformed ERROR command", code=ZMTP_MALFORMED_COMMAND_ERROR)
    return data[1 : 1 + data[0]]


def subscribe(topic: bytes) -> bytes:
    """SUBSCRIBE topic (ZMTP 3.1)."""
    return _SUBSCRIBE_PREFIX + topic


def cancel(topic: bytes) -> bytes:
    """CANCEL topic (ZMTP 3.1)."""
    return _CANCEL_PREFIX + topic


def ping(ttl_deciseconds: int, context: bytes = b"") -> bytes:
    """PING ttl(2, network order, deciseconds) context(0..16)."""
    ttl = max(0, min(MAX_PING_TTL, ttl_deciseconds))
    return _PING_PREFIX + _U16.pack(ttl) + context[:MAX_PING_CONTEXT]


def parse_ping(data: bytes) -> tuple[int, bytes]:
    """(ttl in deciseconds, context) of a PING's data.

    A PING without its 2-byte TTL is malformed (libzmq would read past the
    message there). An over-long context is accepted and truncated to 16
    bytes, as libzmq does for its PONG.
    """
    if len(data) < 2:
        raise ProtocolError("PING command without TTL", code=ZMTP_MALFORMED_COMMAND_UNSPECIFIED)
    return _U16.unpack_from(data)[0], data[2 : 2 + MAX_PING_CONTEXT]


def pong(context: bytes) -> bytes:
    """PONG echoing a PING's context (at most 16 bytes)."""
    return _PONG_PREFIX + context[:MAX_PING_CONTEXT]
