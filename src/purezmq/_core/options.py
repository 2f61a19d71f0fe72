"""Socket and context options: what exists, its type, default and checks.

One table describes every socket option the way libzmq 4.3.5 (stable
build) treats it, seen through pyzmq's ``Socket.set`` / ``Socket.get``:

- the value type pyzmq converts to (C int, int64, bytes) and therefore the
  ``TypeError`` / ``OverflowError`` a wrong Python value gets;
- the default a fresh socket reports;
- whether it can be set and read (EINVAL otherwise), and on which socket
  types (pattern options such as ROUTER_MANDATORY);
- the range checks libzmq applies (EINVAL, with a message naming the range);
- for pattern options, the lower-case name under which the socket layer
  forwards them to the pattern (``"router_mandatory"``), so ``_routing``
  needs no option numbers.

`SocketOptions` is one socket's store built on that table; `ContextOptions`
does the same for ``zmq_ctx_set`` / ``zmq_ctx_get``. Both raise what pyzmq
raises for the same misuse; ``tests/unit/api`` checks that against the real
libzmq through pyzmq, value by value.

Options that need libzmq features purezmq does not have (GSSAPI, VMCI,
NORM, WebSocket TLS, draft options) are described too, but are rejected
with EINVAL unless their feature is enabled, which is exactly what a libzmq
built without them does.
"""

from __future__ import annotations

import enum
import ipaddress
import socket
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from purezmq.constants import ContextOption as C
from purezmq.constants import Errno, SecurityMechanism
from purezmq.constants import SocketOption as O
from purezmq.constants import SocketType as T
from purezmq.error import ZMQError, strerror

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
    ipv6 = bool(opts.value(O.IPV6))
    flags = socket.AI_NUMERICHOST | (getattr(socket, "AI_V4MAPPED", 0) if ipv6 else 0)
    family = socket.AF_INET6 if ipv6 else socket.AF_INET
    try:
        info = socket.getaddrinfo(address, None, family, socket.SOCK_STREAM, 0, flags)
        resolved = ipaddress.ip_address(str(info[0][4][0]).partition("%")[0])
    except (OSError, ValueError, UnicodeError):
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


# ---------------------------------------------------------------------------
# The socket option table (libzmq 4.3.5, src/options.cpp and the patterns)
# ---------------------------------------------------------------------------

_ROUTERS = frozenset({T.ROUTER, T.REP})  # REP is a ROUTER inside libzmq
_PUBLISHERS = frozenset({T.PUB, T.XPUB})  # PUB is an XPUB inside libzmq


def _spec(
    option: O,
    kind: Kind = Kind.INT,
    default: object = 0,
    *,
    settable: bool = True,
    gettable: bool = True,
    validate: Validator | None = None,
    **extra: Any,
) -> OptionSpec:
    return OptionSpec(
        int(option), option.name, kind, default, settable, gettable, validate, **extra
    )


def _pattern(option: O, types: Iterable[int], validate: Validator, **extra: Any) -> OptionSpec:
    """A write-only option the pattern of `types` handles (libzmq's
    xsetsockopt), forwarded to it by its lower-case name."""
    extra.setdefault("default", False)
    return _spec(
        option,
        extra.pop("kind", Kind.INT),
        extra.pop("default"),
        gettable=extra.pop("gettable", False),
        validate=validate,
        socket_types=frozenset(types),
        pattern_name=option.name.lower(),
        **extra,
    )


def _readonly(option: O, kind: Kind, default: object, **extra: Any) -> OptionSpec:
    return _spec(option, kind, default, settable=False, **extra)


def _refused(option: O, hint: str, **extra: Any) -> OptionSpec:
    """A number pyzmq knows but a libzmq 4.3 socket never accepts."""
    return _spec(option, default=None, settable=False, gettable=False, hint=hint, **extra)


# Features an option needs, and short names that keep the table one row per option.
_DRAFT = frozenset({"draft"})
_CURVE = frozenset({"curve"})
_GSSAPI = frozenset({"gssapi"})
_VMCI = frozenset({"vmci"})
_WSS = frozenset({"draft", "wss"})
_NORM = frozenset({"draft", "norm"})
_STRING, _BINARY, _INT64 = Kind.STRING, Kind.BINARY, Kind.INT64
_EFFECTIVE_CONFLATE = frozenset({T.DEALER, T.PULL, T.PUSH, T.PUB, T.SUB})
_EFFECTIVE_INVERT = frozenset({T.PUB, T.XPUB, T.SUB, T.XSUB})
_TOPIC_TYPES = frozenset({T.PUB, T.SUB, T.XPUB, T.XSUB})

