"""Polling many sockets and plain file descriptors at once.

A purezmq socket is ready when its pattern says so (`events()`); between
checks, the poll waits on each socket's FD (its mailbox eventfd, signalled
whenever readiness may have changed) together with the plain descriptors.
"""

from __future__ import annotations

import errno
import select as _select
import time
from collections.abc import Iterable
from typing import Any

from purezmq import constants as C
from purezmq.error import ZMQError

_POLLIN = int(C.POLLIN)
_POLLOUT = int(C.POLLOUT)
_POLLERR = int(C.POLLERR)

_HAVE_POLL = hasattr(_select, "poll")


def _fileno(obj: Any) -> int:
    if isinstance(obj, int):
        return obj
    fileno = getattr(obj, "fileno", None)
    if fileno is None:
        raise TypeError(f"Socket must be a purezmq Socket, an int, or have a fileno(): {obj!r}")
    fd = fileno()
    if not isinstance(fd, int):
        raise TypeError(f"fileno() of {obj!r} returned {fd!r}, not an int")
    return fd


def _fd_ready(items: list[tuple[Any, int, int]], timeout_ms: int) -> list[tuple[Any, int]]:
    """poll(2) plain descriptors: items are (object, fd, zmq flags)."""
    if not items:
        return []
    if not _HAVE_POLL:  # pragma: no cover - Windows
        r = [fd for _, fd, fl in items if fl & _POLLIN]
        w = [fd for _, fd, fl in items if fl & _POLLOUT]
        x = [fd for _, fd, fl in items if fl & _POLLERR]
        rr, ww, xx = _select.select(r, w, x, None if timeout_ms < 0 else timeout_ms / 1000)
        out = []
        for obj, fd, _ in items:
            ev = (
                (_POLLIN if fd in rr else 0)
                | (_POLLOUT if fd in ww else 0)
                | (_POLLERR if fd in xx else 0)
            )
            if ev:
                out.append((obj, ev))
        return out
    p = _select.poll()
    for _, fd, fl in items:
        mask = 0
        if fl & _POLLIN:
            mask |= _select.POLLIN | _select.POLLPRI
        if fl & _POLLOUT:
            mask |= _select.POLLOUT
        p.register(fd, mask)
    by_fd: dict[int, list[tuple[Any, int]]] = {}
    for obj, fd, fl in items:
        by_fd.setdefault(fd, []).append((obj, fl))
    result: list[tuple[Any, int]] = []
    for fd, ev in p.poll(timeout_ms):
        for obj, fl in by_fd.get(fd, []):
            zev = 0
            if ev & (_select.POLLIN | _select.POLLPRI | _select.POLLHUP):
                zev |= _POLLIN & fl
            if ev & _select.POLLOUT:
                zev |= _POLLOUT & fl
            if ev & (_select.POLLERR | _select.POLLNVAL):
                zev |= _POLLERR
            if zev:
                result.append((obj, zev))
    return result


def zmq_poll(sockets: Iterable[tuple[Any, int]], timeout: int | None = -1) -> list[tuple[Any, int]]:
    """Poll (socket-or-fd, flags) pairs; wait at most `timeout` ms (-1/None: forever).

    Returns (socket, events) for each ready item, events masked by its flags;
    for a plain descriptor (an int or an object with fileno()) the first item
    is the int fd, as in pyzmq and `select.poll`."""
    items = [(obj, int(flags)) for obj, flags in sockets]
    deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout / 1000.0
    zsocks = [(obj, fl) for obj, fl in items if hasattr(obj, "_core")]
    plain = [(_fileno(obj), fl) for obj, fl in items if not hasattr(obj, "_core")]
    fds = [(fd, fd, fl) for fd, fl in plain]
    while True:
        ready = []
        for obj, fl in zsocks:
            ev = obj._core.events() & fl
            if ev:
                ready.append((obj, ev))
        ready.extend(_fd_ready(fds, 0))
        if ready:
            return ready
        if deadline is None:
            wait_ms = -1
        else:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            wait_ms = max(1, int(remaining * 1000 + 0.999))
        waits: list[tuple[Any, int, int]] = []
        for obj, _ in zsocks:
            core = obj._core
            waits.append((obj, core.fileno(), _POLLIN))
            # Connections parked by a receive (direct read path) signal nothing:
            # wake on their data too; events() then reads them.
            waits.extend((obj, fd, _POLLIN) for fd in core.parked_fds())
        waits.extend(fds)
        if not waits:
            time.sleep(wait_ms / 1000.0 if wait_ms >= 0 else 0)
            if wait_ms < 0:
                raise ZMQError(
                    errno.EINVAL, "poll() with no sockets and no timeout would wait forever"
                )
            continue
        _fd_ready(waits, wait_ms)


class Poller:
    """Register sockets (or fds) with event flags, then `poll(timeout_ms)`."""

    def __init__(self) -> None:
        self.sockets: list[tuple[Any, int]] = []
        self._map: dict[Any, int] = {}

    def __contains__(self, socket: Any) -> bool:
        return socket in self._map

    def register(self, socket: Any, flags: int = _POLLIN | _POLLOUT) -> None:
        """Watch `socket` for `flags` (0 unregisters); re-registering modifies."""
        if flags:
            if socket in self._map:
                idx = self._map[socket]
                self.sockets[idx] = (socket, flags)
            else:
                self._map[socket] = len(self.sockets)
                self.sockets.append((socket, flags))
        elif socket in self._map:
            self.unregister(socket)

    def modify(self, socket: Any, flags: int = _POLLIN | _POLLOUT) -> None:
        self.register(socket, flags)

    def unregister(self, socket: Any) -> None:
        idx = self._map.pop(socket)
        self.sockets.pop(idx)
        for s, i in list(self._map.items()):
            if i > idx:
                self._map[s] = i - 1

    def poll(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        """Wait up to `timeout` ms (None or negative: forever); [(socket, events)]."""
        t = -1 if timeout is None or timeout < 0 else int(timeout)
        return zmq_poll(self.sockets, t)


def select(
    rlist: list[Any], wlist: list[Any], xlist: list[Any], timeout: float | None = None
) -> tuple[list[Any], list[Any], list[Any]]:
    """Like the standard `select.select`, for purezmq sockets and fds; timeout in seconds."""
    t = -1 if timeout is None or timeout < 0 else int(timeout * 1000.0)
    flags: dict[Any, int] = {}
    for s in rlist:
        flags[s] = flags.get(s, 0) | _POLLIN
    for s in wlist:
        flags[s] = flags.get(s, 0) | _POLLOUT
    for s in xlist:
        flags[s] = flags.get(s, 0) | _POLLERR
    ready = zmq_poll(list(flags.items()), t)
    # As in pyzmq: sockets come back as themselves, other objects as their fd.
    return (
        [s for s, ev in ready if ev & _POLLIN],
        [s for s, ev in ready if ev & _POLLOUT],
        [s for s, ev in ready if ev & _POLLERR],
    )
