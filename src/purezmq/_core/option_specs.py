"""The vocabulary of the option table, and libzmq's checks of option values.

`OptionSpec` describes one option number (see `option_table`); validators
are libzmq's range and format checks (src/options.cpp), each raising
`InvalidOption` with a message that says what is allowed - the socket layer
turns it into pyzmq's EINVAL.
"""

from __future__ import annotations

import enum
import ipaddress
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from purezmq._transport.address import numeric_address
from purezmq.constants import SocketOption as O

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------


class Kind(enum.Enum):
    """How an option's value is typed, stored and read back."""

    #: C int: Python ints from -2**31 to 2**31-1.
    INT = "int"
    #: int64: Python ints from -2**63 to 2**63-1.
    INT64 = "int64"
    #: Arbitrary bytes, read back as stored (ROUTING_ID, keys, messages).
    BINARY = "binary"
    #: Bytes libzmq keeps as a C string. pyzmq reads options into a 255-byte
    #: buffer and libzmq adds a NUL, so values of 255+ bytes cannot be read.
    STRING = "string"
    #: A file descriptor (read-only).
    FD = "fd"


class Storage(enum.Enum):
    """What setting an option does to its stored value."""

    REPLACE = "replace"  #: the new value replaces the old one
    APPEND = "append"  #: appended to a tuple (TCP_ACCEPT_FILTER)
    ADD = "add"  #: added to a frozenset (IPC_FILTER_*)
    MAP = "map"  #: (key, value) added unless the key exists (METADATA)
    NONE = "none"  #: an action, nothing is stored (SUBSCRIBE)


#: Values ``get`` returns.
OptionValue = int | bytes

#: Checks and converts a type-checked value; raises `InvalidOption`. The
#: second argument is the options store, for checks that depend on other
#: options (TCP_ACCEPT_FILTER reads IPV6, CURVE keys merge with the old key).
Validator = Callable[[Any, Any], object]

#: Features a libzmq build may lack; options needing one are EINVAL without it.
FEATURES: Final = frozenset(
    {"curve", "gssapi", "vmci", "norm", "wss", "draft", "ipc_filter_pid", "ipc_filter_ugid"}
)


def _default_features() -> frozenset[str]:
    """What purezmq offers: CURVE options (stored for the CURVE mechanism)
    and the IPC peer-credential filters where the OS reports credentials."""
    features = {"curve"}
    if sys.platform.startswith("linux"):  # SO_PEERCRED: pid, uid and gid
        features |= {"ipc_filter_pid", "ipc_filter_ugid"}
    elif sys.platform == "darwin" or "bsd" in sys.platform:  # LOCAL_PEERCRED
        features.add("ipc_filter_ugid")
    return frozenset(features)


DEFAULT_FEATURES: Final = _default_features()

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class InvalidOption(Exception):
    """A value libzmq would refuse; the message says what is allowed."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """Everything purezmq knows about one option number."""

    number: int
    name: str
    kind: Kind
    #: What a fresh socket reports (None: no value until set or provided).
    default: object
    settable: bool
    gettable: bool
    #: Range/format check and conversion; None accepts any value of `kind`.
    validate: Validator | None = None
    #: Socket types that accept ``set`` (None: all). Elsewhere: EINVAL.
    socket_types: frozenset[int] | None = None
    #: Socket types that accept ``get`` (None: all).
    get_types: frozenset[int] | None = None
    #: Forwarded to the pattern under this name after a successful set.
    pattern_name: str | None = None
    #: Libzmq features the option needs (see `FEATURES`).
    requires: frozenset[str] = frozenset()
    #: The socket supplies the value when read (RCVMORE, EVENTS...).
    dynamic: bool = False
    storage: Storage = Storage.REPLACE
    #: Socket types where the option has an effect although all accept it.
    effective_types: frozenset[int] | None = None
    #: Per-socket-type defaults overriding `default` (SUB's LINGER is 0).
    type_defaults: tuple[tuple[int, object], ...] = ()
    #: Said in the EINVAL message when the option is refused outright.
    hint: str = ""

    def default_for(self, socket_type: int) -> object:
        """The value a fresh socket of `socket_type` holds."""
        for stype, value in self.type_defaults:
            if stype == socket_type:
                return value
        return self.default


# ---------------------------------------------------------------------------
# Validators (libzmq's checks, with messages that say what is allowed)
# ---------------------------------------------------------------------------


def _at_least(low: int) -> Validator:
    def check(value: int, _opts: Any) -> int:
        if value < low:
            raise InvalidOption(f"must be >= {low}")
        return value

    return check


def _between(low: int, high: int) -> Validator:
    def check(value: int, _opts: Any) -> int:
        if not low <= value <= high:
            raise InvalidOption(f"must be between {low} and {high}")
        return value

    return check


def _one_of(*allowed: int) -> Validator:
    def check(value: int, _opts: Any) -> int:
        if value not in allowed:
            raise InvalidOption("must be " + " or ".join(map(str, allowed)))
        return value

    return check


def _flag(value: int, _opts: Any) -> int:
    """libzmq's "strict" booleans: exactly 0 or 1."""
    if value not in (0, 1):
        raise InvalidOption("must be 0 or 1")
    return value