# fmt: off
_SPECS: tuple[OptionSpec, ...] = (
    # -- queues, buffers, timeouts
    _spec(O.SNDHWM, default=1000, validate=_at_least(0)),
    _spec(O.RCVHWM, default=1000, validate=_at_least(0)),
    _spec(O.AFFINITY, _INT64),
    _spec(O.SNDBUF, default=-1, validate=_at_least(-1)),
    _spec(O.RCVBUF, default=-1, validate=_at_least(-1)),
    _spec(O.LINGER, default=-1, validate=_at_least(-1), type_defaults=((T.SUB, 0), (T.XSUB, 0))),
    _spec(O.RCVTIMEO, default=-1, validate=_at_least(-1)),
    _spec(O.SNDTIMEO, default=-1, validate=_at_least(-1)),
    _spec(O.MAXMSGSIZE, _INT64, default=-1),
    _spec(O.CONFLATE, validate=_flag, effective_types=_EFFECTIVE_CONFLATE),
    _spec(O.IMMEDIATE, validate=_flag),
    _spec(O.INVERT_MATCHING, validate=_truthy, effective_types=_EFFECTIVE_INVERT),
    # -- identity and connection management
    _spec(O.ROUTING_ID, _BINARY, b"", validate=_length(1, 255)),
    _spec(O.RECONNECT_IVL, default=100, validate=_at_least(-1)),
    _spec(O.RECONNECT_IVL_MAX, validate=_at_least(0)),
    _spec(O.RECONNECT_STOP),
    _spec(O.CONNECT_TIMEOUT, validate=_at_least(0)),
    _spec(O.HANDSHAKE_IVL, default=30000, validate=_at_least(0)),
    _spec(O.HEARTBEAT_IVL, validate=_at_least(0)),
    _spec(O.HEARTBEAT_TTL, validate=_heartbeat_ttl),
    _spec(O.HEARTBEAT_TIMEOUT, default=-1, validate=_at_least(0)),
    _spec(O.BACKLOG, default=100, validate=_at_least(0)),
    _spec(O.USE_FD, default=-1, validate=_at_least(-1)),
    # -- TCP and IP
    _spec(O.IPV6, validate=_flag),
    _spec(O.IPV4ONLY, default=None, validate=_flag, storage=Storage.NONE),  # inverse of IPV6
    _spec(O.TOS, validate=_at_least(0)),
    _spec(O.TCP_KEEPALIVE, default=-1, validate=_one_of(-1, 0, 1)),
    _spec(O.TCP_KEEPALIVE_CNT, default=-1, validate=_at_least(-1)),
    _spec(O.TCP_KEEPALIVE_IDLE, default=-1, validate=_at_least(-1)),
    _spec(O.TCP_KEEPALIVE_INTVL, default=-1, validate=_at_least(-1)),
    _spec(O.TCP_MAXRT, validate=_at_least(0)),
    _spec(O.BINDTODEVICE, _STRING, b"", validate=_length(1, 16)),
    _spec(O.LOOPBACK_FASTPATH, validate=_truthy),
    _spec(O.SOCKS_PROXY, _STRING, b"", validate=_length(1)),
    _spec(O.SOCKS_USERNAME, _STRING, b"", validate=_length(0, 255)),
    _spec(O.SOCKS_PASSWORD, _STRING, b"", validate=_length(0, 255)),
    _spec(O.TCP_ACCEPT_FILTER, _STRING, (), gettable=False, validate=_accept_filter,
          storage=Storage.APPEND),
    _spec(O.IPC_FILTER_PID, default=frozenset(), gettable=False, storage=Storage.ADD,
          requires=frozenset({"ipc_filter_pid"})),
    _spec(O.IPC_FILTER_UID, default=frozenset(), gettable=False, storage=Storage.ADD,
          requires=frozenset({"ipc_filter_ugid"})),
    _spec(O.IPC_FILTER_GID, default=frozenset(), gettable=False, storage=Storage.ADD,
          requires=frozenset({"ipc_filter_ugid"})),
    # -- multicast (pgm/epgm/norm transports; stored, not used by purezmq)
    _spec(O.RATE, default=100, validate=_at_least(1)),
    _spec(O.RECOVERY_IVL, default=10000, validate=_at_least(0)),
    _spec(O.MULTICAST_HOPS, default=1, validate=_at_least(1)),
    _spec(O.MULTICAST_MAXTPDU, default=1500, validate=_at_least(1)),
    _spec(O.MULTICAST_LOOP, default=1, validate=_truthy),
    # -- security (mechanisms read these when a connection starts)
    _readonly(O.MECHANISM, Kind.INT, int(SecurityMechanism.NULL)),
    _spec(O.PLAIN_SERVER, validate=_flag),
    _spec(O.PLAIN_USERNAME, _STRING, b"", validate=_length(1, 255)),
    _spec(O.PLAIN_PASSWORD, _STRING, b"", validate=_length(1, 255)),
    _spec(O.ZAP_DOMAIN, _STRING, b"", validate=_length(1, 255)),
    _spec(O.ZAP_ENFORCE_DOMAIN, validate=_truthy),
    _spec(O.CURVE_SERVER, validate=_flag, requires=_CURVE),
    # pyzmq reads bytes options into 255 bytes, which libzmq refuses for keys
    # (it wants exactly 32 or 41), so keys cannot be read back through pyzmq.
    *(_spec(key, _BINARY, bytes(32), gettable=False, validate=_curve_key(key), requires=_CURVE)
      for key in (O.CURVE_PUBLICKEY, O.CURVE_SECRETKEY, O.CURVE_SERVERKEY)),
    _spec(O.GSSAPI_SERVER, validate=_flag, requires=_GSSAPI),
    _spec(O.GSSAPI_PRINCIPAL, _STRING, b"", validate=_length(1, 255), requires=_GSSAPI),
    _spec(O.GSSAPI_SERVICE_PRINCIPAL, _STRING, b"", validate=_length(1, 255), requires=_GSSAPI),
    _spec(O.GSSAPI_PLAINTEXT, validate=_flag, requires=_GSSAPI),
    _spec(O.GSSAPI_PRINCIPAL_NAMETYPE, validate=_one_of(0, 1, 2), requires=_GSSAPI),
    _spec(O.GSSAPI_SERVICE_PRINCIPAL_NAMETYPE, validate=_one_of(0, 1, 2), requires=_GSSAPI),
    _spec(O.METADATA, _STRING, (), gettable=False, validate=_metadata, storage=Storage.MAP),
    # -- read-only state the socket reports
    _readonly(O.TYPE, Kind.INT, None),
    _readonly(O.RCVMORE, Kind.INT, 0, dynamic=True),
    _readonly(O.FD, Kind.FD, None, dynamic=True),
    _readonly(O.EVENTS, Kind.INT, 0, dynamic=True),
    _readonly(O.LAST_ENDPOINT, _STRING, b"", dynamic=True),
    _readonly(O.THREAD_SAFE, Kind.INT, 0),
    _readonly(O.TOPICS_COUNT, Kind.INT, 0, dynamic=True, get_types=_TOPIC_TYPES),
    # -- pattern options (libzmq's xsetsockopt of each socket type)
    _pattern(O.ROUTER_MANDATORY, _ROUTERS, _switch),
    _pattern(O.ROUTER_RAW, _ROUTERS, _switch),
    _pattern(O.ROUTER_HANDOVER, _ROUTERS, _switch),
    _pattern(O.PROBE_ROUTER, _ROUTERS | {T.DEALER, T.REQ}, _switch),
    _pattern(O.CONNECT_ROUTING_ID, _ROUTERS | {T.STREAM}, _length(1), kind=_BINARY, default=b""),
    _pattern(O.STREAM_NOTIFY, {T.STREAM}, _strict_switch, default=True),
    _pattern(O.REQ_CORRELATE, {T.REQ}, _switch),
    _pattern(O.REQ_RELAXED, {T.REQ}, _switch),
    _pattern(O.XPUB_VERBOSE, _PUBLISHERS, _switch),
    _pattern(O.XPUB_VERBOSER, _PUBLISHERS, _switch),
    _pattern(O.XPUB_NODROP, _PUBLISHERS, _switch),
    _pattern(O.XPUB_MANUAL, _PUBLISHERS, _switch),
    _pattern(O.XPUB_MANUAL_LAST_VALUE, _PUBLISHERS, _switch),
    _pattern(O.XPUB_WELCOME_MSG, _PUBLISHERS, _length(0), kind=_BINARY, default=b""),
    _pattern(O.ONLY_FIRST_SUBSCRIBE, _PUBLISHERS | {T.XSUB}, _switch),
    # Actions, not settings: SUB always; PUB/XPUB only in manual mode.
    *(_pattern(action, _PUBLISHERS | {T.SUB}, _length(0), kind=_BINARY, default=None,
               storage=Storage.NONE)
      for action in (O.SUBSCRIBE, O.UNSUBSCRIBE)),
    # -- numbers that are not libzmq 4 socket options
    _refused(O.HWM, "HWM was split in libzmq 3: set SNDHWM and RCVHWM"),
    _refused(O.BLOCKY, "BLOCKY is a context option: use Context.set(zmq.BLOCKY, ...)"),
    # -- transports purezmq does not have (write-only in libzmq)
    *(_spec(option, _INT64, 0, gettable=False, requires=_VMCI)
      for option in (O.VMCI_BUFFER_SIZE, O.VMCI_BUFFER_MIN_SIZE, O.VMCI_BUFFER_MAX_SIZE)),
    _spec(O.VMCI_CONNECT_TIMEOUT, default=-1, gettable=False, requires=_VMCI),
    *(_spec(option, _BINARY, b"", gettable=False, requires=_WSS)
      for option in (O.WSS_KEY_PEM, O.WSS_CERT_PEM, O.WSS_TRUST_PEM, O.WSS_HOSTNAME)),
    _spec(O.WSS_TRUST_SYSTEM, gettable=False, validate=_flag, requires=_WSS),
    _spec(O.NORM_MODE, default=1, validate=_between(0, 4), requires=_NORM),
    _spec(O.NORM_UNICAST_NACK, validate=_flag, requires=_NORM),
    _spec(O.NORM_BUFFER_SIZE, default=2048, validate=_at_least(1), requires=_NORM),
    _spec(O.NORM_SEGMENT_SIZE, default=1400, validate=_at_least(1), requires=_NORM),
    _spec(O.NORM_BLOCK_SIZE, default=16, validate=_between(1, 255), requires=_NORM),
    _spec(O.NORM_NUM_PARITY, default=4, validate=_between(0, 254), requires=_NORM),
    _spec(O.NORM_NUM_AUTOPARITY, validate=_between(0, 254), requires=_NORM),
    _spec(O.NORM_PUSH, validate=_flag, requires=_NORM),
    # -- draft API options (libzmq built with ZMQ_BUILD_DRAFT_API)
    _pattern(O.ROUTER_NOTIFY, _ROUTERS, _between(0, 3), default=0, gettable=True, requires=_DRAFT),
    _pattern(O.XSUB_VERBOSE_UNSUBSCRIBE, {T.XSUB}, _any_switch, requires=_DRAFT),
    _spec(O.IN_BATCH_SIZE, default=8192, validate=_at_least(1), requires=_DRAFT),
    _spec(O.OUT_BATCH_SIZE, default=8192, validate=_at_least(1), requires=_DRAFT),
    _spec(O.PRIORITY, validate=_at_least(0), requires=_DRAFT),
    _spec(O.BUSY_POLL, gettable=False, requires=_DRAFT),  # 4.3.5 fails to read it back
    *(_spec(option, _BINARY, b"", gettable=False, requires=_DRAFT)
      for option in (O.HELLO_MSG, O.DISCONNECT_MSG, O.HICCUP_MSG)),
)
# fmt: on

