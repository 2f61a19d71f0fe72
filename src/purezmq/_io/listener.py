"""Listening sockets: accept connections and give each a bind-side session."""

from __future__ import annotations

import logging
import select
import socket
from collections.abc import Callable
from typing import Final

from .reactor import READ, Reactor

log = logging.getLogger("purezmq")

_HAVE_POLL: Final = hasattr(select, "poll")

#: Connections accepted per readiness event, so one busy listener cannot
#: starve the rest of the loop.
ACCEPT_BATCH = 64


class Listener:
    """An IOHandler for a bound, listening OS socket."""

    def __init__(
        self,
        io: Reactor,
        lsock: socket.socket,
        endpoint: str,
        on_accept: Callable[[socket.socket, str], None],
        on_accept_failed: Callable[[OSError], None],
        cleanup: Callable[[], None] | None = None,
        on_closed: Callable[[int], None] | None = None,
    ) -> None:
        self.io = io
        self.lsock = lsock
        self.fd = lsock.fileno()
        self.endpoint = endpoint
        self._on_accept = on_accept
        self._on_accept_failed = on_accept_failed
        self._cleanup = cleanup
        self._on_closed = on_closed
        self.closed = False
        self._peek: select.poll | None = None
        self._family = int(lsock.family)
        self._type = int(lsock.type)

    def __repr__(self) -> str:
        return f"<Listener {self.endpoint}>"

    def start(self) -> None:
        self.io.register(self.fd, self, READ)

    def on_readable(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                # socket.accept() without its two enum conversions (family
                # and type, interpreted code per connection): the C accept,
                # then the same object accept() would build.
                fd, addr = self.lsock._accept()  # type: ignore[attr-defined]
                sock = socket.socket(self._family, self._type, 0, fd)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                # EMFILE and friends: report, keep listening (libzmq does the same).
                self._on_accept_failed(e)
                return
            sock.setblocking(False)
            self._on_accept(sock, _peer_str(addr))
            if not self._more_waiting():
                return

    def _more_waiting(self) -> bool:
        """Is another connection waiting to be accepted? Asked with a
        zero-timeout poll rather than by an accept that fails: compiled, the
        BlockingIOError that ends every burst cost about 15,000 instructions
        (the exception, a traceback entry per frame), most connections
        arriving alone. The loop is level-triggered: any left are seen next."""
        peek = self._peek
        if peek is None:
            if not _HAVE_POLL:  # pragma: no cover - Windows: accept until EAGAIN
                return True
            peek = self._peek = select.poll()
            peek.register(self.fd, select.POLLIN)
        return bool(peek.poll(0))

    def on_writable(self) -> None:  # pragma: no cover - never registered for writing
        pass

    def on_poll_error(self, exc: BaseException | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop listening (I/O thread). Accepted connections are not affected."""
        if self.closed:
            return
        self.closed = True
        self.io.unregister(self.fd)
        try:
            self.lsock.close()
        finally:
            if self._cleanup is not None:
                self._cleanup()
            if self._on_closed is not None:
                self._on_closed(self.fd)


def _peer_str(addr: object) -> str:
    if isinstance(addr, tuple) and len(addr) >= 2:
        return str(addr[0])
    return str(addr) if addr else ""
