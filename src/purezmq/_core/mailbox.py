"""Mailbox: how other threads reach a socket's owning thread.

The cross-thread half of `SocketCore`, kept in a module of its own as the
receiving half is (`receiving.py`). Other threads - the I/O thread, inproc
peers - `post` a command object to a deque and, for the first command
after a drain, signal the socket's `Waiter` (whose descriptor is also the
socket's FD option). The owner runs the commands at the start of every
operation and whenever a blocked call wakes (`SocketCore.process_commands`,
which lowers the flag here first).

The flag and the signal move together under the post lock: a drain that
ran between a poster raising the flag and writing the signal would leave
the descriptor readable with the flag down, and every wait would return
at once (7237efe). Writing the signal after the lock is released looks
cheaper and is not (issue 14: the woken owner blocking on this lock hands
the GIL straight back to the poster, which finishes its turn; without the
convoy, set-ups were slower).

The lock is taken through its `acquire` and `release` bound once: on the
paths every message takes, a `with` statement on a lock is about 1,200
instructions compiled, the bound methods in `try`/`finally` about 670.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .receiving import Receiver

if TYPE_CHECKING:
    from purezmq._routing.patterns.base import Pattern

    from .commands import Command
    from .protocols import Waiter


class Mailbox(Receiver):
    """A socket's commands from other threads and the signal that wakes it."""

    def __init__(self, pattern: Pattern, waiter: Waiter) -> None:
        super().__init__(pattern)
        self._post_lock = lock = threading.Lock()
        self._post_acquire: Callable[[], bool] = lock.acquire
        self._post_release: Callable[[], None] = lock.release
        self._waiter = waiter
        self._signaled = self._held = False
        #: The FD was given out (`fileno`): close() does not recycle the waiter.
        self._fd_given = False
        self._closed = False
        #: How other threads wake the owner: the waiter's descriptor by default;
        #: the asyncio facade installs a loop callback instead (see post()).
        self._wake: Callable[[], None] = waiter.signal

    def post(self, cmd: Command) -> None:
        """Queue a command for the owning thread and wake it. Any thread."""
        self._post_acquire()
        try:
            if self._closed:
                return
            self._mailbox.append(cmd)
            if not self._signaled:
                self._signaled = True
                self._wake()
        finally:
            self._post_release()

    def _lower_flag(self) -> None:
        """Drain the signal and lower the flag (owning thread, flag raised)."""
        self._post_acquire()
        try:
            if self._held:  # nobody signalled: see hold_wake()
                self._held = False
            else:
                self._waiter.drain()
            self._signaled = False
        finally:
            self._post_release()

    def hold_wake(self) -> None:
        """Posts until the next `process_commands` need not signal: the owning
        thread runs it before it returns (connect(): the new session posts its
        pipe to us, an eventfd write and read per connect for nothing)."""
        with self._post_lock:
            if not self._signaled:
                self._signaled = self._held = True

    def wake(self) -> None:
        """Make blocked calls re-check their condition (context term), raising the
        flag as `post` does: an FD left readable after a drain makes loops spin."""
        with self._post_lock:
            if not self._closed:  # a closed socket's waiter may serve another by now
                self._signaled = True
                self._held = False  # this one does signal: the next drain must read it
                self._wake()

    def set_waker(self, wake: Callable[[], None]) -> None:
        """Replace how the owner is woken (the asyncio facade: a loop callback)."""
        self._wake = wake

    def signal_fd(self) -> None:
        """Make the FD readable (for wakers that also serve FD users)."""
        if not self._closed:
            self._waiter.signal()
