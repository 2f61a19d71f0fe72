"""Subscriptions across implementations: SUB/XSUB subscribe and cancel reach
XPUB both ways, XPUB_VERBOSE against the other side's XSUB, and one publisher
fanning out to several subscribers with different prefixes."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import assert_nothing_received, bind, module_of, recv_poking, sync_subscribers

pytestmark = pytest.mark.interop

OTHER = {"pz": "lz", "lz": "pz"}


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
@pytest.mark.parametrize("binder", ["xpub", "sub"])
@pytest.mark.parametrize("xpub_impl", ["lz", "pz"])
def test_xpub_sees_subscribe_and_cancel(
    peers: Any, xpub_impl: str, binder: str, transport: str
) -> None:
    """SUB's subscribe/unsubscribe arrive at the other implementation's XPUB as
    0x01/0x00 messages (libzmq 4.3 sends them as SUBSCRIBE/CANCEL commands to a
    ZMTP 3.1 peer, and so does purezmq; see test_zmtp_versions for the wire)."""
    xpub = peers.socket(xpub_impl, "XPUB")
    sub = peers.socket(OTHER[xpub_impl], "SUB")
    if binder == "xpub":
        peers.link(xpub, sub, transport)
    else:
        peers.link(sub, xpub, transport)
    mod = module_of(sub)
    sub.setsockopt(mod.SUBSCRIBE, b"topic")
    sub.setsockopt(mod.SUBSCRIBE, b"")
    sub.setsockopt(mod.SUBSCRIBE, b"\x00binary\xff")
    # A bound SUB sends what it has when the connection attaches, in its
    # trie's order, so compare as a set.
    got = {recv_poking(xpub, sub)[0] for _ in range(3)}
    assert got == {b"\x01topic", b"\x01", b"\x01\x00binary\xff"}
    sub.setsockopt(mod.UNSUBSCRIBE, b"topic")
    assert recv_poking(xpub, sub) == [b"\x00topic"]
    sub.setsockopt(mod.UNSUBSCRIBE, b"")
    assert recv_poking(xpub, sub) == [b"\x00"]
    # What is left is honoured: only the binary topic gets through.
    xpub.send(b"topic-1")
    xpub.send(b"\x00binary\xff-2")
    assert sub.recv_multipart() == [b"\x00binary\xff-2"]
    assert_nothing_received(sub, 50)


@pytest.mark.parametrize("verbose", [True, False], ids=["verbose", "quiet"])
@pytest.mark.parametrize("xpub_impl", ["lz", "pz"])
def test_xsub_to_xpub_verbose(peers: Any, xpub_impl: str, verbose: bool) -> None:
    """An XSUB subscribes to A twice: an XPUB_VERBOSE XPUB passes both up, a
    quiet one only the first. XSUB counts them, so the first cancel stays local
    and the second reaches XPUB (once either way)."""
    xpub = peers.socket(xpub_impl, "XPUB")
    xsub = peers.socket(OTHER[xpub_impl], "XSUB")
    xpub.setsockopt(module_of(xpub).XPUB_VERBOSE, int(verbose))
    peers.link(xpub, xsub, "tcp")
    for sub in (b"\x01A", b"\x01A", b"\x01Z"):
        xsub.send(sub)
    expected = [b"\x01A", b"\x01A", b"\x01Z"] if verbose else [b"\x01A", b"\x01Z"]
    assert [recv_poking(xpub, xsub)[0] for _ in expected] == expected
    for sub in (b"\x00A", b"\x00A", b"\x01Y"):
        xsub.send(sub)
    assert [recv_poking(xpub, xsub)[0] for _ in range(2)] == [b"\x00A", b"\x01Y"]
    xpub.send(b"A-gone")
    xpub.send(b"Y-here")
    assert xsub.recv_multipart() == [b"Y-here"]


@pytest.mark.parametrize("xpub_impl", ["lz", "pz"])
def test_xpub_verbose_two_subscribers(peers: Any, xpub_impl: str) -> None:
    """Two SUBs of the other implementation subscribe to the same topic: a
    verbose XPUB reports both; the cancel is reported once the last one left."""
    xpub = peers.socket(xpub_impl, "XPUB", xpub_verbose=1)
    subs = [peers.socket(OTHER[xpub_impl], "SUB") for _ in range(2)]
    ep = bind(xpub, peers.endpoint("tcp"))
    for sub in subs:
        sub.connect(ep)
        sub.setsockopt(module_of(sub).SUBSCRIBE, b"news")
        assert recv_poking(xpub, sub) == [b"\x01news"]
    subs[0].setsockopt(module_of(subs[0]).UNSUBSCRIBE, b"news")
    subs[1].setsockopt(module_of(subs[1]).SUBSCRIBE, b"marker")
    # Not verbose for cancels (XPUB_VERBOSER): subs[1] still wants "news".
    assert recv_poking(xpub, *subs) == [b"\x01marker"]
    subs[1].setsockopt(module_of(subs[1]).UNSUBSCRIBE, b"news")
    assert recv_poking(xpub, *subs) == [b"\x00news"]


PREFIXES = [b"", b"a", b"ab", b"b"]
PUBLISHED = [
    [b"a1"],
    [b"ab2"],
    [b"b3"],
    [b"c4"],
    [b"abc5", b"", b"tail"],
    [b""],
    [b"a"],
    [b"ba6"],
    [b"A-upper"],
]


@pytest.mark.parametrize("pub_impl", ["lz", "pz"])
def test_pub_to_several_subscribers(peers: Any, pub_impl: str) -> None:
    """One PUB, one SUB of the other implementation per prefix (including the
    empty one and nested ones): each SUB gets exactly its matches, in order."""
    pub = peers.socket(pub_impl, "PUB")
    ep = bind(pub, peers.endpoint("tcp"))
    subs = []
    for prefix in PREFIXES:
        sub = peers.socket(OTHER[pub_impl], "SUB")
        sub.connect(ep)
        sub.setsockopt(module_of(sub).SUBSCRIBE, prefix)
        subs.append((sub, prefix))
    sync_subscribers(pub, subs)
    for msg in PUBLISHED:
        pub.send_multipart(msg)
    for sub, prefix in subs:
        expected = [m for m in PUBLISHED if m[0].startswith(prefix)]
        got = [sub.recv_multipart() for _ in expected]
        assert got == expected, prefix
    for sub, _ in subs:
        assert_nothing_received(sub, 30)


@pytest.mark.parametrize("pub_impl", ["lz", "pz"])
def test_xpub_to_several_subscribers_synced_by_subscriptions(peers: Any, pub_impl: str) -> None:
    """Same fan-out, with the slow joiner beaten by waiting for each
    subscription at an XPUB instead of probing."""
    xpub = peers.socket(pub_impl, "XPUB")
    ep = bind(xpub, peers.endpoint("ipc"))
    subs = []
    for prefix in PREFIXES:
        sub = peers.socket(OTHER[pub_impl], "SUB")
        sub.connect(ep)
        sub.setsockopt(module_of(sub).SUBSCRIBE, prefix)
        subs.append((sub, prefix))
    got_subs = {recv_poking(xpub)[0] for _ in PREFIXES}
    assert got_subs == {b"\x01" + p for p in PREFIXES}
    for msg in PUBLISHED:
        xpub.send_multipart(msg)
    for sub, prefix in subs:
        expected = [m for m in PUBLISHED if m[0].startswith(prefix)]
        assert [sub.recv_multipart() for _ in expected] == expected, prefix
        assert_nothing_received(sub, 30)
