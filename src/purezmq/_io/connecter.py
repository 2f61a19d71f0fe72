"""Outgoing connections: connect, hand over to an engine, reconnect when lost.

One Connecter serves one connect-side session for its whole life. It opens a
non-blocking OS socket, waits for the connect to complete (POLLOUT, then
SO_ERROR), starts a StreamEngine, and when that engine is lost asks the
session how long to wait before trying again (RECONNECT_IVL with back-off).
"""

from __future__ import annotations

import errno
import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from purezmq import constants as C
from purezmq._transport.address import (
    AddressError,
    Endpoint,
    Tuning,
    ipc_path,
    resolve_tcp,
    tune_socket,
)

from .engine import StreamEngine
from .engine_core import EngineCore
from .reactor import WRITE, Reactor, Timer

if TYPE_CHECKING:
    from purezmq._core.session import Session

log = logging.getLogger("purezmq")

_IN_PROGRESS = (errno.EINPROGRESS, errno.EAGAIN, errno.EWOULDBLOCK, errno.EALREADY)


class Connecter:
    """Keeps one connect-side session connected (an IOHandler while connecting)."""

    def __init__(
        self,
        io: Reactor,
        session: Session,
        endpoint: Endpoint,
        *,
        ipv6: bool,
        tuning: Tuning,
        on_finished: Callable[[Connecter], None],
    ) -> None:
        self.io = io
        self.session = session
        self.endpoint = endpoint
        self.ipv6 = ipv6
        self.tuning = tuning
        self._on_finished = on_finished
        self._sock: socket.socket | None = None
        self._timer: Timer | None = None
        self.engine: StreamEngine | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"<Connecter {self.endpoint}>"

    # ------------------------------------------------------------ I/O thread
    def start(self, delay: float = 0.0) -> None:
        if delay > 0:
            self._timer = self.io.call_later(delay, self._attempt)
        else:
            self._attempt()

    def _attempt(self) -> None:
        self._timer = None
        if self._closed or self.session.done:
            self._finish()
            return
        try:
            sock, target = self._open_socket()
        except (AddressError, OSError) as e:
            log.debug("purezmq: connect to %s failed: %s", self.endpoint, e)
            self._retry()
            return
        self._sock = sock
        err = sock.connect_ex(target)
        if err == 0:
            self._connected()
        elif err in _IN_PROGRESS:
            self.session.monitor.event(C.EVENT_CONNECT_DELAYED, err, str(self.endpoint))
            self.io.register(sock.fileno(), self, WRITE)
        else:
            self._drop_socket()
            self._retry()

    def _open_socket(self) -> tuple[socket.socket, Any]:
        ep = self.endpoint
        if ep.protocol == "tcp":
            addr = resolve_tcp(ep.address, bind=False, ipv6=self.ipv6)
            sock = socket.socket(addr.family, socket.SOCK_STREAM)
            try:
                sock.setblocking(False)
                tune_socket(sock, self.tuning)
                if addr.source is not None:
                    sock.bind(addr.source)
            except OSError:
                sock.close()
                raise
            return sock, addr.sockaddr
        path = ipc_path(ep.address, bind=False)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        tune_socket(sock, self.tuning)
        return sock, path

    def on_writable(self) -> None:
        sock = self._sock
        if sock is None:
            return
        self.io.unregister(sock.fileno())
        err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            self._drop_socket()
            self._retry()
        else:
            self._connected()

    def on_readable(self) -> None:  # pragma: no cover - only POLLOUT is requested
        self.on_writable()

    def on_poll_error(self, exc: BaseException | None) -> None:
        self._drop_socket()
        if exc is None:
            self.close()
        else:
            self._retry()

    def _connected(self) -> None:
        sock, self._sock = self._sock, None
        assert sock is not None
        if self._closed or self.session.done:
            sock.close()
            self._finish()
            return
        peer = _peer_name(sock)
        engine = StreamEngine(self.io, sock, self.session, peer, self._engine_lost)
        self.engine = engine
        engine.start()

    def _engine_lost(self, engine: EngineCore) -> None:
        self.engine = None
        delay = self.session.connection_lost()
        if delay is None or self._closed:
            self._finish()
            return
        self._retry(delay)

    def _retry(self, delay: float | None = None) -> None:
        if self._closed or self.session.done:
            self._finish()
            return
        if delay is None:
            delay = self.session.next_reconnect_delay()
        if delay < 0:  # RECONNECT_IVL = -1: never reconnect
            self.session.finish()
            self._finish()
            return
        self.session.monitor.event(
            C.EVENT_CONNECT_RETRIED, int(delay * 1000), str(self.endpoint)
        )
        self._timer = self.io.call_later(delay, self._attempt)

    def _drop_socket(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            self.io.unregister(sock.fileno())
            sock.close()

    def move_to(self, new: Reactor) -> None:
        """Keep this endpoint connected from another reactor (see
        StreamEngine.move_to). Call on the current reactor's thread."""
        if self._closed or new is self.io:
            return
        retry = self._timer is not None or self._sock is not None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._drop_socket()  # a connect in progress starts over over there
        if self.engine is not None:
            self.engine.move_to(new)
        self.io = new
        if retry:
            new.call_soon(self._attempt)

    def close(self) -> None:
        """Stop connecting and close any live connection (I/O thread)."""
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._drop_socket()
        engine = self.engine
        if engine is not None:
            engine.close()
        else:
            self._finish()

    def _finish(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._on_finished(self)


def _peer_name(sock: socket.socket) -> str:
    try:
        addr = sock.getpeername()
    except OSError:
        return ""
    if isinstance(addr, tuple):
        return str(addr[0])
    return str(addr)
