"""The Context's I/O thread: one poll loop over descriptors, timers and commands.

Other threads never touch the loop's tables. They hand work over with
`call_soon` (a deque plus one eventfd signal), and the loop runs it between
polls. The only exception is `set_interest` on epoll, which the kernel makes
thread-safe and which engines call under their own lock, so that the
application thread can ask for POLLOUT after a partial direct write without
a wake-up.

A handler that raises is logged and closed; the loop and every other
connection keep running.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import select
import threading
from collections import deque
from collections.abc import Callable
from typing import Final

from purezmq._core.clock import monotonic
from purezmq._io.reactor import READ, WRITE, IOHandler
from purezmq._io.signaler import Signaler

log = logging.getLogger("purezmq")

_get_ident: Final = threading.get_ident
#: epoll's bits as plain ints: compiled, `select.EPOLLIN` in `_from_ep` was
#: a module look-up per ready descriptor (about 1,000 instructions per event,
#: 5,000 per connection set-up). 0 without epoll (poll(2) is used there).
_EPOLLIN: Final = int(getattr(select, "EPOLLIN", 0))
_EPOLLOUT: Final = int(getattr(select, "EPOLLOUT", 0))
_EPOLL_READ: Final = _EPOLLIN | int(getattr(select, "EPOLLERR", 0) | getattr(select, "EPOLLHUP", 0))
#: poll(2)'s bits that mean "read now" (where there is no epoll).
_POLL_READ: Final = int(
    getattr(select, "POLLIN", 0)
    | getattr(select, "POLLERR", 0)
    | getattr(select, "POLLHUP", 0)
    | getattr(select, "POLLNVAL", 0)
)


def _cancelled_callback() -> None:
    """What a cancelled timer holds instead of its callback."""


def _run_queued(queue: deque[Callable[[], None]], what: str) -> None:
    """Run the calls queued now; those they queue wait for the next turn."""
    for _ in range(len(queue)):
        fn = queue.popleft()
        try:
            fn()
        except Exception:
            log.exception("purezmq: %s %r failed", what, fn)


#: Busy turns (some descriptor ready every time) that deferred work waits
#: at most before it runs anyway (`IOThread.call_idle`).
_IDLE_MAX_WAIT: Final = 8

#: Cancelled timers stay in the heap until their deadline; once there are
#: more than this many and they are over half the heap, it is rebuilt
#: without them (as asyncio's loop does).
_PURGE_MIN: Final = 64


class TimerHandle:
    """A scheduled call; `cancel()` makes the loop skip it.

    Cancelling also lets go of the callback at once. The loop drops a
    cancelled timer only at its deadline, and every connection cancels a
    handshake timer 30 s (HANDSHAKE_IVL) out: holding the bound method kept
    each closed connection's engine, session, pipes and socket alive for
    those 30 s - at a thousand set-ups a second, tens of thousands of
    objects for the garbage collector to walk in every full collection."""

    __slots__ = ("_io", "callback", "cancelled", "when")

    def __init__(
        self, when: float, callback: Callable[[], None], io: IOThread | None = None
    ) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False
        self._io = io

    def cancel(self) -> None:
        if self.cancelled:
            return
        self.cancelled = True
        self.callback = _cancelled_callback
        io, self._io = self._io, None
        if io is not None:
            io.timer_cancelled()


class _Poller:
    """epoll where the kernel has it, poll(2) otherwise. Interest masks use
    READ/WRITE; `poll` returns the kernel's own bits, which `readable` and
    `writable` select (error and hang-up count as readable)."""

    def __init__(self) -> None:
        self._epoll = hasattr(select, "epoll")
        if self._epoll:
            self._ep = select.epoll()
            self.readable = _EPOLL_READ
            self.writable = _EPOLLOUT
        else:  # pragma: no cover - non-Linux
            self._p = select.poll()
            self.readable = _POLL_READ
            self.writable = select.POLLOUT

    @property
    def thread_safe_modify(self) -> bool:
        return self._epoll

    def register(self, fd: int, mask: int) -> None:
        if self._epoll:
            self._ep.register(fd, self._ep_mask(mask))
        else:  # pragma: no cover
            self._p.register(fd, self._poll_mask(mask))

    def modify(self, fd: int, mask: int) -> None:
        if self._epoll:
            self._ep.modify(fd, self._ep_mask(mask))
        else:  # pragma: no cover
            self._p.modify(fd, self._poll_mask(mask))

    def unregister(self, fd: int) -> None:
        try:
            if self._epoll:
                self._ep.unregister(fd)
            else:  # pragma: no cover
                self._p.unregister(fd)
        except (KeyError, OSError, ValueError):
            pass

    def poll(self, timeout: float | None) -> list[tuple[int, int]]:
        """Ready (fd, kernel bits) pairs, as the kernel gave them: a list of
        new pairs in READ/WRITE terms was about 700 instructions a turn."""
        if self._epoll:
            return self._ep.poll(-1 if timeout is None else timeout)
        ms = None if timeout is None else int(timeout * 1000 + 0.999)  # pragma: no cover
        return self._p.poll(ms)  # pragma: no cover

    def close(self) -> None:
        if self._epoll:
            self._ep.close()

    @staticmethod
    def _ep_mask(mask: int) -> int:
        m = 0
        if mask & READ:
            m |= _EPOLLIN
        if mask & WRITE:
            m |= _EPOLLOUT
        return m

    @staticmethod
    def _poll_mask(mask: int) -> int:  # pragma: no cover
        m = 0
        if mask & READ:
            m |= select.POLLIN
        if mask & WRITE:
            m |= select.POLLOUT
        return m


class IOThread:
    """A daemon thread that owns a poll loop. Start on construction."""

    def __init__(self, name: str = "purezmq-io") -> None:
        self._poller = _Poller()
        self._handlers: dict[int, IOHandler] = {}
        self._masks: dict[int, int] = {}
        self._timers: list[tuple[float, int, TimerHandle]] = []
        self._cancelled = 0  # cancelled timers still in _timers (about)
        self._seq = itertools.count()
        self._commands: deque[Callable[[], None]] = deque()
        self._idle: deque[Callable[[], None]] = deque()
        self._busy_turns = 0  # turns the work in _idle has waited
        self._wake = Signaler()
        self._poller.register(self._wake.fileno(), READ)
        self._stopping = False
        self._stopped = threading.Event()
        self._worker = threading.Thread(target=self._run, name=name, daemon=True)
        self._worker.start()
        #: The loop thread's id (known once start() returns): engines ask
        #: `in_thread` on every write, so it is one call and one comparison.
        self._ident = self._worker.ident

    # ------------------------------------------------------------ any thread
    def in_thread(self) -> bool:
        return _get_ident() == self._ident

    def between_callbacks(self) -> bool:
        return False  # the I/O thread runs nothing but its callbacks

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the I/O thread at its next turn.

        Only the command that makes the queue non-empty signals: the loop
        checks the queue before it blocks and keeps what arrives while it
        runs commands for its next turn, so a burst costs one wake-up system
        call, not one per command. (Append, then look: checking first could
        see another thread's command that the loop takes a moment later.)

        From the I/O thread itself nothing signals: the loop is awake and
        looks at the queue before it polls (`_turn` polls with no wait while
        commands are queued). An engine that completes its handshake asks
        for a flush this way, and the eventfd write, the wake-up and the
        read that drained it were three system calls per connection."""
        commands = self._commands
        commands.append(fn)
        if len(commands) == 1 and _get_ident() != self._ident:
            self._wake.signal()

    def stop(self, timeout: float | None = None) -> None:
        """Ask the loop to end and wait for it (not from the I/O thread itself)."""
        if not self._stopping:
            self.call_soon(self._request_stop)
        if not self.in_thread():
            self._stopped.wait(timeout)

    @property
    def alive(self) -> bool:
        return self._worker.is_alive()

    def set_interest(self, fd: int, mask: int) -> None:
        """Change what `fd` is polled for. From the I/O thread, or from another
        thread when the poller allows it (epoll); otherwise via `call_soon`."""
        if self.in_thread() or self._poller.thread_safe_modify:
            self._apply_interest(fd, mask)
        else:  # pragma: no cover
            self.call_soon(lambda: self._apply_interest(fd, mask))

    # ------------------------------------------------------------ I/O thread
    def register(self, fd: int, handler: IOHandler, mask: int) -> None:
        self._handlers[fd] = handler
        self._masks[fd] = mask
        self._poller.register(fd, mask)

    def unregister(self, fd: int) -> None:
        if self._handlers.pop(fd, None) is not None:
            self._masks.pop(fd, None)
            self._poller.unregister(fd)

    def call_idle(self, fn: Callable[[], None]) -> None:
        """Run `fn` once a poll finds nothing ready (or after _IDLE_MAX_WAIT
        busy turns). I/O thread only.

        For work that may wait, such as the teardown of a closed connection:
        when one connection closes as the next opens (a client that asks
        one question per connection), the new one's accept and handshake
        come first, and the teardown runs while the peer answers."""
        self._idle.append(fn)

    def call_at(self, when: float, fn: Callable[[], None]) -> TimerHandle:
        handle = TimerHandle(when, fn, self)
        heapq.heappush(self._timers, (when, next(self._seq), handle))
        return handle

    def timer_cancelled(self) -> None:
        """A timer of ours was cancelled (I/O thread, or any thread: a lost
        count only moves the next purge). Rebuild the heap without the
        cancelled ones once they are most of it."""
        self._cancelled += 1
        timers = self._timers
        if self._cancelled > _PURGE_MIN and 2 * self._cancelled > len(timers):
            if not self.in_thread():
                return  # the loop's own next cancel or call_at purges
            # In place: `_run_timers` may be iterating over this very list.
            timers[:] = [t for t in timers if not t[2].cancelled]
            heapq.heapify(timers)
            self._cancelled = 0

    def call_later(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        return self.call_at(monotonic() + delay, fn)

    def _apply_interest(self, fd: int, mask: int) -> None:
        if fd in self._handlers and self._masks.get(fd) != mask:
            self._masks[fd] = mask
            try:
                self._poller.modify(fd, mask)
            except OSError:  # the descriptor was closed under us: the handler will notice
                pass

    def _request_stop(self) -> None:
        self._stopping = True

    def _run(self) -> None:
        try:
            while not self._stopping:
                self._turn()
        finally:
            self._shutdown()

    def _turn(self) -> None:
        timers = self._timers
        while timers and timers[0][2].cancelled:
            self._drop_first_timer()
        timeout: float | None = None
        if self._commands or self._idle:
            timeout = 0.0
        elif timers:
            timeout = max(0.0, timers[0][0] - monotonic())
        poller = self._poller
        events = poller.poll(timeout)
        readable = poller.readable
        writable = poller.writable
        wake_fd = self._wake.fileno()
        handlers = self._handlers
        for fd, bits in events:
            if fd == wake_fd:
                self._wake.drain()
                continue
            handler = handlers.get(fd)
            if handler is None:
                continue
            try:
                if bits & writable:
                    handler.on_writable()
                if bits & readable and fd in handlers:
                    handler.on_readable()
            except Exception as exc:
                log.exception("purezmq: I/O handler %r failed; closing it", handler)
                self._fail(handler, exc)
        self._run_timers()
        self._run_commands()
        if self._idle:
            self._run_idle(not events)

    def _run_idle(self, idle: bool) -> None:
        """Run the deferred work if the last poll found nothing, or if it
        has waited long enough (a loop that is never idle still runs it)."""
        if not idle and self._busy_turns < _IDLE_MAX_WAIT:
            self._busy_turns += 1
            return
        self._busy_turns = 0
        _run_queued(self._idle, "deferred I/O work")

    def _drop_first_timer(self) -> None:
        """Pop the earliest timer, a cancelled one, off the heap.

        The loop does this before it computes its poll's timeout, as
        asyncio's does. A cancelled timer left at the top set that timeout:
        a connection cancels its read-ahead timer, 5 ms out, when it closes,
        so with set-ups every few hundred microseconds nearly every wait had
        a timeout of a few milliseconds, although none ran out. On the VMs
        we measure on, a wait with such a timeout is slower to wake (issue
        14, docs/benchmarks.md: CPU per set-up of both processes over ipc
        625 -> 509 µs)."""
        heapq.heappop(self._timers)
        if self._cancelled > 0:
            self._cancelled -= 1

    def _run_timers(self) -> None:
        timers = self._timers
        if not timers:
            return
        now = monotonic()
        while timers and timers[0][0] <= now:
            handle = timers[0][2]
            if handle.cancelled:
                self._drop_first_timer()
                continue
            heapq.heappop(timers)
            try:
                handle.callback()
            except Exception:
                log.exception("purezmq: timer callback %r failed", handle.callback)

    def _run_commands(self) -> None:
        _run_queued(self._commands, "I/O command")

    def _fail(self, handler: IOHandler, exc: BaseException) -> None:
        try:
            handler.on_poll_error(exc)
        except Exception:
            log.exception("purezmq: closing failed handler %r raised", handler)

    def _shutdown(self) -> None:
        # Whatever is still registered belongs to sockets that outlived term()
        # (it only stops us after they are gone); release descriptors anyway.
        for fd in list(self._handlers):
            handler = self._handlers.get(fd)
            if handler is not None:
                try:
                    handler.on_poll_error(None)
                except Exception:
                    log.exception("purezmq: closing %r at shutdown failed", handler)
        self._run_idle(True)  # the deferred work, theirs included
        self._handlers.clear()
        self._poller.close()
        self._wake.close()
        self._stopped.set()
