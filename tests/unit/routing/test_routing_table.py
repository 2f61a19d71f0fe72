"""Routing ids: libzmq router_t::identify_peer rules."""

from __future__ import annotations

from purezmq._routing.pipe import Pipe, pipepair
from purezmq._routing.routing_table import RoutingTable


def pipe(identity: bytes = b"", routing_id: bytes = b"") -> Pipe:
    p = pipepair(None, None)[0]
    p.peer_identity = identity
    p.routing_id = routing_id
    return p


def table() -> tuple[RoutingTable, list[Pipe]]:
    evicted: list[Pipe] = []
    return RoutingTable(evicted.append), evicted


def test_peer_identity_is_used() -> None:
    t, _ = table()
    p = pipe(b"alice")
    assert t.attach(p, locally_initiated=False)
    assert p.routing_id == b"alice"
    assert t.lookup(b"alice") is p
    assert t.lookup(bytearray(b"alice")) is p
    assert t.lookup(memoryview(b"alice")) is p


def test_generated_ids_are_5_bytes_zero_then_big_endian_counter() -> None:
    t, _ = table()
    t._next_id = 0xFFFFFFFF
    a, b = pipe(), pipe()
    t.attach(a, False)
    t.attach(b, False)
    assert a.routing_id == b"\x00\xff\xff\xff\xff"
    assert b.routing_id == b"\x00\x00\x00\x00\x00"  # wraps around


def test_generated_ids_skip_ids_in_use() -> None:
    t, _ = table()
    t._next_id = 7
    taken = pipe(b"\x00\x00\x00\x00\x07")
    t.attach(taken, False)
    fresh = pipe()
    t.attach(fresh, False)
    assert fresh.routing_id == b"\x00\x00\x00\x00\x08"


def test_preset_routing_id_wins_over_identity() -> None:
    t, _ = table()
    p = pipe(b"announced", routing_id=b"chosen")
    assert t.attach(p, locally_initiated=True)
    assert t.lookup(b"chosen") is p
    assert t.lookup(b"announced") is None


def test_connect_side_pipe_is_anonymous_until_identified() -> None:
    t, _ = table()
    p = pipe()
    assert not t.attach(p, locally_initiated=True)
    assert t.is_anonymous(p)
    assert len(t) == 0
    p.peer_identity = b"bob"
    assert t.identify(p)
    assert t.lookup(b"bob") is p
    assert not t.identify(p)  # a second identification changes nothing
    assert p.routing_id == b"bob"


def test_duplicate_identity_without_handover_stays_anonymous() -> None:
    t, evicted = table()
    first, second = pipe(b"x"), pipe(b"x")
    assert t.attach(first, False)
    assert not t.attach(second, False)
    assert t.is_anonymous(second)
    assert t.lookup(b"x") is first
    assert evicted == []
    assert not t.terminated(second)


def test_duplicate_identity_with_handover_evicts_the_old_pipe() -> None:
    t, evicted = table()
    t.handover = True
    first, second = pipe(b"x"), pipe(b"x")
    t.attach(first, False)
    assert t.attach(second, False)
    assert evicted == [first]
    assert t.lookup(b"x") is second
    assert first.routing_id == b""
    assert not t.terminated(first)  # already gone: must not remove the newcomer
    assert t.lookup(b"x") is second


def test_terminated_forgets_only_its_own_entry() -> None:
    t, _ = table()
    a = pipe(b"a")
    t.attach(a, False)
    assert t.terminated(a)
    assert t.lookup(b"a") is None
    assert not t.terminated(a)
    assert not t.terminated(pipe(b"unknown"))
