"""Sockets that several threads may use at once: libzmq's draft types.

libzmq promises that CLIENT, SERVER, RADIO, DISH, SCATTER, GATHER, PEER
and CHANNEL sockets may be shared between threads: every call takes the
socket's mutex, and a blocking call waits with the mutex released (a
condition variable), so one thread blocked in ``recv`` does not stop another
from sending. Their messages are single-part, so no call leaves half a
message behind for another thread to trip over.

purezmq's socket core is single-threaded by design (one owner thread, see
docs/design.md), so `ThreadSafeSocket` does what libzmq does above it:

- every call runs under one lock, and blocking calls run *non-blocking*
  under it;
- when a blocking call gets EAGAIN it waits with the lock released. One
  waiting thread watches the socket's descriptor (the core signals it when
  a pipe has news: a message arrived, room freed up); the others wait on a
  condition that every completed call notifies, since a call in one thread
  may drain the descriptor's signal that another was waiting for. Waits are
  cut into slices of at most 50 ms as a safety net, never as the mechanism:
  a message normally wakes a waiter at once.

`Socket` picks this class for the thread-safe types by itself (see its
``__new__``); ``send`` and ``recv`` then skip the compiled fast path.
"""

from __future__ import annotations

import errno
import select
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from purezmq import constants as C
from purezmq.error import ZMQError, raise_errno

from .socket import Socket

_NOBLOCK = int(C.NOBLOCK)
_SLICE = 0.05
_R = TypeVar("_R")


class _Guard:
    """The lock and the waiting protocol of one thread-safe socket."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # connect_peer calls get and connect
        self.changed = threading.Condition(self.lock)
        #: A thread is waiting on the socket's descriptor (only one does).
        self.fd_waiter = False

    def call(self, op: Callable[[], _R]) -> _R:
        """A non-blocking call under the lock."""
        with self.lock:
            try:
                return op()
            finally:
                self.changed.notify_all()

    def blocking(
        self, sock: Socket, op: Callable[[int], _R], flags: int, timeout_option: int
    ) -> _R:
        """`op(flags | NOBLOCK)` until it succeeds, waiting between tries with
        the lock released; EAGAIN at once with NOBLOCK, or after the socket's
        SNDTIMEO/RCVTIMEO (`timeout_option`)."""
        deadline: float | None = None
        with self.lock:
            while True:
                try:
                    result = op(flags | _NOBLOCK)
                except ZMQError as e:
                    if e.errno != errno.EAGAIN or flags & _NOBLOCK:
                        self.changed.notify_all()
                        raise
                else:
                    self.changed.notify_all()
                    return result
                now = time.monotonic()
                if deadline is None:
                    timeout_ms = int(sock._core.getsockopt(timeout_option))
                    deadline = float("inf") if timeout_ms < 0 else now + timeout_ms / 1000.0
                remaining = deadline - now
                if remaining <= 0:
                    raise_errno(errno.EAGAIN)
                self._wait(sock, min(remaining, _SLICE))

    def _wait(self, sock: Socket, timeout: float) -> None:
        """Wait (lock held on entry and exit) for the socket to have news."""
        if self.fd_waiter:
            self.changed.wait(timeout)
            return
        self.fd_waiter = True
        fd = sock._core.fileno()
        self.lock.release()
        try:
            select.select([fd], [], [], timeout)
        except (OSError, ValueError):
            pass  # closed by another thread: the next try raises ENOTSOCK
        finally:
            self.lock.acquire()
            self.fd_waiter = False
        self.changed.notify_all()  # let another thread take the descriptor


class ThreadSafeSocket(Socket):
    """A `Socket` whose calls may come from several threads (module doc)."""

    _guard: _Guard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_guard", _Guard())

    def send(
        self,
        data: Any,
        flags: int = 0,
        copy: object = True,
        track: object = False,
        routing_id: object = None,
        group: object = None,
    ) -> Any:
        def op(f: int) -> Any:
            return Socket.send(self, data, f, copy, track, routing_id, group)

        return self._guard.blocking(self, op, flags, C.SNDTIMEO)

    def recv(self, flags: int = 0, copy: object = True, track: object = False) -> Any:
        return self._guard.blocking(
            self, lambda f: Socket.recv(self, f, copy, track), flags, C.RCVTIMEO
        )

    def send_multipart(
        self, msg_parts: Any, flags: int = 0, copy: bool = True, track: bool = False, **kw: Any
    ) -> Any:
        def op(f: int) -> Any:
            return Socket.send_multipart(self, msg_parts, f, copy, track, **kw)

        return self._guard.blocking(self, op, flags, C.SNDTIMEO)

    def recv_multipart(self, flags: int = 0, copy: bool = True, track: bool = False) -> list[Any]:
        return self._guard.blocking(
            self, lambda f: Socket.recv_multipart(self, f, copy, track), flags, C.RCVTIMEO
        )

    def recv_into(self, buffer: Any, /, *, nbytes: int = 0, flags: int = 0) -> int:
        return self._guard.blocking(
            self,
            lambda f: Socket.recv_into(self, buffer, nbytes=nbytes, flags=f),
            flags,
            C.RCVTIMEO,
        )

    def join(self, group: str | bytes) -> None:
        self._guard.call(lambda: Socket.join(self, group))

    def leave(self, group: str | bytes) -> None:
        self._guard.call(lambda: Socket.leave(self, group))

    def connect_peer(self, addr: str) -> int:
        return self._guard.call(lambda: Socket.connect_peer(self, addr))

    def bind(self, addr: str) -> Any:
        return self._guard.call(lambda: Socket.bind(self, addr))

    def connect(self, addr: str) -> Any:
        return self._guard.call(lambda: Socket.connect(self, addr))

    def unbind(self, addr: str) -> None:
        self._guard.call(lambda: Socket.unbind(self, addr))

    def disconnect(self, addr: str) -> None:
        self._guard.call(lambda: Socket.disconnect(self, addr))

    def set(self, option: int, optval: Any) -> None:
        self._guard.call(lambda: Socket.set(self, option, optval))

    def get(self, option: int) -> Any:
        return self._guard.call(lambda: Socket.get(self, option))

    def close(self, linger: int | None = None) -> None:
        guard = getattr(self, "_guard", None)  # __del__ of a half-made socket
        if guard is None:
            Socket.close(self, linger)
            return
        guard.call(lambda: Socket.close(self, linger))