#: Every socket option number pyzmq knows, to its spec.
OPTIONS: Final[Mapping[int, OptionSpec]] = {spec.number: spec for spec in _SPECS}

#: Options whose set also changes the security mechanism (libzmq's rules).
_MECHANISM_OF: Final[Mapping[int, SecurityMechanism]] = {
    O.PLAIN_USERNAME: SecurityMechanism.PLAIN,
    O.PLAIN_PASSWORD: SecurityMechanism.PLAIN,
    O.CURVE_PUBLICKEY: SecurityMechanism.CURVE,
    O.CURVE_SECRETKEY: SecurityMechanism.CURVE,
    O.CURVE_SERVERKEY: SecurityMechanism.CURVE,
    O.GSSAPI_PRINCIPAL: SecurityMechanism.GSSAPI,
    O.GSSAPI_SERVICE_PRINCIPAL: SecurityMechanism.GSSAPI,
}
#: ..._SERVER options: (mechanism they select, whether 0 falls back to NULL).
_SERVER_OPTIONS: Final[Mapping[int, tuple[SecurityMechanism, bool]]] = {
    O.PLAIN_SERVER: (SecurityMechanism.PLAIN, True),
    O.CURVE_SERVER: (SecurityMechanism.CURVE, True),
    O.GSSAPI_SERVER: (SecurityMechanism.GSSAPI, False),
}
#: Setting these makes the socket a client of its mechanism.
_CLIENT_OPTIONS: Final = frozenset(
    {O.PLAIN_USERNAME, O.PLAIN_PASSWORD, O.CURVE_SERVERKEY, O.GSSAPI_SERVICE_PRINCIPAL}
)

