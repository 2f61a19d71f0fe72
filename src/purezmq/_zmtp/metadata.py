"""ZMTP metadata: the property list in READY, INITIATE and ZAP replies.

Wire form of one property (RFC 37 ``metadata``)::

    name-len(1) name value-len(4, network order) value

Names are case-insensitive (RFC 37) but we keep them as the peer sent them
(they surface unchanged in ``zmq.Frame.get``) and only *look them up*
case-insensitively. Names travel as latin-1 so any byte survives the round
trip; libzmq does not restrict the name characters either.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Mapping
from typing import Final

from .errors import ZMTP_INVALID_METADATA, ProtocolError

PROPERTY_SOCKET_TYPE: Final = "Socket-Type"
PROPERTY_IDENTITY: Final = "Identity"
PROPERTY_RESOURCE: Final = "Resource"
PROPERTY_USER_ID: Final = "User-Id"

_U32: Final = struct.Struct(">I")
_MAX_VALUE: Final = 0x7FFFFFFF  # libzmq asserts value_len <= 0x7FFFFFFF


class Metadata(Mapping[str, bytes]):
    """Properties by name as received, looked up case-insensitively.

    A read-only mapping (``[]``, ``get``, ``in``, ``items``, ``dict(md)``, and
    ``==`` with a dict) whose look-ups fold case; `add` and ``[]=`` fill it.
    When a name repeats (in any case) the first value wins, as in libzmq's
    property map; iteration gives names as received, in order.

    Not a ``dict`` subclass: compiled callers (mypyc) treat any dict subclass
    as a plain dict and would bypass the case folding of ``get`` and ``in``.
    """

    __slots__ = ("_folded", "_values")

    def __init__(self, items: Iterable[tuple[str, bytes]] = ()) -> None:
        self._values: dict[str, bytes] = {}
        self._folded: dict[str, str] = {}
        for name, value in items:
            self.add(name, value)

    def add(self, name: str, value: bytes) -> None:
        """Store a property unless one with the same folded name exists."""
        key = name.casefold()
        if key not in self._folded:
            self._folded[key] = name
            self._values[name] = value

    # Every name in `_values` is its folded name's first spelling, so a name
    # found there as given is the answer, without folding it: the usual
    # case (ZMTP's own names as libzmq spells them). A fold is a new string.

    def __getitem__(self, name: str) -> bytes:
        value = self._values.get(name)
        if value is not None:
            return value
        return self._values[self._folded.get(name.casefold(), name)]

    def get(self, name: str, default: bytes | None = None) -> bytes | None:  # type: ignore[override]
        value = self._values.get(name)
        if value is not None:
            return value
        real = self._folded.get(name.casefold())
        return default if real is None else self._values[real]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.casefold() in self._folded

    def __setitem__(self, name: str, value: bytes) -> None:
        real = self._folded.setdefault(name.casefold(), name)
        self._values[real] = value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def pairs(self) -> list[tuple[str, bytes]]:
        """(name, value) as received, in order: what ``items()`` yields, made
        by compiled code. ``items()`` is the abc's view, interpreted (a view
        object and a generator), and every handshake copies the peer's
        properties into the pipe's metadata."""
        return list(self._values.items())

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Metadata({self._values!r})"


def encode_property(name: str, value: bytes) -> bytes:
    """One property in wire form. Raises ValueError for a programmer's bad name."""
    out = bytearray()
    _append_property(out, name, value)
    return bytes(out)


def _append_property(out: bytearray, name: str, value: bytes) -> None:
    raw = name.encode("latin-1")
    if not 0 < len(raw) <= 255:
        raise ValueError(f"metadata name must be 1..255 bytes, got {name!r}")
    if len(value) > _MAX_VALUE:
        raise ValueError("metadata value too long")
    out.append(len(raw))
    out += raw
    out += _U32.pack(len(value))
    out += value


def encode_properties(items: Iterable[tuple[str, bytes]] | Mapping[str, bytes]) -> bytes:
    """Properties in wire form, in the given order.

    One buffer appended to in a loop: every connection's READY is built here,
    and a generator joined into bytes cost the compiled build about 27k
    instructions per set-up (issue 14)."""
    out = bytearray()
    # A list (every READY) skips the abstract Mapping check: interpreted (abc).
    if isinstance(items, list):
        pairs: Iterable[tuple[str, bytes]] = items
    elif isinstance(items, Mapping):
        pairs = items.items()
    else:
        pairs = items
    for name, value in pairs:
        _append_property(out, name, value)
    return bytes(out)


def iter_properties(
    data: bytes, *, code: int = ZMTP_INVALID_METADATA
) -> Iterator[tuple[str, bytes]]:
    """Parse a property list; malformed input raises ProtocolError(`code`).

    Same acceptance as libzmq's ``mechanism_t::parse_metadata``: a property
    cut short anywhere (name, length or value) is an error; an empty name is
    tolerated.
    """
    return iter(_parse(data, code))


def parse_properties(data: bytes, *, code: int = ZMTP_INVALID_METADATA) -> Metadata:
    """A whole property list as `Metadata` (see `iter_properties`)."""
    md = Metadata()
    for name, value in _parse(data, code):
        md.add(name, value)
    return md


#: No properties: what a connection and its mechanism hold until the peer's
#: arrive (then they are replaced, never filled). Shared, so never filled: a
#: handshake made three of its own, with two dicts each, to throw away.
EMPTY: Final = Metadata()

#: Parsed property lists by their wire form. Every peer of a given socket
#: type (and identity) sends the same READY bytes, and parsing them into a
#: `Metadata` cost about 9k instructions compiled per handshake (issue 14).
#: Bounded in count and in the size of what it keeps.
_PARSED: Final[dict[bytes, Metadata]] = {}
_PARSED_MAX: Final = 256
_PARSED_MAX_BYTES: Final = 512


def parse_properties_shared(data: bytes, *, code: int = ZMTP_INVALID_METADATA) -> Metadata:
    """`parse_properties`, remembered by the wire bytes: the result may be the
    one another connection got, so it must not be filled further (a
    handshake's peer metadata is only read after the parse)."""
    md = _PARSED.get(data)
    if md is None:
        md = parse_properties(data, code=code)  # malformed: raises, nothing kept
        if len(data) <= _PARSED_MAX_BYTES:
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[data] = md
    return md


def _parse(data: bytes, code: int) -> list[tuple[str, bytes]]:
    """The properties as a list (a plain loop: no generator per READY)."""
    out: list[tuple[str, bytes]] = []
    pos = 0
    end = len(data)
    while pos < end:
        name_len = data[pos]
        pos += 1
        if pos + name_len + 4 > end:
            raise ProtocolError("metadata property truncated", code=code)
        name = data[pos : pos + name_len].decode("latin-1")
        pos += name_len
        (value_len,) = _U32.unpack_from(data, pos)
        pos += 4
        if value_len > end - pos:
            raise ProtocolError(
                f"metadata property {name!r} claims {value_len} bytes, {end - pos} left",
                code=code,
            )
        out.append((name, data[pos : pos + value_len]))
        pos += value_len
    return out
