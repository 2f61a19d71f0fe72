"""A source and a receiver state machine joined by a simulated lossy link:
everything is delivered in order, repaired by NAK/NCF/RDATA."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from purezmq._pgm import packets as P
from purezmq._pgm.framing import ApduWriter, PeerReader
from purezmq._pgm.receiver import Options, Receiver
from purezmq._pgm.sender import Source, window_sqns

GROUP = "239.192.1.1"


class Link:
    """One source, one receiver, a clock, and a loss rate each way."""

    def __init__(self, seed: int, loss: float, *, window: int = 10000, rate: int = 10**8) -> None:
        self.rng = random.Random(seed)
        self.loss = loss
        self.now = 0.0
        self.src = Source(
            b"gsi123", 40000, 5555, nla="10.0.0.1", group=GROUP, rate_bytes=rate, window=window
        )
        self.rcv = Receiver(5555, GROUP, Options(sqns=window), random=self.rng.random)
        self.reader = PeerReader()
        self.got: list[list[bytes]] = []
        self.sent_bytes = 0

    def _lost(self) -> bool:
        # Until the receiver has heard the session it has not joined: what
        # it misses then is not its to repair (a late joiner, as OpenPGM).
        return bool(self.rcv.peers()) and self.rng.random() < self.loss

    def step(self, dt: float = 0.005) -> None:
        for pkt in self.src.data_to_send(self.now):
            self.sent_bytes += len(pkt)
            if not self._lost():
                self.rcv.receive(P.parse(pkt), self.now)
        self.rcv.on_timer(self.now)
        for pkt, dest in self.rcv.upstream():
            assert dest in ("", "10.0.0.1")
            if not self._lost():
                self.src.receive(P.parse(pkt), self.now)
        for d in self.rcv.deliveries():
            if d.apdu is None:
                self.reader.loss()
            else:
                self.got.extend(self.reader.feed(d.apdu))
        self.now += dt

    def send(self, msgs: list[list[bytes]], until: float = 60.0) -> None:
        queue = list(msgs)
        writer = ApduWriter(self.src.max_tsdu)

        def pull() -> list[bytes] | None:
            return queue.pop(0) if queue else None

        while self.now < until and len(self.got) < len(msgs):
            while self.src.backlog == 0:
                apdu = writer.next_apdu(pull)
                if apdu is None:
                    break
                self.src.send_apdu(apdu, self.now)
            self.step()


@pytest.mark.parametrize("loss", [0.0, 0.05, 0.2])
def test_messages_arrive_in_order_despite_loss(loss: float) -> None:
    link = Link(7, loss)
    msgs = [[b"t", b"%05d" % i + b"." * (i * 37 % 4000)] for i in range(400)]
    link.send(msgs)
    assert link.got == msgs
    if loss:
        assert link.src.repairs_sent > 0 and link.rcv.naks_sent > 0
    assert link.rcv.losses == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.floats(0.0, 0.3))
def test_any_loss_pattern_is_repaired(seed: int, loss: float) -> None:
    link = Link(seed, loss)
    msgs = [[b"%d" % i] for i in range(60)]
    link.send(msgs, until=120.0)
    assert link.got == msgs


def test_fragmented_apdus_are_repaired_and_reassembled() -> None:
    link = Link(3, 0.1)
    msgs = [[bytes([i]) * 9000] for i in range(5)]
    apdus = [b"\x00\x00" + b"\xff" + (9001).to_bytes(8, "big") + b"\x00" + m[0] for m in msgs]
    for apdu in apdus:  # one APDU per message, each in seven fragments
        link.src.send_apdu(apdu, 0.0)
    while link.now < 30 and len(link.got) < len(msgs):
        link.step()
    assert link.got == msgs
    assert link.src.repairs_sent > 0


def test_fragments_deliver_one_apdu() -> None:
    src = Source(b"gsi123", 1, 2, nla="10.0.0.1", group=GROUP, rate_bytes=10**9)
    rcv = Receiver(2, GROUP, random=random.Random(0).random)
    apdu = bytes(range(256)) * 40
    src.send_apdu(apdu, 0.0)
    pkts = [P.parse(p) for p in src.data_to_send(0.0)]
    data = [p for p in pkts if p.kind == P.ODATA]
    assert len(data) == 8 and all(p.fragment is not None for p in data)
    for p in [data[0], *reversed(data[1:])]:  # out of order after the first
        rcv.receive(p, 0.0)
    assert [d.apdu for d in rcv.deliveries()] == [apdu]


def test_late_joiner_is_not_given_old_data() -> None:
    src = Source(b"gsi123", 1, 2, nla="10.0.0.1", group=GROUP, rate_bytes=10**9)
    for i in range(5):
        src.send_apdu(b"old%d" % i, 0.0)
    src.data_to_send(0.0)  # nobody listens yet
    rcv = Receiver(2, GROUP, random=random.Random(0).random)
    src.send_apdu(b"new", 1.0)
    for p in src.data_to_send(1.0):
        rcv.receive(P.parse(p), 1.0)
    rcv.on_timer(2.0)
    assert [d.apdu for d in rcv.deliveries()] == [b"new"]
    assert all(P.parse(p).kind == P.SPMR for p, _ in rcv.upstream())


def test_tail_loss_is_found_by_the_spm() -> None:
    src = Source(b"gsi123", 1, 2, nla="10.0.0.1", group=GROUP, rate_bytes=10**9)
    rcv = Receiver(2, GROUP, random=random.Random(0).random)
    src.send_apdu(b"first", 0.0)
    for p in src.data_to_send(0.0):
        rcv.receive(P.parse(p), 0.0)
    src.send_apdu(b"second", 0.01)
    src.data_to_send(0.01)  # the last ODATA is lost; no data follows it
    now = 0.01
    for p in src.data_to_send(0.2):  # the heartbeat SPM shows lead = 1
        rcv.receive(P.parse(p), 0.2)
    now = 0.3
    rcv.on_timer(now)
    naks = [P.parse(p) for p, dest in rcv.upstream() if dest == "10.0.0.1"]
    assert [n.nak_list for n in naks] == [[1]]
    src.receive(naks[0], now)
    kinds = [P.parse(p).kind for p in src.data_to_send(now)]
    assert kinds == [P.NCF, P.RDATA]


def test_unrepairable_loss_is_reported_once() -> None:
    """A packet that left the source's window: the receiver gives up, says
    so once, and goes on with what follows."""
    link = Link(1, 0.0, window=4)
    msgs = [[b"%d" % i] for i in range(6)]
    writer = ApduWriter(5)  # one message per APDU
    queue = list(msgs)
    for _ in range(6):
        apdu = writer.next_apdu(lambda: queue.pop(0) if queue else None)
        assert apdu is not None
        link.src.send_apdu(apdu, 0.0)
    pkts = link.src.data_to_send(0.0)
    data = [p for p in pkts if P.parse(p).kind == P.ODATA]
    for i, p in enumerate(data):
        if i != 1:
            link.rcv.receive(P.parse(p), 0.0)
    for _ in range(2000):
        link.step()
        if link.rcv.losses:
            break
    assert link.rcv.losses == 1
    assert [d.apdu is None for d in link.rcv.deliveries()] == []


def test_rate_limits_the_sender() -> None:
    rate = 100_000  # bytes per second
    src = Source(b"gsi123", 1, 2, nla="10.0.0.1", group=GROUP, rate_bytes=rate)
    for _ in range(1000):
        src.send_apdu(b"x" * 1000, 0.0)
    sent = 0
    now = 0.0
    while now < 1.0:
        sent += sum(len(p) + 28 for p in src.data_to_send(now) if P.parse(p).kind == P.ODATA)
        now = max(now + 0.001, src.next_deadline(now))
    # one second of RATE, plus at most the bucket and one packet
    assert rate <= sent <= rate + src._capacity + 1100


def test_window_sqns_is_libzmq_compute_sqns() -> None:
    assert window_sqns(100, 10000, 1500) == 10000 * 12 // 1500
    assert window_sqns(1, 1, 1500) == 1


def test_nak_for_another_group_is_ignored() -> None:
    src = Source(b"gsi123", 1, 2, nla="10.0.0.1", group=GROUP, rate_bytes=10**9)
    src.send_apdu(b"a", 0.0)
    src.data_to_send(0.0)
    nak = P.encode_nak(b"gsi123", 2, 1, [0], "10.0.0.1", "239.9.9.9")
    src.receive(P.parse(nak), 0.0)
    assert src.data_to_send(0.0) == []
    good = P.encode_nak(b"gsi123", 2, 1, [0], "10.0.0.1", GROUP)
    src.receive(P.parse(good), 0.0)
    assert [P.parse(p).kind for p in src.data_to_send(0.0)] == [P.NCF, P.RDATA]


def test_silent_sources_are_forgotten() -> None:
    rcv = Receiver(2, GROUP, Options(expiry=300.0), random=random.Random(0).random)
    for n, gsi in enumerate((b"first!", b"second")):
        src = Source(gsi, 1, 2, nla="10.0.0.1", group=GROUP, rate_bytes=10**9)
        src.send_apdu(b"hi", float(n))
        for p in src.data_to_send(float(n)):
            rcv.receive(P.parse(p), float(n))
    assert rcv.peer_count == 2
    rcv.on_timer(300.5)  # the first has been silent for 300.5 s, the second 299.5 s
    assert rcv.peers() == [(b"second", 1)]
