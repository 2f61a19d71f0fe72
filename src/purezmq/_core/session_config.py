"""What a session knows of its socket's options, copied when it is made.

libzmq copies a socket's options into each new session (`options_t` by
value): changing an option later affects only later connections. So does
purezmq: `session_config` snapshots the options once per connect() and per
bound endpoint, and sessions read nothing else of the socket's options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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


@dataclass(frozen=True)
class SessionConfig:
    """The options a session needs, copied from the socket when it is made."""

    socket_type: str
    endpoint: str
    connect_side: bool
    sndhwm: int = 1000
    rcvhwm: int = 1000
    immediate: bool = False
    conflate: bool = False
    linger: float | None = None  # seconds; None = forever
    routing_id: bytes = b""
    sends_identity: bool = False
    handshake_ivl: float = 30.0
    heartbeat_ivl: float = 0.0
    heartbeat_ttl: float = 0.0
    heartbeat_timeout: float = -1.0
    max_msg_size: int = -1
    reconnect_ivl: float = 0.1
    reconnect_ivl_max: float = 0.0
    metadata: dict[str, bytes] = field(default_factory=dict)
    #: Makes each connection's security mechanism, given the peer's address
    #: (`security.mechanism_factory`); None = NULL without ZAP.
    mechanism_factory: MechanismFactory | None = None
    #: STREAM sockets: raw bytes instead of ZMTP, one pipe per connection.
    raw: bool = False
    #: STREAM_NOTIFY: announce connects and disconnects with an empty message.
    stream_notify: bool = True
    #: CONNECT_ROUTING_ID given for this connect(): the id the socket's ROUTER or
    #: STREAM knows this peer by (set on every pipe the session makes).
    connect_routing_id: bytes = b""
    #: Tell the socket when a connect-side pipe's peer identity is known
    #: (IDENTIFYING_TYPES). Other sockets are not told: the command would wake
    #: their thread for nothing, at every connection's set-up.
    wants_identity: bool = False


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
    value = options.value
    linger_ms: int = value(C.LINGER)
    hb_timeout: int = value(C.HEARTBEAT_TIMEOUT)
    return SessionConfig(
        socket_type=type_name,
        endpoint=endpoint,
        connect_side=connect_side,
        sndhwm=value(C.SNDHWM),
        rcvhwm=value(C.RCVHWM),
        # A STREAM peer is a new peer on every connection (no queue across them).
        immediate=bool(value(C.IMMEDIATE)) or type_name == "STREAM",
        conflate=bool(value(C.CONFLATE)) and type_name in CONFLATE_TYPES,
        linger=None if linger_ms < 0 else linger_ms / 1000.0,
        routing_id=value(C.ROUTING_ID),
        sends_identity=sends_identity(type_name),
        handshake_ivl=value(C.HANDSHAKE_IVL) / 1000.0,
        heartbeat_ivl=value(C.HEARTBEAT_IVL) / 1000.0,
        heartbeat_ttl=value(C.HEARTBEAT_TTL) / 1000.0,
        heartbeat_timeout=-1.0 if hb_timeout < 0 else hb_timeout / 1000.0,
        max_msg_size=value(C.MAXMSGSIZE),
        reconnect_ivl=value(C.RECONNECT_IVL) / 1000.0,
        reconnect_ivl_max=value(C.RECONNECT_IVL_MAX) / 1000.0,
        # ZMQ_METADATA: application properties (X-...) sent in READY/INITIATE.
        metadata={name.decode("ascii", "replace"): v for name, v in value(C.METADATA)},
        raw=type_name == "STREAM",
        stream_notify=bool(value(C.STREAM_NOTIFY)),
        mechanism_factory=security.mechanism_factory(options, ctx),
        connect_routing_id=connect_routing_id,
        wants_identity=type_name in IDENTIFYING_TYPES,
    )
