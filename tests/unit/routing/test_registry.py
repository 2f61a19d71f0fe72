"""The registry and the common contract of every pattern."""

from __future__ import annotations

import pytest

from purezmq._routing.errors import InvalidError, NotSupportedError, RoutingError
from purezmq._routing.patterns import PATTERNS, Pattern

from .helpers import Harness

ALL = ["PAIR", "PUB", "SUB", "REQ", "REP", "DEALER", "ROUTER", "PULL", "PUSH", "XPUB", "XSUB"]
ALL.append("STREAM")
#: libzmq's draft types, always built in; all but DGRAM are thread-safe.
DRAFT = ["SERVER", "CLIENT", "RADIO", "DISH", "GATHER", "SCATTER", "PEER", "CHANNEL"]
ALL += [*DRAFT, "DGRAM"]


def test_registry_has_every_socket_type() -> None:
    assert sorted(PATTERNS) == sorted(ALL)
    for name, cls in PATTERNS.items():
        assert cls.socket_type == name
        assert issubclass(cls, Pattern)


def test_sends_subscriptions_only_for_sub_and_xsub() -> None:
    assert {n for n, c in PATTERNS.items() if c.sends_subscriptions} == {"SUB", "XSUB"}


@pytest.mark.parametrize("name", ALL)
def test_unknown_option_is_einval(name: str) -> None:
    p = PATTERNS[name]()
    with pytest.raises(InvalidError) as exc:
        p.set_option("no_such_option", 1)
    assert exc.value.errno_name == "EINVAL"
    with pytest.raises(InvalidError):
        p.get_option("no_such_option")


@pytest.mark.parametrize("name", ALL)
def test_options_are_accepted_by_set_option(name: str) -> None:
    """Every advertised option can be set with a sensible value (or is read-only)."""
    p = PATTERNS[name]()
    for opt in sorted(p.options):
        if opt == "topics_count":
            assert isinstance(p.get_option(opt), int)
            continue
        value: object = b"topic" if opt in ("subscribe", "unsubscribe", "xpub_welcome_msg") else 0
        if opt in ("subscribe", "unsubscribe") and name in ("PUB", "XPUB"):
            p.set_option("xpub_manual", 1)
        if opt == "connect_routing_id":
            value = b"id"
        p.set_option(opt, value)


@pytest.mark.parametrize("name", ALL)
def test_negative_flag_values_are_einval(name: str) -> None:
    p = PATTERNS[name]()
    flags = sorted(
        o
        for o in p.options
        if o not in ("subscribe", "unsubscribe", "xpub_welcome_msg", "connect_routing_id")
        and o != "topics_count"
    )
    for opt in flags:
        with pytest.raises(InvalidError):
            p.set_option(opt, -1)


@pytest.mark.parametrize("name", ALL)
def test_unknown_pipe_events_are_tolerated(name: str) -> None:
    """Duplicate and stray events never raise nor disturb the pattern."""
    h = Harness(PATTERNS[name]())
    peer = h.connect()
    stranger = Harness(PATTERNS[name]()).connect().pipe
    p = h.pattern
    for event in (p.read_activated, p.write_activated, p.hiccuped, p.pipe_identified):
        event(stranger)
        event(peer.pipe)
        event(peer.pipe)
    p.pipe_terminated(stranger)
    h.terminate(peer)
    p.pipe_terminated(peer.pipe)
    p.read_activated(peer.pipe)
    p.write_activated(peer.pipe)
    try:
        assert p.recv() is None
    except RoutingError:
        pass  # ENOTSUP / EFSM by type


def test_thread_safe_are_the_draft_types() -> None:
    assert sorted(n for n, c in PATTERNS.items() if c.thread_safe) == sorted(DRAFT)


@pytest.mark.parametrize("name", ["PUSH", "PUB", "RADIO", "SCATTER"])
def test_send_only_types_cannot_receive(name: str) -> None:
    p = PATTERNS[name]()
    with pytest.raises(NotSupportedError):
        p.recv()
    assert not p.has_in()


@pytest.mark.parametrize("name", ["PULL", "SUB", "GATHER"])
def test_receive_only_types_cannot_send(name: str) -> None:
    p = PATTERNS[name]()
    with pytest.raises(NotSupportedError):
        p.send(b"x", False)
    with pytest.raises(NotSupportedError):
        p.send_msg([b"x"])
    assert not p.has_out()


def test_dish_cannot_send_but_is_writable() -> None:
    """libzmq's DISH: send is ENOTSUP, POLLOUT always set (joins may go any time)."""
    p = PATTERNS["DISH"]()
    with pytest.raises(NotSupportedError):
        p.send(b"x", False)
    assert p.has_out()


@pytest.mark.parametrize("name", ALL)
def test_last_pipe_starts_empty(name: str) -> None:
    assert PATTERNS[name]().last_pipe is None
