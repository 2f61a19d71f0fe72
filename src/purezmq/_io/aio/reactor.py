"""A running asyncio event loop as a `Reactor`.

`purezmq.asyncio` sockets have their connections pumped by the loop the
application already runs: descriptors are watched with `add_reader` /
`add_writer`, and the engine reads with `recv_into` straight into the
connection's own buffer - what `BufferedProtocol` does, without a transport
object in between (and without the stdlib Protocol's allocation per read).
It works with the standard selector loop and with uvloop. Windows' Proactor
loop has no `add_reader`; there purezmq.asyncio falls back to the threaded
driver.

Everything runs on the loop's thread; only `call_soon` and `set_interest`
may come from elsewhere (an inproc peer in another thread), and they go
through `call_soon_threadsafe`.

A message that arrives is delivered within the readiness callback that read
it: the socket it woke asks to be serviced once the handler returns
(`defer`), and completes its waiting future there - not one loop iteration
later through `call_soon`. And between the reactor's own callbacks the
application's code runs on this thread too (`between_callbacks`): an engine
may then write a message straight away, as it does from another thread,
instead of leaving it to a callback of the next iteration. A round trip is
two loop iterations (the reply's readiness; the awaiting task), not four.

Compiled by mypyc (setup.py): `_ready` runs for every readiness and
`LoopWaker.wake` for every message delivered, so neither is interpreted.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Final, Protocol

from purezmq._core.clock import monotonic
from purezmq._io.reactor import READ, WRITE, IOHandler

log = logging.getLogger("purezmq")
#: The calling thread's id (Final: compiled, a direct reference).
_get_ident: Final = threading.get_ident


class _Cancellable(Protocol):
    """A loop's timer handle (asyncio's `TimerHandle`, uvloop's own class)."""

    def cancel(self) -> None: ...


class LoopTimer:
    """A loop timer with the `Timer` face (monotonic `when`, `cancelled`).

    `cancelled` is a plain attribute, set by `cancel`, not a question to the
    loop's handle: the engine reads it for every message it receives (is the
    read-ahead timer still armed?), and only we cancel the handle. The handle
    is whatever the loop returns (uvloop's is not `asyncio.TimerHandle`)."""

    __slots__ = ("_handle", "cancelled", "when")

    def __init__(self, when: float, handle: _Cancellable) -> None:
        self.when = when
        self._handle = handle
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        self._handle.cancel()


class LoopWaker:
    """How a socket's core wakes its asyncio owner (`SocketCore.set_waker`).

    Woken by the reactor's own read - a message the loop just delivered -
    the owner's `service` runs as soon as that readiness handler returns
    (`AsyncioReactor.defer`); woken any other way (another thread, an inproc
    peer's task, a timer), `otherwise` decides. Compiled: it runs for every
    message an asyncio socket receives."""

    def __init__(
        self,
        reactor: AsyncioReactor,
        service: Callable[[], None],
        otherwise: Callable[[], None],
    ) -> None:
        self.reactor = reactor
        self.service = service
        self.otherwise = otherwise

    def wake(self) -> None:
        if not self.reactor.defer(self.service):
            self.otherwise()


