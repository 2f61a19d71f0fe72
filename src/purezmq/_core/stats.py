"""Socket statistics: what a socket and each of its connections have done.

libzmq counts nothing an application can read; an operator at 3 a.m. wants
to know which peer is slow, which queue is full and what was dropped. The
counters are kept where the work already happens, so that reading them costs
nothing on the critical path and keeping them almost nothing:

- messages: one integer add per message on the *sending* side of a pipe
  (`Pipe.msgs_out`); what a socket received from a peer is what the peer
  wrote less what is still queued (`Pipe.msgs_read`), so receiving costs
  nothing;
- bytes on the wire (ZMTP framing included), reconnects and failed
  handshakes: per read, per write and per event, in the session
  (`ConnectionCounters`);
- drops at the high-water mark: where libzmq drops (PUB/XPUB/XSUB to a full
  subscriber, ROUTER to a full peer), per pipe (`Pipe.drops`).

A connection's counters are folded into the socket's totals when it ends,
so totals never go backwards. A snapshot is exact once traffic is quiet;
while messages flow, a count may lead what the application has seen by the
message being handed over.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from purezmq._routing.pipe import Pipe

    from .session import Session


class ConnectionCounters:
    """What one session counts (it outlives its connections: a connect-side
    session reconnects, and its counters span all of them)."""

    __slots__ = ("bytes_in", "bytes_out", "handshake_failures", "reconnects")

    def __init__(self) -> None:
        self.bytes_in = 0
        self.bytes_out = 0
        self.reconnects = 0
        self.handshake_failures = 0


#: The per-message counters of a snapshot, in the order they are reported.
_TOTALS = (
    "msgs_in",
    "msgs_out",
    "bytes_in",
    "bytes_out",
    "drops_hwm",
    "reconnects",
    "handshake_failures",
)


class SocketStats:
    """The totals of a socket's ended connections, and snapshots of it all."""

    __slots__ = (
        "_draining",
        "_lock",
        "bytes_in",
        "bytes_out",
        "drops_hwm",
        "handshake_failures",
        "msgs_in",
        "msgs_out",
        "reconnects",
    )

    def __init__(self) -> None:
        # Pipes end on the socket's thread, sessions on the driver's.
        self._lock = threading.Lock()
        # Attributes, not a dict keyed by `_TOTALS`: every socket makes one,
        # and the dict cost about 5k instructions compiled per socket.
        self.msgs_in = 0
        self.msgs_out = 0
        self.bytes_in = 0
        self.bytes_out = 0
        self.drops_hwm = 0
        self.reconnects = 0
        self.handshake_failures = 0
        #: Ended pipes whose messages the application is still reading: a
        #: peer that sent and left has its messages delivered (fq drains
        #: them), so what was read from it is only known once they are.
        self._draining: list[Pipe] = []

    def pipe_ended(self, pipe: Pipe) -> None:
        """Add a pipe's final message counts to the totals. The socket calls it
        once per pipe, where the pipe leaves its set."""
        with self._lock:
            self.msgs_out += pipe.msgs_sent
            self.drops_hwm += pipe.drops
            self._draining.append(pipe)
            self._fold_drained()

    def _fold_drained(self) -> tuple[int, int]:
        """Count what was read from ended pipes that are empty now, and return
        what was read so far from those still draining and what they still
        hold (under the lock).
        Pruned on every pipe end, so the list holds only pipes that still hold
        messages."""
        still: list[Pipe] = []
        reading = queued = 0
        for pipe in self._draining:
            waiting = pipe.queued_in
            if waiting:
                still.append(pipe)
                reading += pipe.msgs_read
                queued += waiting
            else:
                self.msgs_in += pipe.msgs_read
        self._draining = still
        return reading, queued

    def session_ended(self, session: Session) -> None:
        """Add a session's final counts to the totals (once per session: the
        socket calls it from `session_done`). Any thread."""
        c = session.counters
        with self._lock:
            self.bytes_in += c.bytes_in
            self.bytes_out += c.bytes_out
            self.reconnects += c.reconnects
            self.handshake_failures += c.handshake_failures

    def _totals(self) -> dict[str, int]:
        """The totals by name, in `_TOTALS` order (under the lock): the
        attributes carry those names, so the list of names is kept once."""
        return {key: getattr(self, key) for key in _TOTALS}

    def snapshot(
        self,
        socket_type: str,
        pipes: list[tuple[Pipe, str]],
        sessions: list[Session],
    ) -> dict[str, Any]:
        """The socket's statistics now: totals and one record per connection.

        `pipes`: the socket's live pipes with the inproc endpoint each came
        from (ignored for pipes of a session); `sessions`: its live sessions.
        """
        by_pipe: dict[int, Session] = {}
        for s in sessions:
            if s.pipe is not None:
                by_pipe[id(s.pipe.peer)] = s
        connections: list[dict[str, Any]] = []
        seen: set[int] = set()
        for pipe, endpoint in pipes:
            session = by_pipe.get(id(pipe))
            if session is not None:
                seen.add(id(session))
            connections.append(_record(pipe, session, endpoint))
        for s in sessions:  # connected or retrying, but without a pipe now
            if id(s) not in seen:
                connections.append(_record(None, s, s.config.endpoint))
        report: dict[str, Any] = {"socket_type": socket_type}
        with self._lock:
            reading, queued = self._fold_drained()
            totals = self._totals()
        totals["msgs_in"] += reading
        for key in _TOTALS:
            report[key] = totals[key] + sum(c[key] for c in connections)
        report["queued_in"] = queued + sum(c["queued_in"] for c in connections)
        report["queued_out"] = sum(c["queued_out"] for c in connections)
        report["connections"] = connections
        return report


def _record(pipe: Pipe | None, session: Session | None, endpoint: str) -> dict[str, Any]:
    """One connection's counters (a pipe, a session, or both)."""
    c = session.counters if session is not None else ConnectionCounters()
    if session is not None:
        endpoint = session.config.endpoint
        connected = session.engine is not None and session.handshaken
    else:
        connected = pipe is not None and not pipe.peer_closed
    return {
        "endpoint": endpoint,
        "transport": endpoint.partition("://")[0],
        "peer_address": session.peer_address if session is not None else "",
        "connected": connected,
        "msgs_in": pipe.msgs_read if pipe is not None else 0,
        "msgs_out": pipe.msgs_sent if pipe is not None else 0,
        "bytes_in": c.bytes_in,
        "bytes_out": c.bytes_out,
        "drops_hwm": pipe.drops if pipe is not None else 0,
        "queued_in": pipe.queued_in if pipe is not None else 0,
        "queued_out": pipe.outbound_size if pipe is not None else 0,
        "reconnects": c.reconnects,
        "handshake_failures": c.handshake_failures,
    }
