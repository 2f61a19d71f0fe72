"""The pgm:// and epgm:// transports on a reactor (I/O thread or asyncio loop).

libzmq plugs a PGM endpoint straight into its socket: no handshake, no
reconnection, a PUB/XPUB only sends (pgm_sender) and a SUB/XSUB only
receives (pgm_receiver). Here the endpoint is a pipe pair like inproc's: the
socket holds one end, a `MulticastEngine` the other, and the engine runs the
sans-I/O PGM state machines (`purezmq._pgm`) on the reactor with one OS
socket (see `purezmq._transport.pgm`).

- Sending: messages are read from the pipe only when the source has sent
  what it holds, so SNDHWM (and PUB's dropping at it) governs the queue and
  RATE the pace. As in libzmq, the PUB/XPUB is subscribed to everything when
  the pipe is attached (`Pipe.all_groups`), without a subscription message
  the XPUB application would see: PGM carries no subscriptions upstream.
- Receiving: each source's APDUs go through its own ZMTP/1.0 reader; SUB
  filters locally. Subscriptions the SUB writes are read and dropped. A
  message that finds the pipe at RCVHWM is dropped and counted
  (`dropped`): multicast cannot be paused.
"""

from __future__ import annotations

import errno
import logging
import os
import random
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING

from purezmq._core.clock import monotonic
from purezmq._pgm import packets as P
from purezmq._pgm.framing import ApduWriter, PeerReader
from purezmq._pgm.receiver import Options, Receiver
from purezmq._pgm.sender import Source, window_sqns
from purezmq._transport.address import AddressError, Endpoint
from purezmq._transport.pgm import MulticastConfig, PgmAddress, open_socket, parse_pgm

from .datagram import DatagramEngine, EngineHandle, attach
from .reactor import Reactor, Timer

if TYPE_CHECKING:
    from purezmq._core.protocols import Driver, InprocPeer

log = logging.getLogger("purezmq")

#: Datagrams read per readiness event (fairness with other endpoints).
READ_BATCH = 256


def _now() -> float:
    return monotonic()


