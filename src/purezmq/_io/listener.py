"""Listening sockets: accept connections and give each a bind-side session."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable

from .reactor import READ, Reactor

log = logging.getLogger("purezmq")


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
        self._family = int(lsock.family)
        self._type = int(lsock.type)

    def __repr__(self) -> str:
        return f"<Listener {self.endpoint}>"

    def start(self) -> None:
        self.io.register(self.fd, self, READ)

    def on_readable(self) -> None:
        """Accept one connection, as libzmq's listener does per event: the
        loop is level-triggered, so any other waiting connection makes the
        next poll return at once. (Asking whether another waits cost a
        system call per connection, nearly always answered no; an accept
        that fails instead costs an exception, about 15,000 instructions
        compiled.)"""
        try:
            # socket.accept() without its two enum conversions (family and
            # type, interpreted code per connection): the C accept, then the
            # same object accept() would build.
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
