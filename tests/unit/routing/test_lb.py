"""LoadBalancer alone (libzmq lb_t semantics)."""

from __future__ import annotations

from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Pipe

from .helpers import Recorder, strategy_pipe


class Owner(Recorder):
    """Socket-side owner that forwards write activations to the lb."""

    def __init__(self, lb: LoadBalancer) -> None:
        super().__init__()
        self.lb = lb

    def write_activated(self, pipe: Pipe) -> None:
        super().write_activated(pipe)
        self.lb.activated(pipe)


def make(n: int, sndhwm: int = 0) -> tuple[LoadBalancer, Owner, list[Pipe], list[Pipe]]:
    lb = LoadBalancer()
    owner = Owner(lb)
    mine, peers = [], []
    for _ in range(n):
        a, b, _rec = strategy_pipe(owner, sndhwm=sndhwm)
        lb.attach(a)
        mine.append(a)
        peers.append(b)
    return lb, owner, mine, peers


def drain(end: Pipe) -> list[list[bytes]]:
    out = []
    while (m := end.read()) is not None:
        out.append(m)
    return out


def test_round_robin_single_frames() -> None:
    lb, _, _mine, peers = make(3)
    for i in range(7):
        assert lb.send(b"%d" % i, False)
    assert [drain(p) for p in peers] == [
        [[b"0"], [b"3"], [b"6"]],
        [[b"1"], [b"4"]],
        [[b"2"], [b"5"]],
    ]


def test_multipart_stays_on_one_pipe() -> None:
    lb, _, _, peers = make(2)
    assert lb.send(b"a1", True)
    assert lb.more
    assert lb.send(b"a2", True)
    assert lb.send(b"a3", False)
    assert not lb.more
    assert lb.send(b"b", False)
    assert drain(peers[0]) == [[b"a1", b"a2", b"a3"]]
    assert drain(peers[1]) == [[b"b"]]


def test_message_invisible_until_last_frame() -> None:
    lb, _, _, peers = make(1)
    lb.send(b"x", True)
    assert peers[0].read() is None
    lb.send(b"y", False)
    assert peers[0].read() == [b"x", b"y"]


def test_no_pipe_means_eagain() -> None:
    lb = LoadBalancer()
    assert not lb.send(b"x", False)
    assert not lb.send(b"x", True)
    assert not lb.more
    assert not lb.has_out()
    assert not lb.send_msg([b"x"])


def test_full_pipe_is_skipped_and_deactivated() -> None:
    lb, _, mine, _peers = make(2, sndhwm=1)
    assert lb.send(b"1", False)  # -> pipe 0
    assert lb.send(b"2", False)  # -> pipe 1
    assert not lb.send(b"3", False)  # both full: EAGAIN
    assert lb._active == []
    assert lb.last_pipe is mine[1]


def test_deactivated_until_write_activated() -> None:
    """A pipe found full stays out of the rotation even when room appears,
    until its reader drains to the low-water mark and says so."""
    lb, owner, mine, peers = make(2, sndhwm=2)
    lb.send(b"1", False)  # p0
    lb.send(b"2", False)  # p1
    lb.send(b"3", False)  # p0 (full now)
    lb.send(b"4", False)  # p1 (full now)
    assert not lb.send(b"5", False)
    # Reader of p0 drains one message: queue 1 <= lwm 1 -> write_activated.
    assert peers[0].read() == [b"1"]
    assert owner.count("write", mine[0]) == 1
    assert lb.send(b"5", False)
    assert drain(peers[0]) == [[b"3"], [b"5"]]
    assert drain(peers[1]) == [[b"2"], [b"4"]]


def test_duplicate_activation_does_not_duplicate_pipe() -> None:
    lb, _, mine, _ = make(2)
    lb.activated(mine[0])
    lb.activated(mine[0])
    assert sorted(map(id, lb._active)) == sorted(map(id, mine))


def test_activation_of_unknown_pipe_is_ignored() -> None:
    lb, _, _, _ = make(1)
    stranger, _, _ = strategy_pipe(None)
    lb.activated(stranger)
    lb.terminated(stranger)
    assert stranger not in lb
    assert len(lb) == 1


def test_terminated_mid_message_drops_the_rest() -> None:
    lb, _, mine, peers = make(2)
    assert lb.send(b"a", True)  # -> pipe 0
    lb.terminated(mine[0])
    assert lb.send(b"b", True)  # dropped
    assert lb.send(b"c", False)  # dropped; message over
    assert not lb.more
    assert lb.send(b"next", False)  # -> pipe 1
    assert drain(peers[0]) == []
    assert drain(peers[1]) == [[b"next"]]


def test_terminated_other_pipe_mid_message_keeps_message_whole() -> None:
    lb, _, mine, peers = make(3)
    lb.send(b"x", False)  # p0
    lb.send(b"a", True)  # p1
    lb.terminated(mine[0])
    lb.terminated(mine[2])
    lb.send(b"b", False)
    assert drain(peers[1]) == [[b"a", b"b"]]


def test_has_out() -> None:
    lb, _, _, _ = make(1, sndhwm=1)
    assert lb.has_out()
    lb.send(b"a", False)
    assert not lb.has_out()


def test_has_out_true_mid_message() -> None:
    lb, _, _, _ = make(1, sndhwm=1)
    lb.send(b"a", True)
    assert lb.has_out()


def test_closed_peer_is_skipped() -> None:
    lb, _, _mine, peers = make(2)
    peers[0].close()
    assert lb.send(b"a", False)
    assert lb.send(b"b", False)
    assert drain(peers[1]) == [[b"a"], [b"b"]]


def test_send_msg_hands_over_the_list() -> None:
    lb, _, _, peers = make(1)
    msg = [b"a", b"b"]
    assert lb.send_msg(msg)
    assert peers[0].read() is msg


def test_new_pipe_joins_at_the_end() -> None:
    lb, owner, _, peers = make(2)
    lb.send(b"0", False)  # p0, cursor -> p1
    a, b, _ = strategy_pipe(owner)
    lb.attach(a)
    lb.send(b"1", False)  # p1
    lb.send(b"2", False)  # new
    lb.send(b"3", False)  # p0
    assert drain(b) == [[b"2"]]
    assert drain(peers[0]) == [[b"0"], [b"3"]]
