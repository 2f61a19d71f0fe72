"""Z85: the text encoding of binary keys (RFC 32), as `zmq.utils.z85`.

Every 4 bytes (a big-endian 32-bit number) become 5 characters of an
85-character alphabet chosen to be safe in source code, shells and
configuration files. CURVE keys are 32 bytes, so 40 characters in Z85.

    >>> encode(bytes.fromhex("864FD26FB559F75B"))
    b'HelloWorld'

Differences from pyzmq: bad input always raises ValueError (pyzmq raises
KeyError for a character outside the alphabet and struct.error for a group
above 2^32-1); libzmq refuses both too.
"""

from __future__ import annotations

import struct
from typing import Final

_RawBytes = bytes | bytearray | memoryview

#: The 85 characters, in value order (RFC 32).
Z85CHARS: Final = (
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
)
#: Character (as an int) to its value.
Z85MAP: Final[dict[int, int]] = {char: value for value, char in enumerate(Z85CHARS)}

_U32_MAX: Final = 0xFFFFFFFF
# Lookup table from a character to its value, 255 for characters outside Z85.
_DECODE: Final = bytes(Z85MAP.get(char, 255) for char in range(256))


def encode(rawbytes: _RawBytes) -> bytes:
    """Encode bytes (a multiple of 4 long) as Z85 text (bytes)."""
    raw = bytes(rawbytes)
    if len(raw) % 4:
        raise ValueError(f"length must be multiple of 4, not {len(raw)}")
    out = bytearray()
    chars = Z85CHARS
    for (value,) in struct.iter_unpack(">I", raw):
        group = bytearray(5)
        rest = value
        for index in range(4, -1, -1):
            rest, digit = divmod(rest, 85)
            group[index] = chars[digit]
        out += group
    return bytes(out)


def decode(z85bytes: str | _RawBytes) -> bytes:
    """Decode Z85 text (a multiple of 5 characters, str or bytes) to bytes."""
    if isinstance(z85bytes, str):
        try:
            text = z85bytes.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError("string argument should contain only ASCII characters") from None
    else:
        text = bytes(z85bytes)
    if len(text) % 5:
        raise ValueError(f"Z85 length must be multiple of 5, not {len(text)}")
    table = _DECODE
    values = []
    for start in range(0, len(text), 5):
        value = 0
        for char in text[start : start + 5]:
            digit = table[char]
            if digit == 255:
                raise ValueError(f"{chr(char)!r} is not a Z85 character")
            value = value * 85 + digit
        if value > _U32_MAX:
            raise ValueError(f"Z85 group {text[start : start + 5]!r} exceeds 2^32-1")
        values.append(value)
    return struct.pack(f">{len(values)}I", *values)


__all__ = ["Z85CHARS", "Z85MAP", "decode", "encode"]
