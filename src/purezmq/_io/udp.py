"""The udp:// transport on a reactor (I/O thread or asyncio loop).

As libzmq's ``udp_engine_t``: no handshake, no connection, one datagram per
message. The endpoint is a pipe pair like inproc's: the socket holds one
end, a `UdpEngine` the other, and the engine moves messages between the
pipe and one OS socket (see `purezmq._transport.udp` for the addresses and
the datagram format).

- RADIO (connect): each ``[group, body]`` message read from the pipe is
  sent as one datagram to the target. The socket's end of the pipe is marked
  `Pipe.all_groups`: no JOIN ever comes back over udp, so RADIO sends every
  group and DISH filters (libzmq's ``subscribe_to_all``).
- DISH (bind, or connect): each datagram becomes ``[group, body]``; the
  JOIN/LEAVE messages DISH writes are read and dropped (the kernel already
  delivers the whole multicast group).
- DGRAM (bind or connect): both ways, ``[address, body]`` where address is
  the peer's ``"a.b.c.d:port"``.

A datagram that finds the pipe at its HWM is dropped and counted
(`dropped`): udp cannot be paused. Errors sending (ENOBUFS, no route) drop
that datagram, logged at DEBUG; datagrams are best-effort by nature.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from purezmq._routing.pipe import Msg, Pipe, pipepair
from purezmq._transport.address import Endpoint
from purezmq._transport.udp import UdpConfig, UdpPlan, open_udp, parse_udp

from .reactor import READ, Reactor

if TYPE_CHECKING:
    from purezmq._core.protocols import Driver, InprocPeer

log = logging.getLogger("purezmq")

#: Datagrams read (or messages sent) per turn, for fairness with other endpoints.
BATCH = 256


class UdpEngine:
    """One udp endpoint: an IOHandler for its OS socket and the owner of the
    engine end of the socket's pipe."""

    def __init__(self, io: Reactor, sock: socket.socket, plan: UdpPlan, label: str) -> None:
        self.io = io
        self.sock = sock
        self.fd = sock.fileno()
        self.plan = plan
        self.label = label
        self.pipe: Pipe | None = None
        self.closed = False
        #: Datagrams received while the pipe was full, or that were malformed.
        self.dropped = 0

    def __repr__(self) -> str:
        return f"<UdpEngine {self.label}>"

    # ------------------------------------------------------------ life
    def start(self) -> None:
        """Reactor thread: watch the socket (if it receives), send what waits."""
        if self.closed:
            return
        if self.plan.codec.receives:
            self.io.register(self.fd, self, READ)
        self._pump()

    def _call(self, fn: Callable[[], None]) -> None:
        if self.closed:
            return
        if self.io.in_thread():
            fn()
        else:
            self.io.call_soon(fn)

    def close(self) -> None:
        """Reactor thread: stop; the pipe is closed so the socket forgets it."""
        if self.closed:
            return
        self.closed = True
        if self.plan.codec.receives:
            try:
                self.io.unregister(self.fd)
            except (KeyError, ValueError, OSError):
                pass
        self.sock.close()
        pipe = self.pipe
        if pipe is not None:
            pipe.close()

    # ------------------------------------------------------------ PipeOwner
    def read_activated(self, pipe: Pipe) -> None:
        self._call(self._pump)

    def write_activated(self, pipe: Pipe) -> None:
        """Nothing waits: what met the HWM was dropped."""

    def pipe_closed(self, pipe: Pipe) -> None:
        """The socket ended the endpoint (disconnect, unbind, close): what it
        sent before goes out, then the socket is closed."""
        self._call(self._finish)

    def hiccuped(self, pipe: Pipe) -> None:  # pragma: no cover - never reconnects
        """udp never reconnects."""

    def _finish(self) -> None:
        self._pump()
        self.close()

    # ------------------------------------------------------------ IOHandler
    def on_readable(self) -> None:
        codec = self.plan.codec
        pipe = self.pipe
        for _ in range(BATCH):
            try:
                data, peer = self.sock.recvfrom(65535)  # whole, where libzmq cuts at 8 KiB
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:  # e.g. ECONNREFUSED from an earlier send
                log.debug("%r: receive failed: %s", self, e)
                continue
            msg = codec.decode(data, peer)
            if msg is None or pipe is None or not pipe.write(msg):
                self.dropped += 1

    def on_writable(self) -> None:  # pragma: no cover - never registered for writing
        """Datagrams are sent at once (a full kernel buffer drops, as libzmq)."""

    def on_poll_error(self, exc: BaseException | None) -> None:
        log.debug("%r: poll error %s", self, exc)
        self.close()

    # ------------------------------------------------------------ sending
    def _pump(self) -> None:
        """Send (or, for a receive-only endpoint, drop) what the socket wrote."""
        pipe = self.pipe
        if self.closed or pipe is None:
            return
        codec = self.plan.codec
        for _ in range(BATCH):
            msg = pipe.read()
            if msg is None:
                return
            if codec.sends:
                self._send(msg)
        self.io.call_soon(self._pump)  # more is waiting: let others run first

    def _send(self, msg: Msg) -> None:
        out = self.plan.codec.encode(msg, self.plan.address.target)
        if out is None:
            log.debug("%r: dropped a message that is not one datagram", self)
            return
        data, dest = out
        try:
            self.sock.sendto(data, dest)
        except OSError as e:
            log.debug("%r: send to %s failed: %s", self, dest, e)


class UdpHandle:
    """What `Endpoints` keeps of a udp endpoint (the ConnectHandle seam)."""

    def __init__(self, driver: Driver, engine: UdpEngine) -> None:
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
        """udp endpoints stay on the reactor they started on (nothing to
        hand over: datagrams are sent as soon as they are written)."""


def open_udp_endpoint(
    driver: Driver, io: Reactor, owner: InprocPeer, endpoint: Endpoint, config: UdpConfig
) -> tuple[UdpHandle, Pipe]:
    """Resolve and open the OS socket now (errors come back to bind() or
    connect()), give `owner` its end of a pipe pair and start the engine."""
    plan = config.plan(parse_udp(endpoint.address, config.bind))
    sock = open_udp(
        plan.address,
        send=plan.codec.sends,
        recv=plan.codec.receives,
        hops=config.hops,
        loop=config.loop,
    )
    engine = UdpEngine(io, sock, plan, str(endpoint))
    ours, theirs = pipepair(None, engine)
    ours.set_hwms(config.sndhwm, config.rcvhwm)
    ours.label = theirs.label = str(endpoint)
    ours.all_groups = True  # RADIO sends every group: no JOIN comes back over udp
    engine.pipe = theirs
    owner.attach_inproc_pipe(ours, locally_initiated=not config.bind)
    io.call_soon(engine.start)
    return UdpHandle(driver, engine), ours