# ---------------------------------------------------------------------------
# Errors shaped like pyzmq's
# ---------------------------------------------------------------------------


def _invalid(detail: str) -> ZMQError:
    """EINVAL whose message starts with libzmq's text, then says what to do."""
    return ZMQError(Errno.EINVAL, f"{strerror(Errno.EINVAL)}: {detail}")


def _type_name(socket_type: int) -> str:
    try:
        return T(socket_type).name
    except ValueError:
        return str(socket_type)


def _shown(value: object) -> str:
    """A value for an error message, long bytes cut short."""
    if isinstance(value, bytes) and len(value) > 40:
        return f"{value[:32]!r}... ({len(value)} bytes)"
    return repr(value)


def _check_int(value: object, bits: int = 32) -> int:
    """pyzmq's conversion to a C int (or int64): ints and bools only, with
    Cython's OverflowError wording (C long first, then the narrower type)."""
    if isinstance(value, str):
        raise TypeError("unicode not allowed, use setsockopt_string")
    if not isinstance(value, int):
        raise TypeError(f"expected int, got: {value!r}")
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError("Python int too large to convert to C long")
    if bits == 32 and not _INT_MIN <= value <= _INT_MAX:
        raise OverflowError("value too large to convert to int")
    return int(value)


def _check_type(kind: Kind, value: object) -> OptionValue:
    """Reject what pyzmq's Socket.set rejects before libzmq sees the value."""
    if kind in (Kind.BINARY, Kind.STRING):
        if isinstance(value, str):
            raise TypeError("unicode not allowed, use setsockopt_string")
        if not isinstance(value, bytes):
            raise TypeError(f"expected bytes, got: {value!r}")
        return value
    return _check_int(value, 64 if kind is Kind.INT64 else 32)


