"""What the stream engine, listeners and connecters need from an event source.

Two things provide it: the Context's I/O thread (`threaded.iothread.IOThread`,
an epoll loop in its own thread) and a running asyncio event loop
(`aio.reactor.AsyncioReactor`, for `purezmq.asyncio` sockets). The engine
code is written once against this protocol, so both drivers run the very
same connection logic.

Threads: `call_soon` and `set_interest` may be called from any thread;
everything else only from the reactor's own thread (`in_thread()`).
Deadlines are `purezmq._core.clock.monotonic()` values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

#: Interest and readiness bits.
READ = 1
WRITE = 4


class Timer(Protocol):
    """A scheduled call."""

    @property
    def when(self) -> float:
        """The monotonic deadline it was scheduled for."""

    @property
    def cancelled(self) -> bool: ...

    def cancel(self) -> None: ...


class IOHandler(Protocol):
    """An object the reactor calls when its descriptor is ready."""

    def on_readable(self) -> None: ...

    def on_writable(self) -> None: ...

    def on_poll_error(self, exc: BaseException | None) -> None:
        """A handler callback raised (`exc`), or the reactor is shutting down (None)."""


class Reactor(Protocol):
    """An event source: descriptors, timers and cross-thread calls."""

    def in_thread(self) -> bool:
        """True when called from the reactor's own thread."""

    @property
    def alive(self) -> bool:
        """Still running (calls made now will run)."""

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the reactor's thread soon. Any thread."""

    def between_callbacks(self) -> bool:
        """On the reactor's thread but in none of its callbacks: application
        code on an event loop the reactor shares (asyncio). Never true for
        the I/O thread, where everything runs in a callback."""

    def call_idle(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the reactor's thread when nothing more urgent is
        ready: a closed connection's teardown, out of the way of the next
        connection's handshake. Reactor thread only."""

    def call_at(self, when: float, fn: Callable[[], None]) -> Timer:
        """Run `fn` at monotonic time `when`. Reactor thread only."""

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        """Run `fn` after `delay` seconds. Reactor thread only."""

    def register(self, fd: int, handler: IOHandler, mask: int) -> None:
        """Watch `fd` for `mask` (READ|WRITE). Reactor thread only."""

    def unregister(self, fd: int) -> None:
        """Stop watching `fd`. Reactor thread only."""

    def set_interest(self, fd: int, mask: int) -> None:
        """Change what `fd` is watched for. Any thread."""
