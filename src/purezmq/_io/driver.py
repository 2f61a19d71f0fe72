"""Stream drivers: how a Context runs tcp and ipc endpoints on a reactor.

A driver turns the socket layer's bind/connect requests into listeners,
connecters and engines on its reactor - the Context's I/O thread, or a
running asyncio loop. Binding happens in the caller's thread (so EADDRINUSE
and friends come back from bind() itself, as in libzmq); everything after
that runs on the reactor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import threading
from collections.abc import Callable

from purezmq import constants as C
from purezmq._core.protocols import Driver, InprocPeer, SessionOwner
from purezmq._core.session import Session
from purezmq._core.session_config import SessionConfig
from purezmq._mypyc import mypyc_attr
from purezmq._routing.pipe import Pipe
from purezmq._transport.address import (
    AddressError,
    Endpoint,
    Tuning,
    ipc_path,
    ipc_uri,
    resolve_tcp,
    tune_socket,
)
from purezmq._transport.pgm import MulticastConfig
from purezmq._transport.udp import UdpConfig

from .connecter import Connecter
from .datagram import EngineHandle
from .engine import StreamEngine
from .engine_core import EngineCore
from .listener import Listener
from .pgm import open_multicast
from .reactor import Reactor
from .udp import open_udp_endpoint

_EVENT_ACCEPT_FAILED = int(C.EVENT_ACCEPT_FAILED)
_EVENT_CLOSED = int(C.EVENT_CLOSED)

#: How long a caller waits for work it hands to the reactor (`run_and_wait`):
#: closing a listener takes microseconds; the limit only matters if the
#: reactor is wedged.
RUN_AND_WAIT_TIMEOUT = 5.0


def _nothing_to_do(connecter: Connecter) -> None:
    """A connect's connecter needs no bookkeeping when it ends (a module
    function: a lambda in `connect` made a closure object per connect)."""


def _stream_driver(driver: Driver) -> StreamDriver:
    """Endpoints move only between stream drivers (they share the engine)."""
    if not isinstance(driver, StreamDriver):
        raise TypeError(f"cannot move a connection to {driver!r}")
    return driver


class BoundEndpoint:
    """A listening endpoint and the connections accepted through it (a `BoundHandle`)."""

    def __init__(self, driver: StreamDriver, uri: str) -> None:
        self.driver: StreamDriver = driver
        self.uri = uri
        self.listener: Listener | None = None
        self._engines: dict[Session, StreamEngine] = {}
        self._lock = threading.Lock()

    @property
    def listener_fd(self) -> int:
        listener = self.listener
        return listener.fd if listener is not None else -1

    def add(self, session: Session, engine: StreamEngine) -> None:
        with self._lock:
            self._engines[session] = engine

    def remove(self, session: Session) -> None:
        with self._lock:
            self._engines.pop(session, None)

    def close(self) -> None:
        """Stop listening and end the connections accepted here (unbind)."""
        self.driver.run_and_wait(self._close)

    def move_sessions(self, driver: Driver) -> None:
        """Continue the accepted connections on `driver`'s reactor (call on ours)."""
        io = _stream_driver(driver).io
        with self._lock:
            engines = list(self._engines.values())
        for engine in engines:
            engine.move_to(io)

    def stop_listening(self) -> None:
        """Stop accepting; established connections stay (socket close lingers them).

        Returns once the listening socket is closed (and an ipc path removed), so
        the same endpoint can be bound again straight away, as with libzmq."""
        listener = self.listener
        if listener is not None:
            self.driver.run_and_wait(listener.close)

    def _close(self) -> None:
        if self.listener is not None:
            self.listener.close()
        with self._lock:
            sessions = list(self._engines)
        for s in sessions:
            s.finish()


class ConnectHandle:
    """The connecter serving one connect-side session (a `ConnectHandle`)."""

    def __init__(self, driver: StreamDriver, connecter: Connecter) -> None:
        self.driver: StreamDriver = driver
        self.connecter = connecter
        self.uri = str(connecter.endpoint)

    def close(self) -> None:
        self.driver.io.call_soon(self.connecter.close)

    def move_to(self, driver: Driver) -> None:
        """Keep this endpoint going on `driver`'s reactor (call on ours)."""
        target = _stream_driver(driver)
        self.connecter.move_to(target.io)
        self.driver = target


