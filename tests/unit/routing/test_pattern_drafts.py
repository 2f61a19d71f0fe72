"""The draft patterns alone (libzmq src/{client,server,radio,dish,scatter,
gather,peer,channel,dgram}.cpp), with pipes and no sockets."""

from __future__ import annotations

import pytest

from purezmq._routing.errors import HostUnreachableError, InvalidError, NotSupportedError
from purezmq._routing.patterns import PATTERNS, Addressed

from .helpers import Harness

SINGLE_PART_SENDERS = ["CLIENT", "SERVER", "RADIO", "SCATTER", "PEER", "CHANNEL"]


@pytest.mark.parametrize("name", SINGLE_PART_SENDERS)
def test_sndmore_is_einval_and_consumes_nothing(name: str) -> None:
    h = Harness(PATTERNS[name]())
    peer = h.connect()
    with pytest.raises(InvalidError):
        h.pattern.send(b"a", True)
    with pytest.raises(InvalidError):
        h.pattern.send_msg([b"a", b"b"])
    assert peer.queued == 0


@pytest.mark.parametrize("name", ["CLIENT", "SERVER", "GATHER", "PEER", "CHANNEL"])
def test_multipart_from_a_peer_is_dropped(name: str) -> None:
    h = Harness(PATTERNS[name]())
    peer = h.connect()
    peer.send(b"a", b"b")
    peer.send(b"whole")
    assert h.recv_all() == [[b"whole"]]


def test_server_routing_ids() -> None:
    h = Harness(PATTERNS["SERVER"]())
    a, b = h.connect(), h.connect()
    a.send(b"from a")
    b.send(b"from b")
    ids = {}
    for _ in range(2):
        msg = h.recv()
        assert msg is not None
        rid, group = h.pattern.last_address()
        assert rid != 0 and group is None
        ids[msg[0]] = rid
    assert len(set(ids.values())) == 2
    assert h.pattern.send(Addressed(b"to b", ids[b"from b"]), False)
    assert b.recv_all() == [[b"to b"]] and a.recv_all() == []
    with pytest.raises(HostUnreachableError):
        h.pattern.send(b"no id", False)
    h.terminate(a)
    with pytest.raises(HostUnreachableError):
        h.pattern.send(Addressed(b"gone", ids[b"from a"]), False)


def test_server_full_peer_is_eagain() -> None:
    h = Harness(PATTERNS["SERVER"]())
    peer = h.connect(sndhwm=1)
    peer.send(b"x")
    h.recv()
    rid = h.pattern.last_address()[0]
    assert h.pattern.send(Addressed(b"1", rid), False)
    assert not h.pattern.send(Addressed(b"2", rid), False)  # EAGAIN
    assert h.pattern.has_out()  # always: depends on the routing id


def test_peer_knows_the_last_attached_id() -> None:
    h = Harness(PATTERNS["PEER"]())
    h.connect()
    first = h.pattern.last_attached
    h.connect()
    assert h.pattern.last_attached not in (0, first)


def test_radio_sends_to_joined_pipes_only() -> None:
    h = Harness(PATTERNS["RADIO"]())
    a, b = h.connect(), h.connect()
    a.send(b"\x04JOINnews")
    b.send(b"\x04JOINsport")
    h.pattern.read_activated(a.pipe)
    h.pattern.read_activated(b.pipe)
    assert h.pattern.send(Addressed(b"story", group=b"news"), False)
    assert a.recv_all() == [[b"news", b"story"]] and b.recv_all() == []
    a.send(b"\x05LEAVEnews")
    h.pattern.read_activated(a.pipe)
    h.pattern.send(Addressed(b"late", group=b"news"), False)
    assert a.recv_all() == []
    with pytest.raises(InvalidError):
        h.pattern.send(Addressed(b"x", group=b"g" * 256), False)


def test_radio_all_groups_pipe_gets_everything() -> None:
    h = Harness(PATTERNS["RADIO"]())
    peer = h.connect()
    peer.pipe.all_groups = True
    h.pattern.pipe_terminated(peer.pipe)  # re-attach, now marked
    h.pattern.attach_pipe(peer.pipe, True)
    h.pattern.send(Addressed(b"any", group=b"whatever"), False)
    assert peer.recv_all() == [[b"whatever", b"any"]]


def test_dish_joins_filters_and_rejoins() -> None:
    h = Harness(PATTERNS["DISH"]())
    h.pattern.join(b"a")
    peer = h.connect()
    assert peer.recv_all() == [[b"\x04JOINa"]]  # joins before the pipe came
    h.pattern.join(b"b")
    h.pattern.leave(b"a")
    assert peer.recv_all() == [[b"\x04JOINb"], [b"\x05LEAVEa"]]
    with pytest.raises(InvalidError):
        h.pattern.join(b"b")
    with pytest.raises(InvalidError):
        h.pattern.leave(b"a")
    peer.send(b"a", b"left group")
    peer.send(b"b", b"kept")
    peer.send(b"malformed")
    assert h.pattern.has_in()
    assert h.recv_all() == [[b"kept"]]
    assert h.pattern.last_address() == (0, b"b")
    peer.hiccup()  # reconnected: the socket side calls hiccuped
    assert peer.recv_all() == [[b"\x04JOINb"]]
    with pytest.raises(NotSupportedError):
        h.pattern.send(b"x", False)


def test_scatter_round_robin_gather_fair() -> None:
    s = Harness(PATTERNS["SCATTER"]())
    a, b = s.connect(), s.connect()
    for i in range(4):
        assert s.pattern.send(b"%d" % i, False)
    assert a.recv_all() == [[b"0"], [b"2"]] and b.recv_all() == [[b"1"], [b"3"]]
    g = Harness(PATTERNS["GATHER"]())
    c, d = g.connect(), g.connect()
    c.send(b"c1")
    c.send(b"c2")
    d.send(b"d1")
    assert g.recv_all() == [[b"c1"], [b"d1"], [b"c2"]]


def test_channel_one_peer() -> None:
    h = Harness(PATTERNS["CHANNEL"]())
    assert not h.pattern.send(b"nobody", False)
    first, second = h.connect(), h.connect()
    assert second.pipe.out_closed  # refused
    assert h.pattern.send(b"x", False)
    assert first.recv_all() == [[b"x"]]


def test_dgram_two_frames() -> None:
    h = Harness(PATTERNS["DGRAM"]())
    peer = h.connect()
    with pytest.raises(InvalidError):
        h.pattern.send(b"body without address", False)
    assert h.send(b"1.2.3.4:5", b"body")
    with pytest.raises(InvalidError):
        h.pattern.send(b"1.2.3.4:5", True)
        h.pattern.send(b"three", True)
    assert peer.recv_all() == [[b"1.2.3.4:5", b"body"]]
    peer.send(b"5.6.7.8:9\0", b"in")
    assert h.recv_all() == [[b"5.6.7.8:9\0", b"in"]]