# ---------------------------------------------------------------------------
# One socket's options
# ---------------------------------------------------------------------------

#: Called with (pattern_name, value) after a pattern option was accepted.
Forwarder = Callable[[str, object], None]


class SocketOptions:
    """The options of one socket, validated as libzmq and pyzmq do.

    Two ways to use it from the socket layer:

    - ``set(option, value)`` does everything: checks, stores, and hands
      pattern options to `forward` as ``(pattern_name, value)``;
    - or ``validate`` first, apply the value to the pattern yourself, then
      ``store`` it.

    ``get`` answers ``Socket.get``; the socket registers `provide` callbacks
    for values only it knows (EVENTS, FD, TOPICS_COUNT) or keeps them current
    with `store` (RCVMORE, LAST_ENDPOINT). Sessions and engines read settings
    with `value`, which never raises for a known option (write-only options
    such as CONNECT_ROUTING_ID or the CURVE keys included).

    Pattern switches (ROUTER_MANDATORY...) are validated into bools; other
    int options into ints, as libzmq reports them.
    """

    __slots__ = ("_features", "_providers", "_values", "as_server", "forward", "socket_type")

    def __init__(
        self,
        socket_type: int,
        *,
        features: frozenset[str] = DEFAULT_FEATURES,
        forward: Forwarder | None = None,
    ) -> None:
        self.socket_type = int(socket_type)
        #: Receives pattern options accepted by `set` (may be assigned later).
        self.forward = forward
        #: Whether the security mechanism runs as the server side.
        self.as_server = False
        self._features = features
        self._providers: dict[int, Callable[[], OptionValue]] = {}
        # Heterogeneous by nature (ints, bytes, tuples...): the table says which.
        self._values: dict[int, Any] = {
            number: spec.default_for(self.socket_type) for number, spec in OPTIONS.items()
        }
        self._values[O.TYPE] = self.socket_type
        self._values[_XPUB_MANUAL_STATE] = False

    # ----------------------------------------------------------- public API
    def set(self, option: int, value: object) -> None:
        """``Socket.set``: validate, forward pattern options, store."""
        spec, accepted = self._accept(option, value)
        if spec.pattern_name is not None and self.forward is not None:
            self.forward(spec.pattern_name, accepted)
        self._remember(spec, accepted)

    def validate(self, option: int, value: object) -> Any:
        """Everything ``set`` checks, in pyzmq's order, without storing.

        Returns the value to store (and to give the pattern). Raises
        TypeError / OverflowError for a wrong Python value (pyzmq's
        conversion) and ZMQError(EINVAL) for what libzmq refuses.
        """
        return self._accept(option, value)[1]

    def get(self, option: int) -> OptionValue:
        """``Socket.get``: the value pyzmq would return, or what it raises."""
        spec = OPTIONS.get(option)
        if spec is None:
            raise _invalid(f"unknown socket option {option}")
        self._check_access(spec, setting=False)
        provider = self._providers.get(spec.number)
        result = provider() if provider is not None else self._read(spec)
        if spec.kind is Kind.STRING and isinstance(result, bytes) and len(result) >= 255:
            raise _invalid(f"{spec.name} is {len(result)} bytes long; pyzmq reads at most 254")
        return result

    def spec(self, option: int) -> OptionSpec | None:
        """The table entry for `option` (None if libzmq has no such option)."""
        return OPTIONS.get(option)

    def value(self, option: int) -> Any:
        """The stored value, without access checks: the 32-byte CURVE keys,
        the accept filters (a tuple of ip_network), METADATA (a tuple of
        (name, value) pairs), the IPC filters (frozensets)..."""
        return self._values[option]

    def store(self, option: int, value: object) -> None:
        """Keep an accepted (`validate`d) or socket-maintained value (RCVMORE,
        LAST_ENDPOINT, CONNECT_ROUTING_ID once used). No checks; the options
        that affect others (IPV4ONLY, the security options, XPUB_MANUAL)
        still do."""
        spec = OPTIONS.get(option)
        if spec is None:
            self._values[option] = value
        else:
            self._remember(spec, value)

    def provide(self, option: int, getter: Callable[[], OptionValue]) -> None:
        """Make `get(option)` call `getter` (EVENTS, FD, TOPICS_COUNT)."""
        self._providers[option] = getter

    @property
    def mechanism(self) -> int:
        """The security mechanism the options select (SecurityMechanism)."""
        return int(self._values[O.MECHANISM])

    # ----------------------------------------------------------- internals
    def _accept(self, option: int, value: object) -> tuple[OptionSpec, Any]:
        """The checks of `validate`, returning the spec too."""
        spec = OPTIONS.get(option)
        checked = _check_type(spec.kind if spec else Kind.INT, value)
        if spec is None:
            raise _invalid(f"unknown socket option {option}")
        self._check_access(spec, setting=True)
        try:
            accepted = spec.validate(checked, self) if spec.validate else checked
        except InvalidOption as exc:
            raise _invalid(f"{spec.name} {exc} (got {_shown(checked)})") from None
        if (
            spec.storage is Storage.NONE
            and spec.pattern_name is not None
            and self.socket_type in _PUBLISHERS
            and not self._values[_XPUB_MANUAL_STATE]
        ):
            kind = _type_name(self.socket_type)
            raise _invalid(f"{spec.name} on {kind} sockets needs XPUB_MANUAL=1 first")
        return spec, accepted

    def _check_access(self, spec: OptionSpec, *, setting: bool) -> None:
        missing = spec.requires - self._features
        if missing:
            what = "a draft option" if "draft" in missing else f"needs {', '.join(sorted(missing))}"
            raise _invalid(f"{spec.name} is {what}, which this purezmq does not support")
        allowed = spec.settable if setting else spec.gettable
        if not allowed:
            verb = "set" if setting else "read"
            raise _invalid(spec.hint or f"{spec.name} cannot be {verb}")
        types = spec.socket_types if setting else spec.get_types
        if types is not None and self.socket_type not in types:
            names = ", ".join(sorted(_type_name(t) for t in types))
            raise _invalid(
                f"{spec.name} is not valid for {_type_name(self.socket_type)} sockets "
                f"(only {names})"
            )

    def _remember(self, spec: OptionSpec, accepted: Any) -> None:
        number, values = spec.number, self._values
        if spec.storage is Storage.REPLACE:
            values[number] = accepted
        elif spec.storage is Storage.APPEND:
            values[number] = (*values[number], accepted)
        elif spec.storage is Storage.ADD:
            values[number] = values[number] | {accepted}
        elif spec.storage is Storage.MAP and all(
            name != accepted[0] for name, _ in values[number]
        ):  # libzmq's std::map::insert: the first value for a name stays
            values[number] = (*values[number], accepted)
        self._apply_side_effects(number, accepted)

    def _apply_side_effects(self, number: int, accepted: Any) -> None:
        """Options that change other options, as in libzmq."""
        values = self._values
        if number == O.IPV4ONLY:
            values[O.IPV6] = 1 - int(accepted)
        elif number in (O.XPUB_MANUAL, O.XPUB_MANUAL_LAST_VALUE):
            values[_XPUB_MANUAL_STATE] = bool(accepted)
        elif number in _SERVER_OPTIONS:
            mechanism, off_means_null = _SERVER_OPTIONS[number]
            self.as_server = bool(accepted)
            on = bool(accepted) or not off_means_null
            values[O.MECHANISM] = int(mechanism if on else SecurityMechanism.NULL)
        elif number in _MECHANISM_OF:
            values[O.MECHANISM] = int(_MECHANISM_OF[number])
            if number in _CLIENT_OPTIONS:
                self.as_server = False

    def _read(self, spec: OptionSpec) -> OptionValue:
        number = spec.number
        if number == O.IPV4ONLY:
            return 1 - int(self._values[O.IPV6])
        if number in _SERVER_OPTIONS:
            selected = self._values[O.MECHANISM] == _SERVER_OPTIONS[number][0]
            return int(self.as_server and selected)
        result: OptionValue | None = self._values[number]
        if result is None:
            raise _invalid(f"{spec.name} is not available on this socket")
        return result