@mypyc_attr(allow_interpreted_subclasses=True)  # ThreadedDriver, AsyncioDriver
class StreamDriver:
    """Runs tcp/ipc endpoints on one reactor (see the module docstring)."""

    def __init__(self, io: Reactor) -> None:
        self.io = io

    def stop(self, timeout: float | None = None) -> None:
        """Release the reactor's resources (subclasses that own one)."""

    def run_and_wait(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the I/O thread and wait for it (directly if already there),
        at most RUN_AND_WAIT_TIMEOUT seconds.

        The limit is a constant, not a defaulted parameter, on purpose: this
        class is compiled with interpreted subclasses (ThreadedDriver,
        AsyncioDriver), and mypyc's glue for such a subclass passes a missing
        float default through as 0.0 (it tests the old -113.0 marker, not the
        bitmap the compiled caller sets), so compiled callers got a wait of 0 s
        and close() returned before the listener was closed: a socket closed
        and bound again at once found its address in use."""
        if self.io.in_thread() or not self.io.alive:
            fn()
            return
        done = threading.Event()

        def call() -> None:
            try:
                fn()
            finally:
                done.set()

        self.io.call_soon(call)
        done.wait(RUN_AND_WAIT_TIMEOUT)

    # ------------------------------------------------------------ bind
    def bind(
        self,
        owner: SessionOwner,
        endpoint: Endpoint,
        make_config: Callable[[str], SessionConfig],
        *,
        ipv6: bool,
        backlog: int,
        tuning: Tuning,
    ) -> BoundEndpoint:
        """Bind and listen now (raising AddressError/OSError), accept on the I/O thread."""
        cleanup: Callable[[], None] | None = None
        if endpoint.protocol == "tcp":
            addr = resolve_tcp(endpoint.address, bind=True, ipv6=ipv6)
            lsock = socket.socket(addr.family, socket.SOCK_STREAM)
            try:
                lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if addr.family == socket.AF_INET6:
                    lsock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                lsock.bind(addr.sockaddr)
                lsock.listen(backlog)
            except OSError:
                lsock.close()
                raise
            uri = addr.uri(lsock.getsockname()[1])
        else:
            path = ipc_path(endpoint.address, bind=True)
            lsock = _bind_ipc(path, backlog)
            uri = ipc_uri(path)
            cleanup = _ipc_cleanup(path, wildcard=endpoint.address == "*")
        lsock.setblocking(False)
        bound = BoundEndpoint(self, uri)
        config = make_config(uri)

        monitor = owner.monitor

        def on_accept(sock: socket.socket, peer: str) -> None:
            tune_socket(sock, tuning)
            session = Session(owner, config)

            def on_lost(engine: EngineCore) -> None:
                session.connection_lost()

            session.on_done = bound.remove
            engine = StreamEngine(self.io, sock, session, peer, on_lost)
            bound.add(session, engine)
            owner.session_started(session)
            engine.start()

        def on_accept_failed(exc: OSError) -> None:
            monitor.event(_EVENT_ACCEPT_FAILED, exc.errno or 0, uri)

        def on_closed(fd: int) -> None:
            monitor.event(_EVENT_CLOSED, fd, uri)

        listener = Listener(
            self.io, lsock, uri, on_accept, on_accept_failed, cleanup, on_closed=on_closed
        )
        bound.listener = listener
        self.io.call_soon(listener.start)
        return bound

    # ------------------------------------------------------------ connect
    def connect(
        self,
        session: Session,
        endpoint: Endpoint,
        *,
        ipv6: bool,
        tuning: Tuning,
    ) -> ConnectHandle:
        """Start connecting `session` to `endpoint` (returns at once)."""
        connecter = Connecter(
            self.io,
            session,
            endpoint,
            ipv6=ipv6,
            tuning=tuning,
            on_finished=_nothing_to_do,
        )
        self.io.call_soon(connecter.start)
        return ConnectHandle(self, connecter)

    # ------------------------------------------------------------ pgm/epgm
    def multicast(
        self, owner: InprocPeer, endpoint: Endpoint, config: MulticastConfig
    ) -> EngineHandle:
        """Open a pgm/epgm endpoint (see purezmq._io.pgm)."""
        return open_multicast(self, self.io, owner, endpoint, config)

    def udp(
        self, owner: InprocPeer, endpoint: Endpoint, config: UdpConfig
    ) -> tuple[EngineHandle, Pipe]:
        """Open a udp endpoint (see purezmq._io.udp)."""
        return open_udp_endpoint(self, self.io, owner, endpoint, config)


def _bind_ipc(path: str, backlog: int) -> socket.socket:
    """Bind an AF_UNIX listener. A leftover socket file nobody listens on is
    replaced (as libzmq does); a live one is EADDRINUSE."""
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            lsock.bind(path)
        except OSError as e:
            if e.errno != errno.EADDRINUSE or path.startswith("\0") or _ipc_alive(path):
                raise
            os.unlink(path)
            lsock.bind(path)
        lsock.listen(backlog)
    except OSError:
        lsock.close()
        raise
    return lsock


def _ipc_alive(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(0.5)
        probe.connect(path)
    except OSError:
        return False
    else:
        return True
    finally:
        probe.close()


def _ipc_cleanup(path: str, *, wildcard: bool) -> Callable[[], None] | None:
    if path.startswith("\0"):
        return None

    def cleanup() -> None:
        with contextlib.suppress(OSError):
            os.unlink(path)
        if wildcard:
            with contextlib.suppress(OSError):
                os.rmdir(os.path.dirname(path))

    return cleanup


__all__ = ["AddressError", "BoundEndpoint", "ConnectHandle", "StreamDriver"]
