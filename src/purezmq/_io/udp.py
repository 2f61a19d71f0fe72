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
from typing import TYPE_CHECKING

from purezmq._routing.pipe import Msg, Pipe
from purezmq._transport.address import Endpoint
from purezmq._transport.udp import UdpConfig, UdpPlan, open_udp, parse_udp

from .datagram import DatagramEngine, EngineHandle, attach
from .reactor import Reactor

if TYPE_CHECKING:
    from purezmq._core.protocols import Driver, InprocPeer

log = logging.getLogger("purezmq")

#: Datagrams read (or messages sent) per turn, for fairness with other endpoints.
BATCH = 256


class UdpEngine(DatagramEngine):
    """One udp endpoint (see `DatagramEngine`)."""

    def __init__(self, io: Reactor, sock: socket.socket, plan: UdpPlan, label: str) -> None:
        super().__init__(io, sock)
        self.plan = plan
        self.label = label
        self.listens = plan.codec.receives

    def __repr__(self) -> str:
        return f"<UdpEngine {self.label}>"

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


def open_udp_endpoint(
    driver: Driver, io: Reactor, owner: InprocPeer, endpoint: Endpoint, config: UdpConfig
) -> tuple[EngineHandle, Pipe]:
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
    # RADIO sends every group: no JOIN comes back over udp.
    ours = attach(engine, owner, str(endpoint), (config.sndhwm, config.rcvhwm),
                  all_groups=True, locally_initiated=not config.bind)  # fmt: skip
    return EngineHandle(driver, engine), ours
