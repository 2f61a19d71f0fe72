"""Heartbeat deadlines (ZMTP 3.1 PING/PONG), as pure arithmetic on `now`.

Mirrors libzmq's four engine timers (``stream_engine_base.cpp``):

- *ivl*: from the end of the handshake, every HEARTBEAT_IVL a PING goes out
  carrying our HEARTBEAT_TTL; the next one is due ivl after the last.
- *timeout*: sending a PING arms HEARTBEAT_TIMEOUT (default: the interval)
  unless it is armed already; if nothing arrives before it, the connection
  is dead.
- *ttl*: a peer's PING with a non-zero TTL arms that TTL unless armed; if
  nothing arrives before it, the connection is dead.
- Incoming traffic disarms both. libzmq disarms them per decoded frame; we
  disarm them per received *byte* batch, because parsing is lazy here (bytes
  may sit unparsed while the application is busy) and RFC 37 speaks of
  "any traffic". A peer that trickles a frame byte by byte keeps the
  connection alive, as it would in any byte-stream sense.
"""

from __future__ import annotations

from typing import Final

#: libzmq's HEARTBEAT_TIMEOUT default: "same as the interval".
SAME_AS_IVL: Final = -1.0


class Heartbeat:
    """The deadlines of one connection; all times share the caller's clock."""

    __slots__ = ("_ivl", "_timeout", "next_ping", "timeout_at", "ttl_at", "ttl_deciseconds")

    def __init__(self, *, ivl: float, ttl: float, timeout: float = SAME_AS_IVL) -> None:
        self._ivl = ivl
        self._timeout = ivl if timeout == SAME_AS_IVL else timeout
        #: TTL we put in our PINGs (16-bit deciseconds, as libzmq stores it).
        # (round/min/max are calls into the interpreter's builtins compiled:
        # skipped for the usual no TTL.)
        self.ttl_deciseconds = max(0, min(0xFFFF, round(ttl * 10))) if ttl > 0 else 0
        self.next_ping: float | None = None
        self.timeout_at: float | None = None
        self.ttl_at: float | None = None

    def start(self, now: float) -> None:
        """The handshake finished: the PING interval starts now."""
        if self._ivl > 0:
            self.next_ping = now + self._ivl

    def traffic(self) -> None:
        """Bytes arrived: the peer is alive."""
        self.timeout_at = None
        self.ttl_at = None

    def peer_ping(self, ttl_deciseconds: int, received_at: float) -> None:
        """The peer sent a PING received at `received_at`: honour its TTL."""
        if ttl_deciseconds > 0 and self.ttl_at is None:
            self.ttl_at = received_at + ttl_deciseconds / 10.0

    def ping_due(self, now: float) -> bool:
        """Is a PING due? If so, schedule the next one and arm the timeout."""
        if self.next_ping is None or now < self.next_ping:
            return False
        self.next_ping = now + self._ivl
        if self.timeout_at is None and self._timeout > 0:
            self.timeout_at = now + self._timeout
        return True

    def expired(self, now: float) -> str | None:
        """Why the connection is dead at `now`, or None if it is not."""
        if self.timeout_at is not None and now >= self.timeout_at:
            return "heartbeat timeout: no traffic after our PING"
        if self.ttl_at is not None and now >= self.ttl_at:
            return "heartbeat TTL expired: no traffic after the peer's PING"
        return None

    def next_deadline(self) -> float | None:
        """The earliest pending deadline, or None.

        Asked after every parse (Session.next_deadline): written out, without
        the list and tuple a comprehension would build (compiled, about 900
        instructions a call, per round trip on each side, before)."""
        best = self.next_ping
        t = self.timeout_at
        if t is not None and (best is None or t < best):
            best = t
        t = self.ttl_at
        if t is not None and (best is None or t < best):
            best = t
        return best
