"""The PGM receiver (RFC 3208 sections 5.3 and 6.3), sans-I/O.

One receive window per source, told apart by transport-session id (GSI and
source port). A window starts at the first data seen (or after the lead of
the first SPM): a late joiner asks for nothing older, as OpenPGM does.

Loss is seen as a gap below a newer sequence number (ODATA, RDATA, or an
SPM's lead). Each missing packet then goes through the NAK states of
RFC 3208 6.3:

- back-off: a random wait in [0, NAK_BO_IVL), so that one receiver's NAK
  (confirmed by the source's multicast NCF) spares the others theirs;
- wait for NCF (NAK_RPT_IVL): no NCF, back to back-off and NAK again;
- wait for data (NAK_RDATA_IVL): an NCF came but no RDATA, NAK again.

After NAK_NCF_RETRIES or NAK_DATA_RETRIES rounds, or when the source's trail
passes it, the packet is lost for good: the APDUs before it are delivered,
then a loss is reported (libzmq then drops the peer's partial message and
joins again at the next message start). The retry counts and intervals
default to libzmq's (50 ms back-off, 200 ms, 200 ms, 50 retries).

Fragments (OPT_FRAGMENT) are put together into their APDU; APDUs come out
in order, each once. NAKs go to the source's address from its SPM (the
driver sends them); before the first SPM the receiver asks for one (SPMR).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from . import packets as P

BACKOFF: Final = 0
WAIT_NCF: Final = 1
WAIT_DATA: Final = 2


class Options:
    """The receiver's timers and limits (libzmq's values by default)."""

    __slots__ = ("data_retries", "expiry", "nak_bo", "nak_rdata", "nak_rpt", "ncf_retries", "sqns")

    def __init__(
        self,
        *,
        sqns: int = 10000,
        nak_bo: float = 0.05,
        nak_rpt: float = 0.2,
        nak_rdata: float = 0.2,
        ncf_retries: int = 50,
        data_retries: int = 50,
        expiry: float = 300.0,
    ) -> None:
        self.sqns = max(1, sqns)
        self.nak_bo = nak_bo
        self.nak_rpt = nak_rpt
        self.nak_rdata = nak_rdata
        self.ncf_retries = ncf_retries
        self.data_retries = data_retries
        self.expiry = expiry


class _Nak:
    __slots__ = ("deadline", "ncf_tries", "rdata_tries", "state")

    def __init__(self, deadline: float) -> None:
        self.state = BACKOFF
        self.deadline = deadline
        self.ncf_tries = 0
        self.rdata_tries = 0


class Delivery:
    """What the receiver hands up: an APDU of `tsi`, or (`apdu` None) the
    news that data of `tsi` was lost before what comes next."""

    __slots__ = ("apdu", "tsi")

    def __init__(self, tsi: tuple[bytes, int], apdu: bytes | None) -> None:
        self.tsi = tsi
        self.apdu = apdu

    def __repr__(self) -> str:
        what = "loss" if self.apdu is None else f"{len(self.apdu)} bytes"
        return f"Delivery({self.tsi[0].hex()}:{self.tsi[1]}, {what})"


class _Peer:
    """One source's receive window."""

    __slots__ = (
        "data",
        "frags",
        "heard",
        "lead",
        "lost",
        "nak_nla",
        "naks",
        "next",
        "spm_sqn",
        "spmr_due",
        "tsi",
    )

    def __init__(self, tsi: tuple[bytes, int], now: float) -> None:
        self.tsi = tsi
        #: Where NAKs go (the SPM's NLA); "" until the first SPM.
        self.nak_nla = ""
        self.spm_sqn = -1
        self.next = -1  # next sequence number to deliver; -1: window undefined
        self.lead = 0
        #: Received (or lost) packets from `next` on: payload and fragment.
        self.data: dict[int, tuple[bytes, P.Fragment | None]] = {}
        #: Sequence numbers given up (not yet passed by `next`).
        self.lost: set[int] = set()
        self.naks: dict[int, _Nak] = {}
        #: Fragments of the APDU being put together: (first sqn, pieces).
        self.frags: list[tuple[int, bytes]] = []
        self.heard = now
        self.spmr_due = True


