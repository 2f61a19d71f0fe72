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

from collections.abc import Callable, Mapping
from typing import Any, Final, cast

from purezmq.constants import ContextOption as C
from purezmq.constants import Errno, SecurityMechanism
from purezmq.constants import SocketOption as O
from purezmq.constants import SocketType as T
from purezmq.error import ZMQError, strerror

from .option_specs import (
    _INT64_MAX,
    _INT64_MIN,
    _INT_MAX,
    _INT_MIN,
    DEFAULT_FEATURES,
    FEATURES,
    InvalidOption,
    Kind,
    OptionSpec,
    OptionValue,
    Storage,
    Validator,
    _at_least,
)
from .option_table import _CLIENT_OPTIONS, _MECHANISM_OF, _PUBLISHERS, _SERVER_OPTIONS, OPTIONS

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


#: A fresh socket's option values, per socket type: made once (walking the
#: table's 100-odd options cost about as much as the rest of socket creation),
#: copied for each socket. Every default is immutable (ints, bytes, tuples,
#: frozensets), so the copies share nothing that can change.
_DEFAULTS: Final[dict[int, dict[int, Any]]] = {}


def _defaults(socket_type: int) -> dict[int, Any]:
    values = _DEFAULTS.get(socket_type)
    if values is None:
        values = {number: spec.default_for(socket_type) for number, spec in OPTIONS.items()}
        values[O.TYPE] = socket_type
        values[_XPUB_MANUAL_STATE] = False
        _DEFAULTS[socket_type] = values
    return values


class SocketOptions:
    """The options of one socket, validated as libzmq and pyzmq do.

    Two ways to use it from the socket layer:

    - ``set(option, value)`` does everything: checks, stores, and hands
      pattern options to `forward` as ``(pattern_name, value)``;
    - or ``validate`` first, apply the value to the pattern yourself, then
      ``store`` it.

    ``get`` answers ``Socket.get``; the socket answers through `live` for
    values read from its state (EVENTS, FD, RCVMORE, LAST_ENDPOINT,
    TOPICS_COUNT), and everything else is stored. Sessions and engines read settings
    with `value`, which never raises for a known option (write-only options
    such as CONNECT_ROUTING_ID or the CURVE keys included).

    Pattern switches (ROUTER_MANDATORY...) are validated into bools; other
    int options into ints, as libzmq reports them.
    """

    __slots__ = (
        "_features",
        "_owned",
        "_values",
        "as_server",
        "forward",
        "live",
        "socket_type",
    )

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
        #: The socket's answer for options read from its state (EVENTS, FD,
        #: RCVMORE, LAST_ENDPOINT, TOPICS_COUNT), None for the stored ones: one
        #: bound method, where a callback per option cost a closure each and
        #: about 10,000 instructions per socket made (compiled).
        self.live: Callable[[int], OptionValue | None] | None = None
        # Heterogeneous by nature (ints, bytes, tuples...): the table says which.
        # The socket type's shared defaults until the first write (`_own`).
        self._values: dict[int, Any] = _defaults(self.socket_type)
        self._owned = False

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
        live = self.live
        result = live(spec.number) if live is not None else None
        if result is None:
            result = self._read(spec)
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
            self._own()[option] = value
        else:
            self._remember(spec, value)

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

    @property
    def defaults_only(self) -> bool:
        """Nothing was ever stored: every value is the socket type's default."""
        return not self._owned

    def _own(self) -> dict[int, Any]:
        """The values, made our own copy at the first write. A socket whose
        options are never set reads its type's shared defaults: copying
        their 115 entries for every socket, then freeing them, was about
        3 us of each connect-and-close (issue 14, perf samples)."""
        if not self._owned:
            self._values = self._values.copy()
            self._owned = True
        return self._values

    def _remember(self, spec: OptionSpec, accepted: Any) -> None:
        number, values = spec.number, self._own()
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
        if number not in _WITH_SIDE_EFFECTS:
            # Most options (LINGER in every close(linger=...)) have none: one
            # set look-up, not four tests that each read an enum member
            # (a generic attribute look-up compiled).
            return
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

#: The options `_apply_side_effects` acts on.
_WITH_SIDE_EFFECTS: Final = frozenset(
    {int(O.IPV4ONLY), int(O.XPUB_MANUAL), int(O.XPUB_MANUAL_LAST_VALUE)}
    | set(_SERVER_OPTIONS)
    | set(_MECHANISM_OF)
)


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
