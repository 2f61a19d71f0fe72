"""SessionSet: what a poller's look at a socket costs.

`Socket.poll()` and `EVENTS` ask the socket's sessions which connections the
direct read path parked (nobody else reads those). That look must cost
O(parked connections) - at most DIRECT_READ_MAX - not O(all connections):
at 5,000 connections a poll loop spent its time walking them all. Real
sessions, fake engines that count what is asked of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import purezmq
from purezmq._core.monitor import Monitor
from purezmq._core.session import Session
from purezmq._core.session_config import SessionConfig
from purezmq._core.sessions import DIRECT_READ_MAX, DirectWrites, SessionSet


@dataclass
class _Owner:
    """The little of a socket a bind-side session touches when it is made."""

    ctx: object = field(default_factory=lambda: purezmq.Context()._core)
    monitor: Monitor = field(default_factory=Monitor)
    burst: DirectWrites = field(default_factory=DirectWrites)


class _Engine:
    """An engine that parks (when asked) and counts every question."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.parked = False
        self.asked = 0

    def park(self) -> int | None:
        self.asked += 1
        self.parked = True
        return self.fd

    def unpark(self) -> None:
        self.asked += 1

    def parked_fd(self) -> int | None:
        self.asked += 1
        return self.fd if self.parked else None

    def read_if_parked(self) -> None:
        self.asked += 1


def _sessions(n: int) -> tuple[SessionSet, list[_Engine]]:
    owner = _Owner()
    config = SessionConfig(socket_type="ROUTER", endpoint="tcp://x", connect_side=False)
    sessions = SessionSet()
    engines = []
    for fd in range(n):
        session = Session(owner, config)  # type: ignore[arg-type]
        engine = _Engine(fd)
        session.engine = engine  # type: ignore[assignment]
        sessions.add(session)
        engines.append(engine)
    return sessions, engines


def test_polling_many_connections_asks_none_of_them() -> None:
    sessions, engines = _sessions(200)
    assert sessions.park() == {}  # too many to read directly: nothing parks
    for _ in range(10):
        assert sessions.parked_fds() == []
        sessions.read_parked()
    assert sum(e.asked for e in engines) == 0


def test_polling_asks_only_the_parked_connections() -> None:
    sessions, engines = _sessions(DIRECT_READ_MAX)
    parked = sessions.park()
    assert sorted(parked) == [e.fd for e in engines]
    assert sorted(sessions.parked_fds()) == sorted(parked)
    engines[0].parked = False  # its driver took reading back
    for e in engines:
        e.asked = 0
    assert sorted(sessions.parked_fds()) == [e.fd for e in engines[1:]]
    sessions.read_parked()  # the unparked one is forgotten: not asked again
    assert engines[0].asked == 1
    assert all(e.asked == 3 for e in engines[1:])  # parked_fd twice, read once


def test_parking_again_reuses_the_last_park_until_something_changes() -> None:
    """A request/reply loop parks before every wait: the same connections
    are parked again from the last park's result, and any change - a new
    session, an engine that no longer parks - is seen at once."""
    sessions, engines = _sessions(2)
    first = sessions.park()
    assert sorted(first) == [0, 1]
    first.clear()  # the caller's copy: editing it changes nothing here
    again = sessions.park()
    assert sorted(again) == [0, 1]
    assert all(e.asked == 2 for e in engines)  # each asked to park twice, nothing else

    # A new connection: the next park sees it.
    owner = _Owner()
    config = SessionConfig(socket_type="ROUTER", endpoint="tcp://x", connect_side=False)
    session = Session(owner, config)  # type: ignore[arg-type]
    newcomer = _Engine(7)
    session.engine = newcomer  # type: ignore[assignment]
    sessions.add(session)
    assert sorted(sessions.park()) == [0, 1, 7]

    # An engine that no longer parks (closed, paused): left out at once.
    engines[0].park = lambda: None  # type: ignore[method-assign]
    assert sorted(sessions.park()) == [1, 7]
    assert sorted(sessions.park()) == [1, 7]
    sessions.discard(session)
    assert sorted(sessions.park()) == [1]