class Receiver:
    """Every source's window for one receiving transport (group and port)."""

    def __init__(
        self,
        dport: int,
        group: str,
        options: Options | None = None,
        *,
        random: Callable[[], float],
    ) -> None:
        self.dport = dport
        self.group = group
        self.options = options if options is not None else Options()
        self._random = random
        self._peers: dict[tuple[bytes, int], _Peer] = {}
        self._out: list[Delivery] = []
        #: Upstream packets due: (packet, destination address; "" = the group).
        self._upstream: list[tuple[bytes, str]] = []
        self.naks_sent = 0
        self.losses = 0

    # ------------------------------------------------------------ input
    def receive(self, packet: P.Packet, now: float) -> None:
        """A downstream packet (SPM, ODATA, RDATA, NCF) from the network."""
        if packet.dport != self.dport:
            return
        kind = packet.kind
        if kind not in (P.SPM, P.ODATA, P.RDATA, P.NCF):
            return
        tsi = (packet.gsi, packet.sport)
        peer = self._peers.get(tsi)
        if peer is None:
            if kind == P.NCF:
                return
            peer = self._peers[tsi] = _Peer(tsi, now)
        peer.heard = now
        if kind == P.SPM:
            self._spm(peer, packet, now)
        elif kind == P.NCF:
            for sqn in packet.nak_list:
                nak = peer.naks.get(sqn)
                if nak is not None and nak.state != WAIT_DATA:
                    nak.state = WAIT_DATA
                    nak.deadline = now + self.options.nak_rdata
        else:
            self._data(peer, packet, now)
        self._deliver(peer)

    def _define(self, peer: _Peer, next_sqn: int) -> None:
        peer.next = next_sqn & P.SQN_MASK
        peer.lead = (next_sqn - 1) & P.SQN_MASK

    def _spm(self, peer: _Peer, packet: P.Packet, now: float) -> None:
        if peer.spm_sqn >= 0 and P.sqn_diff(packet.sqn, peer.spm_sqn) <= 0:
            return  # an old or repeated SPM
        peer.spm_sqn = packet.sqn
        peer.nak_nla = packet.nla
        peer.spmr_due = False
        if peer.next < 0:
            self._define(peer, packet.lead + 1)
            return
        self._extend(peer, packet.lead, now, inclusive=True)
        self._trail(peer, packet.trail)

    def _data(self, peer: _Peer, packet: P.Packet, now: float) -> None:
        sqn = packet.sqn
        if peer.next < 0:
            self._define(peer, sqn)
        if P.sqn_diff(sqn, peer.next) < 0:
            return  # already delivered (or given up)
        ahead = P.sqn_diff(sqn, peer.next)
        if ahead >= self.options.sqns:  # beyond the window: give up the oldest
            self._give_up_to(peer, (sqn - self.options.sqns + 1) & P.SQN_MASK)
        self._extend(peer, sqn, now)
        peer.lost.discard(sqn)  # a repair that came after all
        if sqn not in peer.data:
            peer.data[sqn] = (bytes(packet.payload), packet.fragment)
        peer.naks.pop(sqn, None)
        self._trail(peer, packet.trail)

    def _extend(self, peer: _Peer, lead: int, now: float, *, inclusive: bool = False) -> None:
        """Sequence numbers up to `lead` exist: NAK the ones missing (before
        `lead`, which is being received, or up to it when `inclusive`)."""
        gap = P.sqn_diff(lead, peer.lead)
        if gap <= 0:
            return
        if gap > self.options.sqns:
            self._give_up_to(peer, (lead - self.options.sqns + 1) & P.SQN_MASK)
        start = peer.lead + 1 if P.sqn_diff(peer.lead + 1, peer.next) >= 0 else peer.next
        for i in range(P.sqn_diff(lead, start) + (1 if inclusive else 0)):
            sqn = (start + i) & P.SQN_MASK
            if sqn not in peer.data and sqn not in peer.naks:
                peer.naks[sqn] = _Nak(now + self._random() * self.options.nak_bo)
        peer.lead = lead & P.SQN_MASK

    def _trail(self, peer: _Peer, trail: int) -> None:
        """The source no longer holds what is before `trail`."""
        if P.sqn_diff(trail, peer.next) > 0:
            missing = [s for s in peer.naks if P.sqn_diff(s, trail) < 0]
            for sqn in missing:
                self._lose(peer, sqn)

    def _lose(self, peer: _Peer, sqn: int) -> None:
        peer.naks.pop(sqn, None)
        peer.lost.add(sqn)

    def _report_loss(self, peer: _Peer) -> None:
        peer.frags = []
        self.losses += 1
        self._out.append(Delivery(peer.tsi, None))

    def _give_up_to(self, peer: _Peer, first_kept: int) -> None:
        """Move the window on to `first_kept`: what is held before it is
        delivered, what is missing is lost (bounded by what is held, however
        far the jump)."""
        held = sorted(
            (s for s in peer.data if P.sqn_diff(s, first_kept) < 0),
            key=lambda s: P.sqn_diff(s, peer.next),
        )
        for sqn in held:
            if sqn != peer.next:
                self._report_loss(peer)
                peer.next = sqn
            self._deliver_one(peer)
        if peer.next != first_kept:
            self._report_loss(peer)
        for sqn in [s for s in peer.naks if P.sqn_diff(s, first_kept) < 0]:
            del peer.naks[sqn]
        peer.lost = {s for s in peer.lost if P.sqn_diff(s, first_kept) >= 0}
        peer.next = first_kept
        if P.sqn_diff(peer.lead, first_kept) < 0:
            peer.lead = (first_kept - 1) & P.SQN_MASK

    # ------------------------------------------------------------ delivery
    def _deliver(self, peer: _Peer) -> None:
        while peer.next >= 0:
            sqn = peer.next
            if sqn in peer.lost:
                peer.lost.discard(sqn)
                peer.next = (sqn + 1) & P.SQN_MASK
                self._report_loss(peer)
            elif sqn in peer.data:
                self._deliver_one(peer)
            else:
                return

    def _deliver_one(self, peer: _Peer) -> None:
        sqn = peer.next
        payload, frag = peer.data.pop(sqn)
        peer.naks.pop(sqn, None)
        peer.next = (sqn + 1) & P.SQN_MASK
        if frag is None:
            peer.frags = []
            self._out.append(Delivery(peer.tsi, payload))
            return
        if frag.offset == 0:
            peer.frags = [(frag.first, payload)]
        elif peer.frags and peer.frags[0][0] == frag.first:
            peer.frags.append((frag.first, payload))
        else:
            peer.frags = []  # the first fragments went before we joined
            return
        size = sum(len(p) for _, p in peer.frags)
        if size >= frag.length:
            apdu = b"".join(p for _, p in peer.frags)
            peer.frags = []
            if len(apdu) == frag.length:
                self._out.append(Delivery(peer.tsi, apdu))

    def deliveries(self) -> list[Delivery]:
        """APDUs (and losses) ready, in order per source; each once."""
        out = self._out
        self._out = []
        return out

    # ------------------------------------------------------------ timers
    def on_timer(self, now: float) -> None:
        """Run the NAK state machines and forget silent sources."""
        opts = self.options
        for tsi, peer in list(self._peers.items()):
            if now - peer.heard > opts.expiry:
                del self._peers[tsi]
                continue
            if peer.spmr_due and peer.next >= 0:
                peer.spmr_due = False
                self._upstream.append((P.encode_spmr(tsi[0], self.dport, tsi[1]), ""))
            due: list[int] = []
            for sqn, nak in list(peer.naks.items()):
                if nak.deadline > now:
                    continue
                if nak.state == BACKOFF:
                    if not peer.nak_nla:
                        nak.deadline = now + opts.nak_rpt
                        continue
                    due.append(sqn)
                    nak.state = WAIT_NCF
                    nak.deadline = now + opts.nak_rpt
                elif nak.state == WAIT_NCF:
                    nak.ncf_tries += 1
                    if nak.ncf_tries > opts.ncf_retries:
                        self._lose(peer, sqn)
                    else:
                        nak.state = BACKOFF
                        nak.deadline = now + self._random() * opts.nak_bo
                else:
                    nak.rdata_tries += 1
                    if nak.rdata_tries > opts.data_retries:
                        self._lose(peer, sqn)
                    else:
                        nak.state = BACKOFF
                        nak.deadline = now + self._random() * opts.nak_bo
            due.sort(key=lambda s: P.sqn_diff(s, peer.next))
            for i in range(0, len(due), P.NAK_LIST_MAX + 1):
                chunk = due[i : i + P.NAK_LIST_MAX + 1]
                nak_packet = P.encode_nak(
                    tsi[0], self.dport, tsi[1], chunk, peer.nak_nla, self.group
                )
                self.naks_sent += len(chunk)
                self._upstream.append((nak_packet, peer.nak_nla))
            self._deliver(peer)

    def upstream(self) -> list[tuple[bytes, str]]:
        """NAKs and SPMRs due: (packet, address; "" means the group)."""
        out = self._upstream
        self._upstream = []
        return out

    def next_deadline(self) -> float | None:
        """The earliest NAK timer (None: nothing pending)."""
        when: float | None = None
        for peer in self._peers.values():
            if peer.spmr_due and peer.next >= 0:
                return 0.0
            for nak in peer.naks.values():
                if when is None or nak.deadline < when:
                    when = nak.deadline
        return when

    @property
    def peer_count(self) -> int:
        """How many sources are heard from (forgotten after `expiry` of silence)."""
        return len(self._peers)

    def peers(self) -> list[tuple[bytes, int]]:
        """The transport-session ids heard from."""
        return list(self._peers)
