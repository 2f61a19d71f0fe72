"""PollWaiter: how a socket's own thread sleeps until it has something to do.

The `Waiter` of `purezmq._core.protocols`, for every socket: a `Signaler`
(eventfd, else a socketpair) that other threads make readable when they
post to the socket's mailbox - also the socket's FD option - and the
blocking waits of send and receive on it.

`wait_reading` is the direct read path's wait (see `_core/sessions.py`):
the socket's own connections, parked by the receiving thread, are watched
together with the signal and read right here when data arrives, so a
message costs one wake-up of one thread.

The poll object is made once per socket: a blocking receive in a
request/reply loop waits once per message. The parked descriptors stay
registered between waits while they stay the same (the usual case: the
same connection, wait after wait), and are taken out before any other
kind of wait, which must not wake for data that the I/O thread reads.
"""

from __future__ import annotations

import select
from typing import TYPE_CHECKING, Final

from .signaler import Signaler

if TYPE_CHECKING:
    from purezmq._core.protocols import EngineHandle

_HAVE_POLL: Final = hasattr(select, "poll")
_POLLIN: Final = select.POLLIN if _HAVE_POLL else 1


def _ms(timeout: float | None) -> int:
    """poll()'s timeout: -1 forever, else milliseconds rounded up (never early)."""
    return -1 if timeout is None else max(0, int(timeout * 1000 + 0.999))


def _same(watching: list[int], parked: dict[int, EngineHandle]) -> bool:
    """Are the registered descriptors exactly the parked ones? (mypyc turns
    all() over a generator into a plain loop: no generator object.)"""
    return len(watching) == len(parked) and all(fd in parked for fd in watching)


class PollWaiter:
    """A socket's signal descriptor and its blocking waits (one owning thread)."""

    __slots__ = ("_armed", "_fd", "_poll", "_signaler", "_watching")

    def __init__(self) -> None:
        self._signaler = Signaler()
        self._fd = self._signaler.fileno()
        self._poll = select.poll() if _HAVE_POLL else None
        if self._poll is not None:
            self._poll.register(self._fd, _POLLIN)
        #: Parked descriptors registered on `_poll` besides the signal's.
        self._watching: list[int] = []
        #: Set before each signal's write, cleared by the drain that reads it.
        self._armed = False

    def fileno(self) -> int:
        return self._fd

    def signal(self) -> None:
        self._armed = True  # before the write: see drain
        self._signaler.signal()

    def drain(self) -> None:
        """Consume the signals, if any was sent since the last drain.

        An asyncio socket is woken by a loop callback, not by this
        descriptor, yet its core drains after every wake-up: reading an
        eventfd that holds nothing raises BlockingIOError, about 7,000
        instructions a round trip compiled. The flag is raised before the
        write and lowered before the read: any write that happened before
        this drain had raised it, so the drain reads whenever a read would
        have found something (a write racing the drain is the caller's
        affair, as before: the socket's own flag orders it)."""
        if self._armed:
            self._armed = False
            self._signaler.drain()

    @property
    def closed(self) -> bool:
        return self._signaler.closed

    def close(self) -> None:
        self._signaler.close()

    def reset(self) -> bool:
        """As new, for another socket (`ContextCore.recycle_waiter`): the
        parked descriptors of the last one forgotten, its pending signal, if
        any, read (no system call when none was sent since the last drain)."""
        if self._signaler.closed:
            return False
        if self._poll is not None and self._watching:
            self._unwatch(self._poll)
        self.drain()
        return True

    def wait(self, timeout: float | None) -> None:
        """Block until signalled or `timeout` seconds pass. Does not drain.

        Interrupted waits (EINTR) are retried by Python itself (PEP 475)
        unless a signal handler raises, which propagates, as pyzmq does for
        KeyboardInterrupt during a blocking call."""
        poll = self._poll
        if poll is None:  # pragma: no cover - Windows
            select.select([self._fd], [], [], timeout)
            return
        if self._watching:
            self._unwatch(poll)
        poll.poll(_ms(timeout))

    def wait_also(self, timeout: float | None, fds: list[int]) -> None:
        """As `wait`, also returning when one of `fds` is readable (parked
        connections a poll must notice); reads nothing."""
        poll = self._poll
        if poll is None:  # pragma: no cover - Windows
            select.select([self._fd, *fds], [], [], timeout)
            return
        if self._watching != fds:
            if self._watching:
                self._unwatch(poll)
            for fd in fds:
                poll.register(fd, _POLLIN)
            self._watching = list(fds)
        poll.poll(_ms(timeout))

    def _unwatch(self, poll: select.poll) -> None:
        for fd in self._watching:
            poll.unregister(fd)
        self._watching = []

    def wait_reading(self, timeout: float | None, parked: dict[int, EngineHandle]) -> None:
        """Wait for the signal or data on a parked connection; read the latter here."""
        poll = self._poll
        if poll is None:  # pragma: no cover - no direct reads without poll()
            self.wait(timeout)
            return
        watching = self._watching
        if not _same(watching, parked):
            if watching:
                self._unwatch(poll)
            watching = list(parked)
            for fd in watching:
                poll.register(fd, _POLLIN)
            self._watching = watching
        ready = poll.poll(_ms(timeout))
        for fd, _ in ready:
            engine = parked.get(fd)
            if engine is not None and not engine.read_direct():
                del parked[fd]  # the connection ended: the driver tidies up
