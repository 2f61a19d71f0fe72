"""What a session knows of its socket's options, copied when it is made.

libzmq copies a socket's options into each new session (`options_t` by
value): changing an option later affects only later connections. So does
purezmq: `session_config` snapshots the options once per connect() and per
bound endpoint, and sessions read nothing else of the socket's options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from purezmq import constants as C
from purezmq._zmtp.socktypes import sends_identity

from . import security
from .security import MechanismFactory

if TYPE_CHECKING:
    from .context_core import ContextCore
    from .options import SocketOptions

#: Socket types on which CONFLATE takes effect (libzmq ignores it elsewhere).
CONFLATE_TYPES = frozenset({"DEALER", "PULL", "PUSH", "PUB", "SUB"})
#: Socket types whose pattern waits for a connect-side pipe's identity: ROUTER
#: and REP route by it (the pipe is anonymous until then).
IDENTIFYING_TYPES = frozenset({"ROUTER", "REP"})


class SessionConfig:
    """The options a session needs, copied from the socket when it is made.

    Read-only by convention (nothing assigns to it after `__init__`). A plain
    class rather than a frozen dataclass: the dataclass's generated
    `__init__` is interpreted even in the compiled build and stores each of
    the 25 fields through `object.__setattr__` - 36k instructions, a twentieth
    of a whole connect-and-close (issue 14, `conn/*` cells); this one is
    compiled and writes native slots."""

    def __init__(
        self,
        socket_type: str,
        endpoint: str,
        connect_side: bool,
        *,
        sndhwm: int = 1000,
        rcvhwm: int = 1000,
        immediate: bool = False,
        conflate: bool = False,
        linger: float | None = None,
        routing_id: bytes = b"",
        sends_identity: bool = False,
        handshake_ivl: float = 30.0,
        heartbeat_ivl: float = 0.0,
        heartbeat_ttl: float = 0.0,
        heartbeat_timeout: float = -1.0,
        max_msg_size: int = -1,
        reconnect_ivl: float = 0.1,
        reconnect_ivl_max: float = 0.0,
        metadata: dict[str, bytes] | None = None,
        mechanism_factory: MechanismFactory | None = None,
        raw: bool = False,
        stream_notify: bool = True,
        connect_routing_id: bytes = b"",
        wants_identity: bool = False,
    ) -> None:
        self.socket_type = socket_type
        self.endpoint = endpoint
        self.connect_side = connect_side
        self.sndhwm = sndhwm
        self.rcvhwm = rcvhwm
        self.immediate = immediate
        self.conflate = conflate
        self.linger = linger  # seconds; None = forever
        self.routing_id = routing_id
        self.sends_identity = sends_identity
        self.handshake_ivl = handshake_ivl
        self.heartbeat_ivl = heartbeat_ivl
        self.heartbeat_ttl = heartbeat_ttl
        self.heartbeat_timeout = heartbeat_timeout
        self.max_msg_size = max_msg_size
        self.reconnect_ivl = reconnect_ivl
        self.reconnect_ivl_max = reconnect_ivl_max
        #: ZMQ_METADATA: application properties (X-...) sent in READY/INITIATE.
        self.metadata: dict[str, bytes] = {} if metadata is None else metadata
        #: Makes each connection's security mechanism, given the peer's address
        #: (`security.mechanism_factory`); None = NULL without ZAP.
        self.mechanism_factory = mechanism_factory
        #: STREAM sockets: raw bytes instead of ZMTP, one pipe per connection.
        self.raw = raw
        #: STREAM_NOTIFY: announce connects and disconnects with an empty message.
        self.stream_notify = stream_notify
        #: CONNECT_ROUTING_ID given for this connect(): the id the socket's ROUTER
        #: or STREAM knows this peer by (set on every pipe the session makes).
        self.connect_routing_id = connect_routing_id
        #: Tell the socket when a connect-side pipe's peer identity is known
        #: (IDENTIFYING_TYPES). Other sockets are not told: the command would
        #: wake their thread for nothing, at every connection's set-up.
        self.wants_identity = wants_identity

    def __repr__(self) -> str:
        side = "connect" if self.connect_side else "bind"
        return f"<SessionConfig {self.socket_type} {side} {self.endpoint}>"


# The option numbers as plain ints, read once: `C.X` is an attribute look-up
# on an interpreted module, and there are 16 of them per connect().
_LINGER: Final = int(C.LINGER)
_HEARTBEAT_TIMEOUT: Final = int(C.HEARTBEAT_TIMEOUT)
_SNDHWM: Final = int(C.SNDHWM)
_RCVHWM: Final = int(C.RCVHWM)
_IMMEDIATE: Final = int(C.IMMEDIATE)
_CONFLATE: Final = int(C.CONFLATE)
_ROUTING_ID: Final = int(C.ROUTING_ID)
_HANDSHAKE_IVL: Final = int(C.HANDSHAKE_IVL)
_HEARTBEAT_IVL: Final = int(C.HEARTBEAT_IVL)
_HEARTBEAT_TTL: Final = int(C.HEARTBEAT_TTL)
_MAXMSGSIZE: Final = int(C.MAXMSGSIZE)
_RECONNECT_IVL: Final = int(C.RECONNECT_IVL)
_RECONNECT_IVL_MAX: Final = int(C.RECONNECT_IVL_MAX)
_METADATA: Final = int(C.METADATA)
_STREAM_NOTIFY: Final = int(C.STREAM_NOTIFY)


def session_config(
    options: SocketOptions,
    type_name: str,
    ctx: ContextCore,
    endpoint: str,
    *,
    connect_side: bool,
    connect_routing_id: bytes = b"",
) -> SessionConfig:
    """Snapshot the options a new connection (or bound endpoint) uses."""
    # options.value(...) each time, not a bound `value = options.value`: the
    # compiled build calls the method directly, the bound one through Python.
    linger_ms: int = options.value(_LINGER)
    hb_timeout: int = options.value(_HEARTBEAT_TIMEOUT)
    metadata: tuple[tuple[bytes, bytes], ...] = options.value(_METADATA)
    return SessionConfig(
        type_name,
        endpoint,
        connect_side,
        sndhwm=options.value(_SNDHWM),
        rcvhwm=options.value(_RCVHWM),
        # A STREAM peer is a new peer on every connection (no queue across them).
        immediate=bool(options.value(_IMMEDIATE)) or type_name == "STREAM",
        conflate=bool(options.value(_CONFLATE)) and type_name in CONFLATE_TYPES,
        linger=None if linger_ms < 0 else linger_ms / 1000.0,
        routing_id=options.value(_ROUTING_ID),
        sends_identity=sends_identity(type_name),
        handshake_ivl=options.value(_HANDSHAKE_IVL) / 1000.0,
        heartbeat_ivl=options.value(_HEARTBEAT_IVL) / 1000.0,
        heartbeat_ttl=options.value(_HEARTBEAT_TTL) / 1000.0,
        heartbeat_timeout=-1.0 if hb_timeout < 0 else hb_timeout / 1000.0,
        max_msg_size=options.value(_MAXMSGSIZE),
        reconnect_ivl=options.value(_RECONNECT_IVL) / 1000.0,
        reconnect_ivl_max=options.value(_RECONNECT_IVL_MAX) / 1000.0,
        metadata={name.decode("ascii", "replace"): v for name, v in metadata},
        raw=type_name == "STREAM",
        stream_notify=bool(options.value(_STREAM_NOTIFY)),
        mechanism_factory=security.mechanism_factory(options, ctx),
        connect_routing_id=connect_routing_id,
        wants_identity=type_name in IDENTIFYING_TYPES,
    )