class AsyncioReactor:
    """Reactor over an event loop. Create it on the loop's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # Not `_thread`: mypyc names that attribute `__thread`, a C keyword.
        self._ident = _get_ident()
        self._handlers: dict[int, IOHandler] = {}
        self._masks: dict[int, int] = {}
        #: True while one of our callbacks runs (a handler, a timer, a call).
        self._busy = False
        #: What `defer` queued during the readiness handler now running.
        self._after: list[Callable[[], None]] = []
        self._handling = False

    def __repr__(self) -> str:
        return f"<AsyncioReactor {self.loop!r}>"

    # ------------------------------------------------------------ any thread
    def in_thread(self) -> bool:
        return _get_ident() == self._ident

    @property
    def alive(self) -> bool:
        return not self.loop.is_closed()

    def call_soon(self, fn: Callable[[], None]) -> None:
        try:
            if self.in_thread():
                self.loop.call_soon(self._guarded, fn)
            else:
                self.loop.call_soon_threadsafe(self._guarded, fn)
        except RuntimeError:  # the loop is closed: nothing will run any more
            log.debug("purezmq: %r dropped a call: its loop is closed", self)

    def call_idle(self, fn: Callable[[], None]) -> None:
        """At once. A later callback could wait for ever: closing a context
        blocks its loop's thread until every session has ended (term)."""
        fn()

    def set_interest(self, fd: int, mask: int) -> None:
        if self.in_thread():
            self._apply(fd, mask)
        else:
            self.call_soon(lambda: self._apply(fd, mask))

    # ------------------------------------------------------------ loop thread
    def between_callbacks(self) -> bool:
        """On the loop's thread, outside any of our callbacks: the application
        runs (an engine may write now; nothing of its own is half done)."""
        return not self._busy and _get_ident() == self._ident

    def defer(self, fn: Callable[[], None]) -> bool:
        """Run `fn` right after the readiness handler now running returns, in
        the same loop callback; False (nothing queued) when no handler runs on
        this thread - the caller then uses `loop.call_soon`."""
        if not self._handling or _get_ident() != self._ident:
            return False
        self._after.append(fn)
        return True

    def call_at(self, when: float, fn: Callable[[], None]) -> LoopTimer:
        handle = self.loop.call_later(max(0.0, when - monotonic()), self._guarded, fn)
        return LoopTimer(when, handle)

    def call_later(self, delay: float, fn: Callable[[], None]) -> LoopTimer:
        return self.call_at(monotonic() + delay, fn)

    def register(self, fd: int, handler: IOHandler, mask: int) -> None:
        self._handlers[fd] = handler
        self._masks[fd] = 0
        self._apply(fd, mask)

    def unregister(self, fd: int) -> None:
        if self._handlers.pop(fd, None) is None:
            return
        old = self._masks.pop(fd, 0)
        if self.loop.is_closed():
            return
        if old & READ:
            self.loop.remove_reader(fd)
        if old & WRITE:
            self.loop.remove_writer(fd)

    def _apply(self, fd: int, mask: int) -> None:
        if fd not in self._handlers or self.loop.is_closed():
            return
        old = self._masks.get(fd, 0)
        if (mask ^ old) & READ:
            if mask & READ:
                self.loop.add_reader(fd, self._ready, fd, READ)
            else:
                self.loop.remove_reader(fd)
        if (mask ^ old) & WRITE:
            if mask & WRITE:
                self.loop.add_writer(fd, self._ready, fd, WRITE)
            else:
                self.loop.remove_writer(fd)
        self._masks[fd] = mask

    def _ready(self, fd: int, what: int) -> None:
        handler = self._handlers.get(fd)
        if handler is None:
            return
        self._busy = self._handling = True
        try:
            if what == READ:
                handler.on_readable()
            else:
                handler.on_writable()
        except Exception as exc:
            # One bad connection must not disturb the loop or its neighbours.
            log.exception("purezmq: I/O handler %r failed; closing it", handler)
            try:
                handler.on_poll_error(exc)
            except Exception:
                log.exception("purezmq: closing failed handler %r raised", handler)
        finally:
            self._busy = self._handling = False
        after = self._after
        if after:
            # The handler is done: what it woke runs as application code
            # would (its sends may write at once), before the loop's next turn.
            self._after = []
            for fn in after:
                try:
                    fn()
                except Exception:
                    log.exception("purezmq: deferred call %r failed", fn)

    def _guarded(self, fn: Callable[[], None]) -> None:
        self._busy = True
        try:
            fn()
        except Exception:
            log.exception("purezmq: loop callback %r failed", fn)
        finally:
            self._busy = False
