"""FairQueue alone (libzmq fq_t semantics)."""

from __future__ import annotations

from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Pipe

from .helpers import Recorder, strategy_pipe


class Owner(Recorder):
    """Socket-side owner that forwards read activations to the fq."""

    def __init__(self, fq: FairQueue) -> None:
        super().__init__()
        self.fq = fq

    def read_activated(self, pipe: Pipe) -> None:
        super().read_activated(pipe)
        self.fq.activated(pipe)


def make(n: int, rcvhwm: int = 0) -> tuple[FairQueue, Owner, list[Pipe], list[Pipe]]:
    fq = FairQueue()
    owner = Owner(fq)
    mine, peers = [], []
    for _ in range(n):
        a, b, _ = strategy_pipe(owner, rcvhwm=rcvhwm)
        fq.attach(a)
        mine.append(a)
        peers.append(b)
    return fq, owner, mine, peers


def test_fair_order_one_message_per_turn() -> None:
    fq, _, _mine, peers = make(3)
    for i, p in enumerate(peers):
        for j in range(2):
            p.write([b"%d%d" % (i, j)])
    got = []
    while (m := fq.recv()) is not None:
        got.append(m[0])
    assert got == [b"00", b"10", b"20", b"01", b"11", b"21"]


def test_multipart_comes_whole_and_is_one_turn() -> None:
    fq, _, mine, peers = make(2)
    peers[0].write([b"a1", b"a2", b"a3"])
    peers[0].write([b"a4"])
    peers[1].write([b"b1"])
    assert fq.recv() == [b"a1", b"a2", b"a3"]
    assert fq.last_pipe is mine[0]
    assert fq.recv() == [b"b1"]
    assert fq.last_pipe is mine[1]
    assert fq.recv() == [b"a4"]


def test_empty_pipe_deactivated_until_read_activated() -> None:
    fq, owner, mine, peers = make(2)
    assert fq.recv() is None
    assert fq._active == []
    peers[1].write([b"x"])
    assert owner.count("read", mine[1]) == 1  # the pipe woke us
    assert fq.recv() == [b"x"]
    assert fq.last_pipe is mine[1]


def test_no_pipes() -> None:
    fq = FairQueue()
    assert fq.recv() is None
    assert not fq.has_in()
    assert fq.last_pipe is None


def test_has_in_skips_empty_pipes_and_keeps_fairness() -> None:
    fq, _, _mine, peers = make(3)
    peers[2].write([b"c"])
    assert fq.has_in()
    assert fq.recv() == [b"c"]
    assert not fq.has_in()


def test_terminated_pipe_is_read_until_empty_then_dropped() -> None:
    fq, _, mine, peers = make(2)
    peers[0].write([b"last", b"words"])
    peers[0].close()
    fq.terminated(mine[0])
    assert mine[0] in fq
    assert fq.recv() == [b"last", b"words"]
    assert fq.recv() is None
    assert mine[0] not in fq
    assert len(fq) == 1


def test_terminated_inactive_pipe_with_messages_is_revived() -> None:
    """A pipe deactivated (found empty) that then received messages and closed
    still gets its messages delivered."""
    fq = FairQueue()
    a, b, _ = strategy_pipe(None)  # no owner: no read_activated forwarded
    fq.attach(a)
    assert fq.recv() is None  # a deactivated
    b.write([b"late"])
    b.close()
    fq.terminated(a)
    assert fq.recv() == [b"late"]
    assert fq.recv() is None  # reaches the DELIMITER
    assert a not in fq


def test_terminated_after_delimiter_read_is_forgotten_at_once() -> None:
    fq, _, mine, peers = make(1)
    peers[0].close()
    assert fq.recv() is None  # reads the DELIMITER
    assert mine[0].in_closed
    fq.terminated(mine[0])
    assert mine[0] not in fq


def test_remove_drops_unread_messages() -> None:
    fq, _, mine, peers = make(2)
    peers[0].write([b"lost"])
    peers[1].write([b"kept"])
    fq.remove(mine[0])
    assert fq.recv() == [b"kept"]
    assert fq.recv() is None


def test_duplicate_and_unknown_events_are_harmless() -> None:
    fq, _, mine, peers = make(2)
    fq.activated(mine[0])
    fq.activated(mine[0])
    fq.attach(mine[0])
    stranger, _, _ = strategy_pipe(None)
    fq.activated(stranger)
    fq.terminated(stranger)
    fq.remove(stranger)
    assert len(fq._active) == 2
    peers[0].write([b"x"])
    assert fq.recv() == [b"x"]
    assert fq.recv() is None


def test_reading_to_low_water_mark_wakes_writer() -> None:
    """fq reading is what lets a blocked peer write again (back-pressure)."""
    fq, _, _mine, peers = make(1, rcvhwm=2)
    peer_rec = Recorder()
    peers[0].set_owner(peer_rec)
    assert peers[0].write([b"1"])
    assert peers[0].write([b"2"])
    assert not peers[0].write([b"3"])
    assert fq.recv() == [b"1"]
    assert peer_rec.count("write") == 1
