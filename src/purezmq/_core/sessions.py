"""The sessions of one socket, and the direct read path over their engines.

A socket's sessions are made on two threads: connect-side ones by the
socket's own thread (connect), bind-side ones by the driver's as it accepts.
They end on the driver's thread. So the set is guarded by a lock, and
readers take a snapshot.

The direct read path lives here because it is about engines, not about
the socket: when a receive must block on a socket with at most
DIRECT_READ_MAX connections, the receiving thread *parks* them - the I/O
thread stops reading them - and waits on their descriptors together with
the socket's own signal, reading whatever arrives itself. A message then
wakes one thread once, as a plain blocking socket would, instead of waking
the I/O thread, which would then wake the receiver.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .protocols import EngineHandle
    from .session import Session

#: The direct read path serves sockets with at most this many connections:
#: parking costs two epoll_ctl calls per connection per wait.
DIRECT_READ_MAX: Final = 4


class SessionSet:
    """The live sessions of one socket (thread-safe)."""

    __slots__ = ("_last", "_lock", "_parked", "_sessions", "_version")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: set[Session] = set()
        #: Engines this set parked. Their driver may have taken reading back
        #: since (they are forgotten when found so), but nothing else can be
        #: parked: pollers look at these only - O(parked), at most
        #: DIRECT_READ_MAX, however many connections the socket has.
        #: Like `_last`, it belongs to the socket's thread (`park`,
        #: `read_parked` and `parked_fds` run only there), so no lock: a
        #: server polling per message took it twice per poll, about 1,200
        #: instructions compiled each time (issue 14).
        self._parked: set[EngineHandle] = set()
        #: Bumped whenever the set of sessions changes (under the lock).
        self._version = 0
        #: The last `park` that parked every session, and the version it saw:
        #: a request/reply loop parks the same connections before every wait,
        #: so the next `park` only re-asks those engines (see `park`).
        self._last: tuple[int, dict[int, EngineHandle]] | None = None

    def __len__(self) -> int:
        return len(self._sessions)

    def __bool__(self) -> bool:
        return bool(self._sessions)

    def add(self, session: Session) -> None:
        with self._lock:
            self._sessions.add(session)
            self._version += 1

    def discard(self, session: Session) -> None:
        with self._lock:
            self._sessions.discard(session)
            self._version += 1

    def release(self) -> None:
        """Forget everything: the socket closed (see `Endpoints.release`)."""
        with self._lock:
            self._sessions.clear()
            self._version += 1
        self._parked.clear()
        self._last = None

    def snapshot(self) -> list[Session]:
        """Every session, including ones that finished a moment ago."""
        with self._lock:
            return list(self._sessions)

    def live(self) -> list[Session]:
        """The sessions that have not finished."""
        with self._lock:
            return [s for s in self._sessions if not s.done]

    def _engines_locked(self) -> list[EngineHandle]:
        # A plain loop: compiled, a generator expression is an object per call.
        engines = []
        for session in self._sessions:
            engine = session.engine
            if engine is not None:
                engines.append(engine)
        return engines

    # ---------------------------------------------------------- direct reads
    def park(self) -> dict[int, EngineHandle]:
        """Park every connection that can be read directly (descriptor ->
        engine); none when the socket has too many for it to pay.

        The fast path, taken before most blocking receives of a request/reply
        loop: when the sessions are those of the last park, which parked them
        all, only those engines are asked again - no lock, no walk over the
        sessions, no update of `_parked` (they are all in it still: only
        `_still_parked` takes engines out, and it forgets this shortcut). An
        engine that answers differently (closed, paused, replaced by a
        reconnect's) sends us down the full path. Owning thread only."""
        last = self._last
        if last is not None and last[0] == self._version:
            cached = last[1]
            for known, engine in cached.items():
                if engine.park() != known:
                    break
            else:
                return dict(cached)  # the caller's copy: wait_reading edits it
        with self._lock:
            if len(self._sessions) > DIRECT_READ_MAX:
                self._last = None
                return {}
            version = self._version
            engines = self._engines_locked()
            everyone = len(engines) == len(self._sessions)
        parked: dict[int, EngineHandle] = {}
        for engine in engines:
            fd = engine.park()
            if fd is not None:
                parked[fd] = engine
        if parked:
            self._parked.update(parked.values())
        everyone = everyone and len(parked) == len(engines)
        self._last = (version, dict(parked)) if everyone and parked else None
        return parked

    def _still_parked(self) -> list[tuple[int, EngineHandle]]:
        """The parked engines and their descriptors; forget the others."""
        if not self._parked:
            return []
        found = []
        for engine in list(self._parked):
            fd = engine.parked_fd()
            if fd is None:
                self._parked.discard(engine)
                self._last = None  # park's shortcut relies on `_parked`
            else:
                found.append((fd, engine))
        return found

    def parked_fds(self) -> list[int]:
        """Descriptors of parked connections: a poller waiting on the socket
        must watch them too, since nobody else reads them."""
        return [fd for fd, _ in self._still_parked()]

    def read_parked(self) -> None:
        """Read parked connections now (their data wakes nobody else)."""
        for _, engine in self._still_parked():
            engine.read_if_parked()


class DirectWrites:
    """When the socket's own thread last wrote to one of its connections
    directly (monotonic seconds).

    Engines read it to tell sparse sends, which go out at once from the
    sending thread, from a burst - including a PUB fanning one message out
    to many connections - which the I/O thread batches. One per socket,
    shared by its sessions' engines."""

    __slots__ = ("at",)

    def __init__(self) -> None:
        self.at = 0.0
