"""What the datagram transports (udp://, pgm://, epgm://) share on a reactor.

libzmq plugs these endpoints straight into the socket: no handshake, no
connection, no reconnection. Here such an endpoint is a pipe pair like
inproc's: the socket holds one end, an engine the other, and the engine
moves messages between the pipe and one OS socket on the reactor (the I/O
thread or the asyncio loop). This base class is that engine's life cycle
and its PipeOwner/IOHandler seams; a transport adds what it does with a
datagram (`_pump`, `on_readable`).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from purezmq._routing.pipe import Pipe, pipepair

from .reactor import READ, Reactor

if TYPE_CHECKING:
    from purezmq._core.protocols import Driver, InprocPeer

log = logging.getLogger("purezmq")


class DatagramEngine:
    """One datagram endpoint: an IOHandler for its OS socket and the owner of
    the engine end of the socket's pipe. Reactor thread unless said."""

    #: Does the engine read its OS socket (a send-only udp endpoint does not)?
    listens = True

    def __init__(self, io: Reactor, sock: socket.socket) -> None:
        self.io = io
        self.sock = sock
        self.fd = sock.fileno()
        self.pipe: Pipe | None = None
        self.closed = False
        #: Messages dropped: received while the pipe was at its HWM (a
        #: datagram cannot be paused), or malformed.
        self.dropped = 0
        self._registered = False

    # ------------------------------------------------------------ life
    def start(self) -> None:
        """Watch the socket (if it listens) and send what already waits."""
        if self.closed:
            return
        if self.listens:
            self.io.register(self.fd, self, READ)
            self._registered = True
        self._pump()

    def _call(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the reactor: now when on its thread (any thread)."""
        if self.closed:
            return
        if self.io.in_thread():
            fn()
        else:
            self.io.call_soon(fn)

    def close(self) -> None:
        """Stop; the pipe is closed so that the socket forgets it."""
        if self.closed:
            return
        self.closed = True
        self._stopping()
        if self._registered:
            try:
                self.io.unregister(self.fd)
            except (KeyError, ValueError, OSError):
                pass
        self.sock.close()
        pipe = self.pipe
        if pipe is not None:
            pipe.close()

    def _stopping(self) -> None:
        """Hook: cancel what the transport keeps running (timers)."""

    def _finish(self) -> None:
        """The socket ended the endpoint: what it sent before goes out, then
        the OS socket is closed."""
        self._pump()
        self.close()

    def _pump(self) -> None:
        """Move what waits between the pipe and the OS socket."""
        raise NotImplementedError

    # ------------------------------------------------------------ PipeOwner
    def read_activated(self, pipe: Pipe) -> None:
        self._call(self._pump)

    def write_activated(self, pipe: Pipe) -> None:
        """Nothing waits for room: what met the HWM was dropped."""

    def pipe_closed(self, pipe: Pipe) -> None:
        """The socket ended the endpoint (disconnect, unbind, close)."""
        self._call(self._finish)

    def hiccuped(self, pipe: Pipe) -> None:  # pragma: no cover - never reconnects
        """Datagram endpoints never reconnect."""

    # ------------------------------------------------------------ IOHandler
    def on_readable(self) -> None:
        raise NotImplementedError

    def on_writable(self) -> None:  # pragma: no cover - never registered for writing
        """Datagrams are sent at once: a full kernel buffer drops them."""

    def on_poll_error(self, exc: BaseException | None) -> None:
        log.debug("%r: poll error %s", self, exc)
        self.close()


class EngineHandle:
    """What `Endpoints` keeps of a datagram endpoint (the ConnectHandle seam)."""

    def __init__(self, driver: Driver, engine: DatagramEngine) -> None:
        self._driver = driver
        self.engine = engine

    @property
    def driver(self) -> Driver:
        return self._driver

    def close(self) -> None:
        engine = self.engine
        if engine.io.in_thread() or not engine.io.alive:
            engine.close()
        else:
            engine.io.call_soon(engine.close)

    def move_to(self, driver: Driver) -> None:
        """Datagram endpoints stay on the reactor they started on: there is
        nothing to hand over (datagrams go out as soon as they are written,
        and nothing unsent is worth lingering for)."""


def attach(
    engine: DatagramEngine,
    owner: InprocPeer,
    label: str,
    hwms: tuple[int, int],
    *,
    all_groups: bool,
    locally_initiated: bool,
) -> Pipe:
    """Give `owner` (the socket) its end of a pipe pair whose other end is
    `engine`'s, and start the engine; returns the socket's end.

    `hwms`: (SNDHWM, RCVHWM) of the socket's end. `all_groups`: the socket's
    end takes every group or topic, unasked (no subscription travels back
    over a datagram transport: libzmq's subscribe_to_all)."""
    ours, theirs = pipepair(None, engine)
    ours.set_hwms(*hwms)
    ours.label = theirs.label = label
    ours.all_groups = all_groups
    engine.pipe = theirs
    owner.attach_inproc_pipe(ours, locally_initiated=locally_initiated)
    engine.io.call_soon(engine.start)
    return ours
