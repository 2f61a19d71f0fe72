"""The socket option table: every option number as libzmq 4.3.5 treats it.

One row per option (src/options.cpp and each socket type's xsetsockopt),
seen through pyzmq's ``Socket.set`` / ``Socket.get``: the value type, the
default a fresh socket reports, whether it can be set and read and on which
socket types, libzmq's checks, and for pattern options the lower-case name
under which the socket layer forwards them to the pattern. Also the rules
by which setting an option chooses the security mechanism.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from purezmq.constants import SecurityMechanism
from purezmq.constants import SocketOption as O
from purezmq.constants import SocketType as T

from .option_specs import (
    Kind,
    OptionSpec,
    Storage,
    Validator,
    _accept_filter,
    _any_switch,
    _at_least,
    _between,
    _curve_key,
    _flag,
    _heartbeat_ttl,
    _length,
    _metadata,
    _one_of,
    _strict_switch,
    _switch,
    _truthy,
)

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
    # -- multicast (read by pgm/epgm endpoints, see _io/pgm.py; MULTICAST_LOOP
    #    is stored only: libzmq turns the loop off for PGM whatever it says)
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
    _pattern(O.XPUB_NODROP, _PUBLISHERS | {T.RADIO}, _switch),  # RADIO: radio.cpp
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