#: Internal key (not an option number) for XPUB's manual mode, which both
#: XPUB_MANUAL and XPUB_MANUAL_LAST_VALUE switch.
_XPUB_MANUAL_STATE: Final = -1


# ---------------------------------------------------------------------------
# Context options (zmq_ctx_set / zmq_ctx_get, src/ctx.cpp)
# ---------------------------------------------------------------------------

#: sizeof(zmq_msg_t) in libzmq, which MSG_T_SIZE reports.
_MSG_T_SIZE = 64
#: What SOCKET_LIMIT reports with an epoll/kqueue poller (no fd limit).
_SOCKET_LIMIT = 65535
#: ZMQ_ZERO_COPY_RECV (a draft context option pyzmq has no name for).
ZERO_COPY_RECV: Final = 10
#: Context options that are socket-option numbers in libzmq.
_CTX_IPV6, _CTX_BLOCKY = int(O.IPV6), int(O.BLOCKY)


def _ctx_spec(
    number: int,
    name: str,
    default: object,
    validate: Validator | None,
    *,
    settable: bool = True,
    gettable: bool = True,
) -> OptionSpec:
    return OptionSpec(number, name, Kind.INT, default, settable, gettable, validate)


CONTEXT_OPTIONS: Final[Mapping[int, OptionSpec]] = {
    spec.number: spec
    for spec in (
        _ctx_spec(C.IO_THREADS, "IO_THREADS", 1, _at_least(0)),
        _ctx_spec(C.MAX_SOCKETS, "MAX_SOCKETS", 1023, _at_least(1)),
        # libzmq gives number 3 two meanings: reading it is SOCKET_LIMIT,
        # writing it is THREAD_PRIORITY (default -1: the OS's choice).
        _ctx_spec(C.SOCKET_LIMIT, "SOCKET_LIMIT", _SOCKET_LIMIT, _at_least(0)),
        _ctx_spec(C.THREAD_SCHED_POLICY, "THREAD_SCHED_POLICY", -1, _at_least(0)),
        _ctx_spec(C.MAX_MSGSZ, "MAX_MSGSZ", _INT_MAX, _at_least(0)),
        _ctx_spec(C.MSG_T_SIZE, "MSG_T_SIZE", _MSG_T_SIZE, None, settable=False),
        _ctx_spec(
            C.THREAD_AFFINITY_CPU_ADD, "THREAD_AFFINITY_CPU_ADD", None, _at_least(0), gettable=False
        ),
        _ctx_spec(
            C.THREAD_AFFINITY_CPU_REMOVE,
            "THREAD_AFFINITY_CPU_REMOVE",
            None,
            _at_least(0),
            gettable=False,
        ),
        _ctx_spec(C.THREAD_NAME_PREFIX, "THREAD_NAME_PREFIX", 0, None),
        _ctx_spec(ZERO_COPY_RECV, "ZERO_COPY_RECV", 1, _at_least(0)),
        _ctx_spec(_CTX_IPV6, "IPV6", 0, _at_least(0)),
        _ctx_spec(_CTX_BLOCKY, "BLOCKY", 1, _at_least(0)),
    )
}

