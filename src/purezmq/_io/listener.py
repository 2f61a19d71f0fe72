"""Listening sockets: accept connections and give each a bind-side session."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable

from .reactor import READ, Reactor

log = logging.getLogger("purezmq")

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

    def __repr__(self) -> str:
        return f"<Listener {self.endpoint}>"

    def start(self) -> None:
        self.io.register(self.fd, self, READ)

    def on_readable(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                sock, addr = self.lsock.accept()
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
