"""Each OS connection of a session: its protocol object, and the pace of retries.

Each OS connection a session gets (every reconnect, every accept) starts a
fresh sans-I/O connection, built from the session's option snapshot: the
security mechanism (from the socket's factory, or NULL), the identity and
metadata it announces, and the timers of the handshake and heartbeats.
Between connect attempts the session waits RECONNECT_IVL, doubling up to
RECONNECT_IVL_MAX when that is set (`Backoff`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from purezmq._zmtp import ZMTPConnection
from purezmq._zmtp.greeting import signature
from purezmq._zmtp.mechanisms.base import Mechanism
from purezmq._zmtp.mechanisms.null import NullMechanism
from purezmq._zmtp.raw import RawConnection

if TYPE_CHECKING:
    from .session_config import SessionConfig

#: What a session drives: a ZMTP connection, or a STREAM socket's raw one.
Connection = ZMTPConnection | RawConnection


def signature_for(cfg: SessionConfig) -> bytes:
    """The first bytes a new connection sends, whoever the peer is: the
    ZMTP signature (nothing for a raw STREAM connection). A driver may write
    them before it makes the connection (`open_connection`'s `sent`): the
    peer reads them and answers while this side builds its objects, instead
    of after."""
    return b"" if cfg.raw else signature(len(cfg.routing_id))


def open_connection(cfg: SessionConfig, peer_address: str, now: float, sent: int = 0) -> Connection:
    """A new connection in its initial state: `sent` bytes of its signature
    are already written, the rest of its greeting is not."""
    if cfg.raw:
        return RawConnection()
    factory = cfg.mechanism_factory
    identity = cfg.routing_id if cfg.sends_identity else None
    mechanism: Mechanism
    if factory is not None:
        mechanism = factory(peer_address)
        mechanism.configure(socket_type=cfg.socket_type, identity=identity, metadata=cfg.metadata)
    else:
        mechanism = NullMechanism(identity=identity, properties=cfg.metadata)
    return ZMTPConnection(
        socket_type=cfg.socket_type,
        mechanism=mechanism,
        now=now,
        handshake_ivl=cfg.handshake_ivl,
        heartbeat_ivl=cfg.heartbeat_ivl,
        heartbeat_ttl=cfg.heartbeat_ttl,
        heartbeat_timeout=cfg.heartbeat_timeout,
        max_msg_size=cfg.max_msg_size,
        # For ZMTP 1.0/2.0 peers: the identity frame, and whether we may talk
        # to them at all (libzmq's zap_enabled: any mechanism or ZAP domain).
        routing_id=cfg.routing_id,
        zap_enabled=factory is not None,
        signature_sent=sent,
    )


class Backoff:
    """RECONNECT_IVL, doubling after each attempt up to RECONNECT_IVL_MAX (if set);
    back to the start once a connection completes its handshake."""

    __slots__ = ("_first", "_max", "_next")

    def __init__(self, ivl: float, ivl_max: float) -> None:
        self._first = self._next = ivl
        self._max = ivl_max

    def next_delay(self) -> float:
        delay = self._next
        if self._max > 0:
            self._next = min(self._next * 2, self._max)
        return delay

    def reset(self) -> None:
        self._next = self._first