#: Context options stored as booleans (any value >= 0, non-zero meaning on).
_CTX_SWITCHES: Final = frozenset({ZERO_COPY_RECV, _CTX_IPV6, _CTX_BLOCKY})


class ContextOptions:
    """A context's options, validated as ``zmq_ctx_set`` does.

    Thread options are accepted and kept (``thread_priority``,
    ``thread_affinity_cpus``, ``thread_name_prefix``) for an I/O thread to
    apply where the platform allows.
    """

    __slots__ = ("_values", "thread_affinity_cpus", "thread_name_prefix", "thread_priority")

    def __init__(self) -> None:
        self._values: dict[int, int] = {
            number: spec.default
            for number, spec in CONTEXT_OPTIONS.items()
            if isinstance(spec.default, int)
        }
        self.thread_priority = -1
        self.thread_affinity_cpus: frozenset[int] = frozenset()
        self.thread_name_prefix = ""

    def set(self, option: int, value: object) -> None:
        """``Context.set``: ints only, then libzmq's checks."""
        if not isinstance(value, int):
            raise TypeError(f"expected int, got: {value!r}")
        checked = _check_int(value)
        spec = CONTEXT_OPTIONS.get(option)
        if spec is None:
            raise _invalid(f"unknown context option {option}")
        if not spec.settable:
            raise _invalid(f"{spec.name} is read-only")
        try:
            stored = spec.validate(checked, self) if spec.validate else checked
        except InvalidOption as exc:
            raise _invalid(f"context option {spec.name} {exc} (got {checked})") from None
        self._store(spec.number, cast(int, stored))

    def get(self, option: int) -> int:
        """``Context.get``."""
        spec = CONTEXT_OPTIONS.get(option)
        if spec is None:
            raise _invalid(f"unknown context option {option}")
        if not spec.gettable:
            raise _invalid(f"{spec.name} cannot be read")
        return self._values[spec.number]

    def value(self, option: int) -> int:
        """The stored value without access checks (for the context itself)."""
        return self._values[option]

    def _store(self, number: int, value: int) -> None:
        if number == C.SOCKET_LIMIT:  # written, number 3 is THREAD_PRIORITY
            self.thread_priority = value
        elif number == C.THREAD_AFFINITY_CPU_ADD:
            self.thread_affinity_cpus = self.thread_affinity_cpus | {value}
        elif number == C.THREAD_AFFINITY_CPU_REMOVE:
            if value not in self.thread_affinity_cpus:
                raise _invalid(f"CPU {value} is not in the I/O thread affinity set")
            self.thread_affinity_cpus = self.thread_affinity_cpus - {value}
        elif number == C.THREAD_NAME_PREFIX:
            # libzmq keeps the decimal text and reads it back with atoi().
            self.thread_name_prefix = str(value)
            self._values[number] = value
        else:
            self._values[number] = int(value != 0) if number in _CTX_SWITCHES else value


__all__ = [
    "CONTEXT_OPTIONS",
    "DEFAULT_FEATURES",
    "FEATURES",
    "OPTIONS",
    "ZERO_COPY_RECV",
    "ContextOptions",
    "Forwarder",
    "InvalidOption",
    "Kind",
    "OptionSpec",
    "OptionValue",
    "SocketOptions",
    "Storage",
]
