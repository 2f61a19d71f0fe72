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
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from purezmq._core.clock import monotonic
from purezmq._io.reactor import READ, WRITE, IOHandler

log = logging.getLogger("purezmq")


class LoopTimer:
    """A loop timer with the `Timer` face (monotonic `when`, `cancelled`)."""

    __slots__ = ("_handle", "when")

    def __init__(self, when: float, handle: asyncio.TimerHandle) -> None:
        self.when = when
        self._handle = handle

    @property
    def cancelled(self) -> bool:
        return self._handle.cancelled()

    def cancel(self) -> None:
        self._handle.cancel()


class AsyncioReactor:
    """Reactor over an event loop. Create it on the loop's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # Not `_thread`: mypyc names that attribute `__thread`, a C keyword.
        self._ident = threading.get_ident()
        self._handlers: dict[int, IOHandler] = {}
        self._masks: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"<AsyncioReactor {self.loop!r}>"

    # ------------------------------------------------------------ any thread
    def in_thread(self) -> bool:
        return threading.get_ident() == self._ident

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

    def set_interest(self, fd: int, mask: int) -> None:
        if self.in_thread():
            self._apply(fd, mask)
        else:
            self.call_soon(lambda: self._apply(fd, mask))

    # ------------------------------------------------------------ loop thread
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

    @staticmethod
    def _guarded(fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:
            log.exception("purezmq: loop callback %r failed", fn)
