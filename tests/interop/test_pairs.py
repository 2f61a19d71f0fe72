"""Every compatible socket pair against libzmq: both implementations in each
role of the pair, both sides binding, over tcp and ipc.

The table below names the pairs; one exchange function per pattern family
runs the conversation the pattern allows, in every direction it allows,
with multipart messages and empty frames, and checks identities and
envelopes where the pattern has them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .helpers import (
    assert_nothing_received,
    impl_of,
    module_of,
    recv_poking,
    send_when_routable,
    sync_subscribers,
)

pytestmark = pytest.mark.interop

#: Messages with the awkward shapes: multipart, empty frames first/middle/last,
#: a lone empty frame, binary.
MESSAGES: list[list[bytes]] = [
    [b"hello"],
    [b"multi", b"", b"part", b""],
    [b""],
    [b"", b"starts-empty"],
    [bytes(range(256)), b"\x00"],
]


def routing_id(sock: Any) -> bytes:
    return f"{impl_of(sock)}-{sock.getsockopt(module_of(sock).TYPE)}".encode()


# --------------------------------------------------------------- exchanges
def exchange_pair(a: Any, b: Any) -> None:
    """PAIR-PAIR and DEALER-DEALER: everything both ways, in order."""
    for msg in MESSAGES:
        a.send_multipart(msg)
    assert [b.recv_multipart() for _ in MESSAGES] == MESSAGES
    for msg in MESSAGES:
        b.send_multipart(msg)
    assert [a.recv_multipart() for _ in MESSAGES] == MESSAGES


def exchange_pipeline(push: Any, pull: Any) -> None:
    for msg in MESSAGES:
        push.send_multipart(msg)
    assert [pull.recv_multipart() for _ in MESSAGES] == MESSAGES


def exchange_req_rep(req: Any, rep: Any) -> None:
    """REP sees the body without envelope; the reply reaches REQ without one."""
    for msg in MESSAGES:
        req.send_multipart(msg)
        assert rep.recv_multipart() == msg
        reply = [b"re:", *msg]
        rep.send_multipart(reply)
        assert req.recv_multipart() == reply


def exchange_req_router(req: Any, router: Any) -> None:
    """ROUTER sees [REQ's ROUTING_ID, empty delimiter, body]."""
    for msg in MESSAGES:
        req.send_multipart(msg)
        assert router.recv_multipart() == [routing_id(req), b"", *msg]
        router.send_multipart([routing_id(req), b"", b"re:", *msg])
        assert req.recv_multipart() == [b"re:", *msg]


def exchange_dealer_rep(dealer: Any, rep: Any) -> None:
    """DEALER supplies the empty delimiter itself; several requests in flight."""
    for msg in MESSAGES:
        dealer.send_multipart([b"", *msg])
    for msg in MESSAGES:
        assert rep.recv_multipart() == msg
        rep.send_multipart([b"re:", *msg])
    for msg in MESSAGES:
        assert dealer.recv_multipart() == [b"", b"re:", *msg]
    # A multi-hop envelope (as behind a broker) comes back whole with the reply.
    dealer.send_multipart([b"hop-1", b"\x00hop-2", b"", b"deep"])
    assert rep.recv_multipart() == [b"deep"]
    rep.send_multipart([b"deep reply", b""])
    assert dealer.recv_multipart() == [b"hop-1", b"\x00hop-2", b"", b"deep reply", b""]


def exchange_dealer_router(dealer: Any, router: Any) -> None:
    """ROUTER prefixes DEALER's ROUTING_ID; replies are routed by it, and
    envelope frames after the id reach the DEALER untouched."""
    for msg in MESSAGES:
        dealer.send_multipart(msg)
    for msg in MESSAGES:
        assert router.recv_multipart() == [routing_id(dealer), *msg]
    for msg in MESSAGES:
        router.send_multipart([routing_id(dealer), b"hop", b"", *msg])
    for msg in MESSAGES:
        assert dealer.recv_multipart() == [b"hop", b"", *msg]
    # A message for an unknown peer is dropped without disturbing the known one.
    router.send_multipart([b"nobody", b"lost"])
    router.send_multipart([routing_id(dealer), b"after"])
    assert dealer.recv_multipart() == [b"after"]


def exchange_router_router(a: Any, b: Any) -> None:
    """Both know each other's ROUTING_ID once the handshake is done."""
    a.setsockopt(module_of(a).ROUTER_MANDATORY, 1)
    send_when_routable(a, [routing_id(b), b"first", b""])
    assert b.recv_multipart() == [routing_id(a), b"first", b""]
    for msg in MESSAGES:
        b.send_multipart([routing_id(a), *msg])
        assert a.recv_multipart() == [routing_id(b), *msg]
        a.send_multipart([routing_id(b), *msg])
        assert b.recv_multipart() == [routing_id(a), *msg]


def _publish_and_check(pub: Any, sub: Any) -> None:
    """SUB/XSUB subscribed to b"A" only (and synced): exactly the matches arrive."""
    published = [[b"A1"], [b"B1"], [b"A", b"", b"multi"], [b"a-lower"], [b"AB"], [b""], [b"Aend"]]
    for msg in published:
        pub.send_multipart(msg)
    expected = [m for m in published if m[0].startswith(b"A")]
    assert [sub.recv_multipart() for _ in expected] == expected


def _unsubscribe_and_check(pub: Any, sub: Any, cancel_a_subscribe_z: Callable[[], None]) -> None:
    """Cancel A and subscribe Z on the same connection: once Z flows, the cancel
    has been applied (it was sent first), so A must be filtered out."""
    cancel_a_subscribe_z()
    sync_subscribers(pub, [(sub, b"Z")])
    pub.send_multipart([b"A-after-cancel"])
    pub.send_multipart([b"Zend", b""])
    assert sub.recv_multipart() == [b"Zend", b""]
    assert_nothing_received(sub, 50)


def exchange_pub_sub(pub: Any, sub: Any) -> None:
    sub.setsockopt(module_of(sub).SUBSCRIBE, b"A")
    sync_subscribers(pub, [(sub, b"A")])
    _publish_and_check(pub, sub)

    def change() -> None:
        sub.setsockopt(module_of(sub).UNSUBSCRIBE, b"A")
        sub.setsockopt(module_of(sub).SUBSCRIBE, b"Z")

    _unsubscribe_and_check(pub, sub, change)


def exchange_pub_xsub(pub: Any, xsub: Any) -> None:
    xsub.send(b"\x01A")
    sync_subscribers(pub, [(xsub, b"A")])
    _publish_and_check(pub, xsub)

    def change() -> None:
        xsub.send(b"\x00A")
        xsub.send(b"\x01Z")

    _unsubscribe_and_check(pub, xsub, change)


def exchange_xpub_sub(xpub: Any, sub: Any) -> None:
    """XPUB receives SUB's subscribe/cancel as 0x01/0x00 messages."""
    mod = module_of(sub)
    sub.setsockopt(mod.SUBSCRIBE, b"A")
    assert recv_poking(xpub, sub) == [b"\x01A"]
    _publish_and_check(xpub, sub)
    sub.setsockopt(mod.UNSUBSCRIBE, b"A")
    assert recv_poking(xpub, sub) == [b"\x00A"]
    sub.setsockopt(mod.SUBSCRIBE, b"Z")
    assert recv_poking(xpub, sub) == [b"\x01Z"]
    xpub.send_multipart([b"A-after-cancel"])
    xpub.send_multipart([b"Zend"])
    assert sub.recv_multipart() == [b"Zend"]


def exchange_xpub_xsub(xpub: Any, xsub: Any) -> None:
    """Subscriptions up as messages; XSUB's other messages reach XPUB too."""
    xsub.send(b"\x01A")
    assert recv_poking(xpub, xsub) == [b"\x01A"]
    _publish_and_check(xpub, xsub)
    xsub.send(b"upstream data")
    assert recv_poking(xpub, xsub) == [b"upstream data"]
    xsub.send(b"\x00A")
    assert recv_poking(xpub, xsub) == [b"\x00A"]
    xsub.send(b"\x01Z")
    assert recv_poking(xpub, xsub) == [b"\x01Z"]
    xpub.send_multipart([b"A-after-cancel"])
    xpub.send_multipart([b"Zend"])
    assert xsub.recv_multipart() == [b"Zend"]


#: (type of a, type of b, conversation(a, b))
PAIRS: list[tuple[str, str, Callable[[Any, Any], None]]] = [
    ("PAIR", "PAIR", exchange_pair),
    ("PUSH", "PULL", exchange_pipeline),
    ("REQ", "REP", exchange_req_rep),
    ("REQ", "ROUTER", exchange_req_router),
    ("DEALER", "REP", exchange_dealer_rep),
    ("DEALER", "DEALER", exchange_pair),
    ("DEALER", "ROUTER", exchange_dealer_router),
    ("ROUTER", "ROUTER", exchange_router_router),
    ("PUB", "SUB", exchange_pub_sub),
    ("PUB", "XSUB", exchange_pub_xsub),
    ("XPUB", "SUB", exchange_xpub_sub),
    ("XPUB", "XSUB", exchange_xpub_xsub),
]

IDENTIFIED = {"REQ", "DEALER", "ROUTER"}


def _cases() -> list[Any]:
    cases = []
    for type_a, type_b, exchange in PAIRS:
        # For a symmetric pair, swapping implementations only swaps who binds.
        impls = [("pz", "lz")] if type_a == type_b else [("pz", "lz"), ("lz", "pz")]
        for impl_a, impl_b in impls:
            for binder in ("a", "b"):
                for transport in ("tcp", "ipc"):
                    bind_impl = impl_a if binder == "a" else impl_b
                    case_id = f"{impl_a}.{type_a}-{impl_b}.{type_b}-{bind_impl}.binds-{transport}"
                    cases.append(
                        pytest.param(
                            type_a, impl_a, type_b, impl_b, binder, transport, exchange, id=case_id
                        )
                    )
    return cases


@pytest.mark.parametrize(
    ("type_a", "impl_a", "type_b", "impl_b", "binder", "transport", "exchange"), _cases()
)
def test_pair(
    peers: Any,
    type_a: str,
    impl_a: str,
    type_b: str,
    impl_b: str,
    binder: str,
    transport: str,
    exchange: Callable[[Any, Any], None],
) -> None:
    a = peers.socket(impl_a, type_a)
    b = peers.socket(impl_b, type_b)
    for sock in (a, b):
        if type_a in IDENTIFIED and type_b in IDENTIFIED:
            sock.setsockopt(module_of(sock).ROUTING_ID, routing_id(sock))
    if binder == "a":
        peers.link(a, b, transport)
    else:
        peers.link(b, a, transport)
    exchange(a, b)


@pytest.mark.parametrize("router_impl", ["pz", "lz"])
@pytest.mark.parametrize("client_type", ["DEALER", "REQ"])
def test_router_generates_routing_ids(peers: Any, router_impl: str, client_type: str) -> None:
    """Without ROUTING_ID the ROUTER makes one (libzmq: 5 bytes, first byte 0)
    per peer; replies routed by it reach the right peer."""
    client_impl = "lz" if router_impl == "pz" else "pz"
    router = peers.socket(router_impl, "ROUTER")
    clients = [peers.socket(client_impl, client_type) for _ in range(3)]
    ep = peers.link(router, clients[0], "tcp")
    for c in clients[1:]:
        c.connect(ep)
    delim = [b""] if client_type == "REQ" else []  # REQ adds/strips it itself
    for i, c in enumerate(clients):
        c.send_multipart([b"from %d" % i])
    ids = {}
    for _ in clients:
        rid, *rest = router.recv_multipart()
        assert rest[:-1] == delim
        ids[rest[-1]] = rid
    assert len(set(ids.values())) == len(clients)
    for rid in ids.values():
        assert len(rid) == 5 and rid[0] == 0, rid
    for body, rid in ids.items():
        router.send_multipart([rid, *delim, b"back:" + body])
    for i, c in enumerate(clients):
        assert c.recv_multipart() == [b"back:from %d" % i]
