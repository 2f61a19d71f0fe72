"""The PGM source (RFC 3208 sections 5.1 and 6.1), sans-I/O.

What it keeps: the transmit window (the last `window_sqns` packets, for
repairs), the SPM schedule, the repairs asked for and the RATE bucket.

What goes out, all to the multicast group:

- ODATA for each APDU given to `send_apdu` (fragmented with OPT_FRAGMENT
  when it does not fit one TSDU);
- SPMs advertising the window (trail and lead) and the source's address,
  where receivers send their NAKs: one at start, then a heartbeat after data
  (100, 100, 100, 100, 1300 ms, 7, 16, 25, 30 s: libzmq's schedule) and one
  every 30 s when idle;
- for each NAK of a packet still in the window an NCF at once and an RDATA
  once the bucket allows; an SPMR is answered with an SPM.

RATE is a token bucket in bytes per second over ODATA and RDATA, counting
each packet with the IP (and UDP) header the driver says it costs, as
OpenPGM's rate control does. Time is passed in (seconds, any monotonic
origin).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from . import packets as P

#: libzmq's PGM_HEARTBEAT_SPM (seconds after the last data), then ambient.
HEARTBEAT_SPM: Final = (0.1, 0.1, 0.1, 0.1, 1.3, 7.0, 16.0, 25.0, 30.0)
AMBIENT_SPM: Final = 30.0


def window_sqns(rate_kbps: int, recovery_ivl_ms: int, max_tpdu: int) -> int:
    """libzmq's compute_sqns: how many TPDUs the recovery interval holds at
    RATE (kbit/s is bytes per ms times 8); at least one."""
    return max(1, (recovery_ivl_ms * (rate_kbps // 8)) // max_tpdu)


class _Stored:
    """One packet of the transmit window, kept to be sent again as RDATA."""

    __slots__ = ("fragment", "payload")

    def __init__(self, payload: bytes, fragment: P.Fragment | None) -> None:
        self.payload = payload
        self.fragment = fragment


class Source:
    """One PGM source: a transport session (GSI and source port) sending to
    `group` with data-destination port `dport`."""

    def __init__(
        self,
        gsi: bytes,
        sport: int,
        dport: int,
        *,
        nla: str,
        group: str,
        max_tpdu: int = 1500,
        ip_overhead: int = 28,
        rate_bytes: int = 12500,
        window: int = 1000,
        now: float = 0.0,
    ) -> None:
        if len(gsi) != 6:
            raise ValueError("a GSI is 6 bytes")
        self.gsi = gsi
        self.sport = sport
        self.dport = dport
        self.nla = nla
        self.group = group
        self.ip_overhead = ip_overhead
        #: Largest APDU piece one ODATA carries unfragmented (libzmq's MSS).
        self.max_tsdu = max_tpdu - ip_overhead - P.HEADER_SIZE - P.DATA_HEADER.size
        if self.max_tsdu <= P.FRAGMENT_OVERHEAD:
            raise ValueError(f"MULTICAST_MAXTPDU {max_tpdu} is too small for PGM")
        self.rate = max(1, rate_bytes)
        self.window = max(1, window)
        # Empty window: trail = lead + 1 (RFC 3208 5.1).
        self.lead = P.SQN_MASK
        self.trail = 0
        self._store: dict[int, _Stored] = {}
        self._spm_sqn = 0
        self._hb = len(HEARTBEAT_SPM)
        self._next_spm = now  # an SPM at once, so receivers learn where to NAK
        self._odata: deque[bytes] = deque()
        self._repairs: deque[int] = deque()
        self._queued_repairs: set[int] = set()
        self._urgent: list[bytes] = []  # NCFs and SPMs: not rate limited
        # A bucket of a few packets (at least 10 ms of RATE): bursts stay short.
        self._capacity = float(max(3 * max_tpdu, self.rate // 100))
        self._tokens = self._capacity
        self._refilled = now
        #: Counters for statistics and tests.
        self.naks_received = 0
        self.repairs_sent = 0

    # ------------------------------------------------------------ input
    @property
    def backlog(self) -> int:
        """ODATA packets made but not sent yet (the driver feeds more APDUs
        only when this is 0: the pipe's HWM, not this queue, holds messages)."""
        return len(self._odata)

    def send_apdu(self, apdu: bytes, now: float) -> None:
        """Queue one APDU as ODATA (fragments when longer than `max_tsdu`)."""
        if len(apdu) <= self.max_tsdu:
            self._add(apdu, None)
        else:
            step = self.max_tsdu - P.FRAGMENT_OVERHEAD
            first = (self.lead + 1) & P.SQN_MASK
            for offset in range(0, len(apdu), step):
                frag = P.Fragment(first, offset, len(apdu))
                self._add(apdu[offset : offset + step], frag)
        self._hb = 0
        self._next_spm = now + HEARTBEAT_SPM[0]

    def _add(self, payload: bytes, fragment: P.Fragment | None) -> None:
        sqn = (self.lead + 1) & P.SQN_MASK
        self.lead = sqn
        self._store[sqn] = _Stored(payload, fragment)
        while len(self._store) > self.window:
            del self._store[self.trail]
            self._queued_repairs.discard(self.trail)
            self.trail = (self.trail + 1) & P.SQN_MASK
        self._odata.append(
            P.encode_data(self.gsi, self.sport, self.dport, sqn, self.trail, payload, fragment)
        )

    def receive(self, packet: P.Packet, now: float) -> None:
        """An upstream packet for this session: NAK (repair) or SPMR (SPM)."""
        if packet.gsi != self.gsi or packet.dport != self.sport:
            return
        if packet.kind == P.SPMR:
            self._urgent.append(self._spm())
            return
        if packet.kind != P.NAK or packet.nla != self.nla or packet.group != self.group:
            return
        self.naks_received += 1
        confirmed = [s for s in packet.nak_list if s in self._store]
        if not confirmed:
            return
        self._urgent.append(
            P.encode_nak(
                self.gsi, self.sport, self.dport, confirmed, self.nla, self.group, kind=P.NCF
            )
        )
        for sqn in confirmed:
            if sqn not in self._queued_repairs:
                self._queued_repairs.add(sqn)
                self._repairs.append(sqn)

    # ------------------------------------------------------------ output
    def _spm(self) -> bytes:
        self._spm_sqn = (self._spm_sqn + 1) & P.SQN_MASK
        return P.encode_spm(
            self.gsi, self.sport, self.dport, self._spm_sqn, self.trail, self.lead, self.nla
        )

    def _refill(self, now: float) -> None:
        if now > self._refilled:
            self._tokens = min(self._capacity, self._tokens + (now - self._refilled) * self.rate)
        self._refilled = now

    def data_to_send(self, now: float) -> list[bytes]:
        """The packets due now, in order; all go to the group."""
        out = self._urgent
        self._urgent = []
        if now >= self._next_spm:
            out.append(self._spm())
            if self._hb < len(HEARTBEAT_SPM) - 1:
                self._hb += 1
                self._next_spm = now + HEARTBEAT_SPM[self._hb]
            else:
                self._hb = len(HEARTBEAT_SPM)
                self._next_spm = now + AMBIENT_SPM
        self._refill(now)
        while self._repairs and self._tokens > 0:
            sqn = self._repairs.popleft()
            self._queued_repairs.discard(sqn)
            stored = self._store.get(sqn)
            if stored is None:
                continue  # left the window meanwhile
            packet = P.encode_data(
                self.gsi,
                self.sport,
                self.dport,
                sqn,
                self.trail,
                stored.payload,
                stored.fragment,
                repair=True,
            )
            self._tokens -= len(packet) + self.ip_overhead
            self.repairs_sent += 1
            out.append(packet)
        while self._odata and self._tokens > 0:
            packet = self._odata.popleft()
            self._tokens -= len(packet) + self.ip_overhead
            out.append(packet)
        return out

    def next_deadline(self, now: float) -> float:
        """When `data_to_send` will have something (the next SPM at the latest)."""
        when = self._next_spm
        if self._urgent:
            return now
        if self._odata or self._repairs:
            self._refill(now)
            if self._tokens > 0:
                return now
            when = min(when, now + (1.0 - self._tokens) / self.rate)
        return when
