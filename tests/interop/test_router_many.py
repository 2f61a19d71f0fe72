"""One ROUTER serving 50 DEALERs of the other implementation at once: every
DEALER has its own ROUTING_ID, several requests in flight, and every reply
is routed back to the DEALER that asked."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import bind, module_of

pytestmark = pytest.mark.interop

DEALERS = 50
REQUESTS = 5


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
@pytest.mark.parametrize("router_impl", ["pz", "lz"])
def test_router_serves_fifty_dealers(peers: Any, router_impl: str, transport: str) -> None:
    dealer_impl = "lz" if router_impl == "pz" else "pz"
    router = peers.socket(router_impl, "ROUTER")
    ep = bind(router, peers.endpoint(transport))
    dealers = []
    for i in range(DEALERS):
        d = peers.socket(dealer_impl, "DEALER")
        d.setsockopt(module_of(d).ROUTING_ID, b"dealer-%02d" % i)
        d.connect(ep)
        dealers.append(d)
    # Every DEALER has all its requests in flight before the ROUTER reads any.
    for n in range(REQUESTS):
        for i, d in enumerate(dealers):
            d.send_multipart([b"req", b"%d.%d" % (i, n)])
    per_peer: dict[bytes, list[bytes]] = {}
    for _ in range(DEALERS * REQUESTS):
        rid, kind, body = router.recv_multipart()
        assert kind == b"req"
        per_peer.setdefault(rid, []).append(body)
        router.send_multipart([rid, b"rep", body + b" for " + rid])
    # Each peer's requests arrived in order, under its own identity.
    assert per_peer == {
        b"dealer-%02d" % i: [b"%d.%d" % (i, n) for n in range(REQUESTS)] for i in range(DEALERS)
    }
    for i, d in enumerate(dealers):
        replies = [d.recv_multipart() for _ in range(REQUESTS)]
        assert replies == [[b"rep", b"%d.%d for dealer-%02d" % (i, n, i)] for n in range(REQUESTS)]
        assert not d.poll(0)