class MulticastEngine(DatagramEngine):
    """One PGM transport session (see `DatagramEngine`); a sender listens
    too, for NAKs."""

    def __init__(
        self, io: Reactor, sock: socket.socket, addr: PgmAddress, config: MulticastConfig
    ) -> None:
        super().__init__(io, sock)
        self.addr = addr
        self.config = config
        self._timer: Timer | None = None
        overhead = 28 if addr.udp else 20
        self._source: Source | None = None
        self._receiver: Receiver | None = None
        self._writer: ApduWriter | None = None
        self._readers: dict[tuple[bytes, int], PeerReader] = {}
        sqns = window_sqns(config.rate_kbps, config.recovery_ivl_ms, config.max_tpdu)
        if config.sender:
            sport = addr.port
            while sport == addr.port:
                sport = random.randrange(1, 0x10000)
            self._source = Source(
                os.urandom(6),
                sport,
                addr.port,
                nla=addr.interface,
                group=addr.group,
                max_tpdu=config.max_tpdu,
                ip_overhead=overhead,
                rate_bytes=config.rate_kbps * 1000 // 8,
                window=sqns,
                now=_now(),
            )
            self._writer = ApduWriter(self._source.max_tsdu)
        else:
            self._receiver = Receiver(
                addr.port, addr.group, Options(sqns=max(sqns, 64)), random=random.random
            )

    def __repr__(self) -> str:
        kind = "epgm" if self.addr.udp else "pgm"
        return (
            f"<MulticastEngine {kind}://{self.addr.interface};{self.addr.group}:{self.addr.port}>"
        )

    # ------------------------------------------------------------ life
    def _stopping(self) -> None:
        """What the source still holds is not sent."""
        if self._timer is not None:
            self._timer.cancel()

    def _finish(self) -> None:
        if self._source is not None:
            self._pump()  # what the socket sent before closing goes out now
        self.close()

    # ------------------------------------------------------------ IOHandler
    def on_readable(self) -> None:
        now = _now()
        for _ in range(READ_BATCH):
            try:
                data, peer = self.sock.recvfrom(65535)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:
                log.debug("%r: receive failed: %s", self, e)
                break
            try:
                if not self.addr.udp:
                    data = P.strip_ip_header(data)
                packet = P.parse(data)
            except P.PgmError as e:
                log.debug("%r: dropped a packet from %s: %s", self, peer, e)
                continue
            if self._source is not None:
                self._source.receive(packet, now)
            elif self._receiver is not None:
                self._receiver.receive(packet, now)
        self._pump()

    def _on_timer(self) -> None:
        self._timer = None
        self._pump()

    def _arm(self, when: float | None) -> None:
        if when is None or self.closed:
            return
        timer = self._timer
        if timer is not None and not timer.cancelled:
            if timer.when <= when:
                return
            timer.cancel()
        self._timer = self.io.call_at(when, self._on_timer)

    # ------------------------------------------------------------ the work
    def _pump(self) -> None:
        if self.closed:
            return
        now = _now()
        if self._source is not None:
            self._send(self._source, now)
        elif self._receiver is not None:
            self._receive(self._receiver, now)

    def _pull(self) -> Sequence[bytes] | None:
        pipe = self.pipe
        if pipe is None:
            return None
        msg = pipe.read()
        return None if msg is None else [bytes(f) for f in msg]

    def _send(self, source: Source, now: float) -> None:
        writer = self._writer
        assert writer is not None
        while True:
            while source.backlog == 0:
                apdu = writer.next_apdu(self._pull)
                if apdu is None:
                    break
                source.send_apdu(apdu, now)
            self._transmit(source.data_to_send(now), self.addr.group)
            if source.backlog or not (writer.pending or self._has_input()):
                break
        self._arm(source.next_deadline(now))

    def _has_input(self) -> bool:
        pipe = self.pipe
        return pipe is not None and pipe.check_read()

    def _transmit(self, packets: list[bytes], host: str) -> None:
        dest = (host, self.addr.port if self.addr.udp else 0)
        for packet in packets:
            try:
                self.sock.sendto(packet, dest)
            except OSError as e:  # ENOBUFS and friends: PGM repairs it
                log.debug("%r: send to %s failed: %s", self, host, e)

    def _receive(self, receiver: Receiver, now: float) -> None:
        pipe = self.pipe
        if pipe is not None:
            while pipe.read() is not None:  # subscriptions: PGM has no upstream for them
                pass
        receiver.on_timer(now)
        for packet, host in receiver.upstream():
            self._transmit([packet], host or self.addr.group)
        readers = self._readers
        if len(readers) > receiver.peer_count:  # sources that went silent
            live = set(receiver.peers())
            for tsi in [t for t in readers if t not in live]:
                del readers[tsi]
        for delivery in receiver.deliveries():
            reader = readers.get(delivery.tsi)
            if reader is None:
                reader = readers[delivery.tsi] = PeerReader(self.config.max_msg_size)
            if delivery.apdu is None:
                reader.loss()
                continue
            for msg in reader.feed(delivery.apdu):
                if pipe is None or not pipe.write(list(msg)):
                    self.dropped += 1
        self._arm(receiver.next_deadline())


def open_multicast(
    driver: Driver, io: Reactor, owner: InprocPeer, endpoint: Endpoint, config: MulticastConfig
) -> EngineHandle:
    """Open the OS socket now (errors come back to connect()/bind()), give
    `owner` its end of a pipe pair and start the engine on `io`."""
    addr = parse_pgm(endpoint.protocol, endpoint.address)
    sock = open_socket(addr, config)
    try:
        engine = MulticastEngine(io, sock, addr, config)
    except ValueError as e:  # MULTICAST_MAXTPDU too small for PGM's headers
        sock.close()
        raise AddressError(errno.EINVAL, str(e)) from None
    # No subscriptions travel upstream: a PUB/XPUB sends everything here
    # (receivers filter), subscribed silently as libzmq's subscribe_to_all.
    attach(engine, owner, str(endpoint), (config.sndhwm, config.rcvhwm),
           all_groups=config.sender, locally_initiated=True)  # fmt: skip
    return EngineHandle(driver, engine)