def _truthy(value: int, _opts: Any) -> int:
    """libzmq's "relaxed" booleans: any int, non-zero meaning on."""
    return int(value != 0)


def _switch(value: int, _opts: Any) -> bool:
    """Pattern switches: any int >= 0, non-zero meaning on."""
    if value < 0:
        raise InvalidOption("must be >= 0 (0 = off, 1 = on)")
    return value != 0


def _strict_switch(value: int, opts: Any) -> bool:
    """A pattern switch that must be exactly 0 or 1 (STREAM_NOTIFY)."""
    return bool(_flag(value, opts))


def _any_switch(value: int, _opts: Any) -> bool:
    """A pattern switch where any non-zero int means on."""
    return value != 0


def _length(low: int, high: int | None = None) -> Validator:
    def check(value: bytes, _opts: Any) -> bytes:
        if len(value) < low or (high is not None and len(value) > high):
            span = f"at least {low}" if high is None else f"{low} to {high}"
            raise InvalidOption(f"must be {span} bytes long")
        return value

    return check


def _heartbeat_ttl(value: int, _opts: Any) -> int:
    """libzmq keeps the TTL in deciseconds (16 bits): it truncates the
    milliseconds like C division and reports the truncated value back."""
    deciseconds = abs(value) // 100 * (1 if value >= 0 else -1)
    if not 0 <= deciseconds <= 0xFFFF:
        raise InvalidOption("must be between 0 and 6553599 milliseconds")
    return deciseconds * 100


_Z85_ALPHABET = (
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
)
_Z85_VALUES = {char: index for index, char in enumerate(_Z85_ALPHABET)}


def _z85_decode(text: bytes) -> bytes | None:
    """Z85 text to bytes, or None if it is not valid Z85 (libzmq's rules)."""
    if len(text) < 5 or len(text) % 5:
        return None
    out = bytearray()
    for start in range(0, len(text), 5):
        value = 0
        for char in text[start : start + 5]:
            digit = _Z85_VALUES.get(char)
            if digit is None:
                return None
            value = value * 85 + digit
        if value > 0xFFFFFFFF:
            return None
        out += value.to_bytes(4, "big")
    return bytes(out)


def _curve_key(number: int) -> Validator:
    """CURVE keys: 32 raw bytes, or Z85 text of 40 characters (optionally
    NUL-terminated). libzmq decodes the text as a C string into the key
    buffer, so a short valid text overwrites only the key's first bytes."""

    def check(value: bytes, opts: Any) -> bytes:
        if len(value) == 32:
            return value
        if len(value) in (40, 41):
            decoded = _z85_decode(value.split(b"\0", 1)[0])
            if decoded is not None:
                old: bytes = opts.value(number)
                return decoded + old[len(decoded) :]
        raise InvalidOption("must be a 32-byte key or its 40-character Z85 text")

    return check


def _strtol(text: str) -> int:
    """C's strtol(text, NULL, 10): leading digits, 0 if there are none."""
    text = text.lstrip()
    sign = -1 if text[:1] == "-" else 1
    text = text[1:] if text[:1] in "+-" else text
    digits = ""
    for char in text:
        if not char.isascii() or not char.isdigit():
            break
        digits += char
    return sign * int(digits) if digits else 0


def _accept_filter(value: bytes, opts: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """TCP_ACCEPT_FILTER: a numeric IPv4 address (IPv6 too once IPV6=1) with
    an optional /mask, resolved as libzmq does (getaddrinfo, numeric only)."""
    reason = "must be a numeric IP address with an optional /mask, e.g. b'10.0.0.0/8'"
    text = value.split(b"\0", 1)[0].decode("latin-1")  # libzmq reads a C string
    address, slash, mask = text.rpartition("/") if "/" in text else (text, "", "")
    if not text or (slash and not mask):
        raise InvalidOption(reason)
    if len(address) >= 2 and address[0] == "[" and address[-1] == "]":
        address = address[1:-1]
    address = address.partition("%")[0]
    try:
        resolved = numeric_address(address, ipv6=bool(opts.value(O.IPV6)))
    except ValueError:
        raise InvalidOption(reason) from None
    full = resolved.max_prefixlen
    bits = full if not mask else (0 if mask == "0" else _strtol(mask))
    if mask and mask != "0" and not 1 <= bits <= full:
        raise InvalidOption(f"mask must be between 0 and {full}")
    return ipaddress.ip_network((resolved, bits), strict=False)


def _metadata(value: bytes, _opts: Any) -> tuple[bytes, bytes]:
    """METADATA: b"X-Name:value", sent to peers in the handshake."""
    reason = 'must look like b"X-Name:value" (name up to 255 bytes)'
    # libzmq mistakes a 4-byte value for an int and refuses it.
    if len(value) in (0, 4):
        raise InvalidOption(reason)
    key, colon, data = value.partition(b":")
    if not colon or not key or not data or not key.startswith(b"X-") or len(key) > 255:
        raise InvalidOption(reason)
    return key, data

