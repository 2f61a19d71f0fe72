"""Distributor alone (libzmq dist_t semantics)."""

from __future__ import annotations

from purezmq._routing.dist import Distributor
from purezmq._routing.pipe import Pipe

from .helpers import Recorder, strategy_pipe


def make(n: int, sndhwm: int = 0) -> tuple[Distributor, list[Pipe], list[Pipe]]:
    d = Distributor()
    mine, peers = [], []
    for _ in range(n):
        a, b, _ = strategy_pipe(Recorder(), sndhwm=sndhwm)
        d.attach(a)
        mine.append(a)
        peers.append(b)
    return d, mine, peers


def drain(end: Pipe) -> list[list[bytes]]:
    out = []
    while (m := end.read()) is not None:
        out.append(m)
    return out


def test_send_to_all_reaches_every_pipe_with_its_own_list() -> None:
    d, _, peers = make(3)
    d.send_to_all(b"hi", False)
    got = [p.read() for p in peers]
    assert got == [[b"hi"]] * 3
    assert len({id(m) for m in got}) == 3


def test_send_to_subset() -> None:
    d, mine, peers = make(3)
    d.send_to([mine[0], mine[2]], b"x", False)
    assert [drain(p) for p in peers] == [[[b"x"]], [], [[b"x"]]]


def test_multipart_goes_whole_to_the_same_set() -> None:
    d, mine, peers = make(3)
    d.send_to([mine[1]], b"a", True)
    assert d.more
    d.send_to([mine[0]], b"b", True)  # targets are fixed on the first frame
    d.send_to([], b"c", False)
    assert not d.more
    assert [drain(p) for p in peers] == [[], [[b"a", b"b", b"c"]], []]


def test_pipe_attached_mid_message_gets_nothing_of_it() -> None:
    d, _, peers = make(1)
    d.send_to_all(b"a", True)
    late, late_peer, _ = strategy_pipe(Recorder())
    d.attach(late)
    d.send_to_all(b"b", False)
    d.send_to_all(b"next", False)
    assert drain(peers[0]) == [[b"a", b"b"], [b"next"]]
    assert drain(late_peer) == [[b"next"]]


def test_full_pipe_drops_and_stays_inactive_until_activated() -> None:
    d, mine, peers = make(2, sndhwm=1)
    d.send_to_all(b"1", False)
    d.send_to_all(b"2", False)  # both full: dropped, both deactivated
    assert d.eligible == []
    assert peers[0].read() == [b"1"]  # room again, but no activation yet
    d.send_to_all(b"3", False)
    assert peers[0].read() is None
    d.activated(mine[0])
    d.activated(mine[0])  # duplicate: harmless
    d.send_to_all(b"4", False)
    assert drain(peers[0]) == [[b"4"]]
    assert drain(peers[1]) == [[b"1"]]


def test_full_pipe_drops_multipart_whole() -> None:
    d, _, peers = make(2, sndhwm=1)
    peers_full = peers[1]
    d.send_to([d.eligible[1]], b"fill", False)
    d.send_to_all(b"a", True)
    d.send_to_all(b"b", False)
    assert drain(peers[0]) == [[b"a", b"b"]]
    assert drain(peers_full) == [[b"fill"]]


def test_check_hwm() -> None:
    d, mine, _peers = make(2, sndhwm=1)
    assert d.check_hwm(mine)
    d.send_to([mine[0]], b"x", False)
    assert not d.check_hwm(mine)
    assert d.check_hwm([mine[1]])


def test_check_hwm_ignores_closing_pipes() -> None:
    d, mine, peers = make(1, sndhwm=1)
    d.send_to_all(b"x", False)
    peers[0].close()
    assert d.check_hwm(mine)


def test_terminated_pipe_mid_message_is_skipped() -> None:
    d, mine, peers = make(2)
    d.send_to_all(b"a", True)
    d.terminated(mine[0])
    d.send_to_all(b"b", False)
    assert drain(peers[0]) == []
    assert drain(peers[1]) == [[b"a", b"b"]]
    assert mine[0] not in d


def test_send_msg_to_gives_original_to_first_and_copies_to_others() -> None:
    d, mine, peers = make(2)
    msg = [b"a", b"b"]
    d.send_msg_to(mine, msg)
    got = [p.read() for p in peers]
    assert got == [msg, msg]
    assert sum(m is msg for m in got) == 1


def test_send_msg_to_skips_and_deactivates_full() -> None:
    d, mine, peers = make(2, sndhwm=1)
    d.send_to([mine[0]], b"fill", False)
    d.send_msg_to(mine, [b"x"])
    assert drain(peers[1]) == [[b"x"]]
    assert mine[0] not in d.eligible


def test_no_pipes_drops_silently() -> None:
    d = Distributor()
    d.send_to_all(b"x", True)
    d.send_to_all(b"y", False)
    assert not d.more
    assert d.has_out()


def test_unknown_pipe_events_are_ignored() -> None:
    d, _, _ = make(1)
    stranger, _, _ = strategy_pipe(None)
    d.activated(stranger)
    d.terminated(stranger)
    assert len(d) == 1
    assert not d.has_pipe(stranger)


def _mixed(n_sharing: int, n_private: int) -> tuple[Distributor, list[Pipe], list[Pipe]]:
    """Pipes whose reader encodes for the wire (sharing) and pipes whose reader
    is an inproc socket that may change the list (private), interleaved."""
    d, mine, peers = make(n_sharing + n_private)
    for i, pipe in enumerate(mine):
        pipe.shares_messages = i % 2 == 0 and i // 2 < n_sharing
    return d, mine, peers


def _lists_check(mine: list[Pipe], got: list[list[bytes]]) -> None:
    sharing = [id(m) for p, m in zip(mine, got, strict=True) if p.shares_messages]
    private = [id(m) for p, m in zip(mine, got, strict=True) if not p.shares_messages]
    assert len(set(sharing)) <= 1, "the sharing pipes share one list"
    assert len(set(private)) == len(private), "each private reader has its own list"
    assert not set(private) & set(sharing), "no private reader holds the shared list"


def test_sharing_pipes_get_one_list_per_message_private_ones_their_own() -> None:
    d, mine, peers = _mixed(3, 3)
    d.send_to_all(b"one", False)  # the single-frame path
    got = [p.read() for p in peers]
    assert all(m == [b"one"] for m in got)
    _lists_check(mine, got)

    d.send_to_all(b"a", True)  # the multipart path (_flush)
    d.send_to_all(b"b", False)
    got = [p.read() for p in peers]
    assert all(m == [b"a", b"b"] for m in got)
    _lists_check(mine, got)


def test_send_msg_to_shares_only_with_sharing_pipes() -> None:
    for order in ([True, False, True, False], [False, True, True, False], [True, True]):
        d, mine, peers = make(len(order))
        for pipe, sharing in zip(mine, order, strict=True):
            pipe.shares_messages = sharing
        msg = [b"x", b"y"]
        d.send_msg_to(mine, msg)
        got = [p.read() for p in peers]
        assert all(m == [b"x", b"y"] for m in got)
        _lists_check(mine, got)
        got[-1].append(b"changed")  # whoever holds a list, the others are safe
        assert all(m == [b"x", b"y"] for m in got[:-1] if m is not got[-1])
