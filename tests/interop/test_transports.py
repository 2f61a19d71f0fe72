"""Transport corners against libzmq: IPv6 loopback, and connecting before the
peer has bound (the connecter retries until the endpoint comes up)."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from .helpers import bind, bind_retrying, free_tcp_endpoint

pytestmark = pytest.mark.interop


def _has_ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")
@pytest.mark.parametrize("binder", ["pz", "lz"])
def test_ipv6_loopback(peers: Any, binder: str) -> None:
    connecter = "lz" if binder == "pz" else "pz"
    server = peers.socket(binder, "ROUTER", ipv6=1)
    client = peers.socket(connecter, "DEALER", ipv6=1, routing_id=b"v6-client")
    ep = bind(server, "tcp://[::1]:*")
    assert ep.startswith("tcp://[::1]:"), ep
    client.connect(ep)
    client.send_multipart([b"over", b"ipv6"])
    assert server.recv_multipart() == [b"v6-client", b"over", b"ipv6"]
    server.send_multipart([b"v6-client", b"back"])
    assert client.recv_multipart() == [b"back"]


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
@pytest.mark.parametrize("connecter", ["pz", "lz"])
def test_connect_before_bind(peers: Any, connecter: str, transport: str) -> None:
    """Messages sent while nothing listens wait in the connecter's pipe and are
    delivered, in order, once the other implementation binds."""
    binder = "lz" if connecter == "pz" else "pz"
    ep = free_tcp_endpoint() if transport == "tcp" else peers.endpoint("ipc")
    push = peers.socket(connecter, "PUSH", reconnect_ivl=20)
    push.connect(ep)
    for i in range(3):
        push.send_multipart([b"early", b"%d" % i])
    pull = peers.socket(binder, "PULL")
    pull.bind(ep)
    assert [pull.recv_multipart() for _ in range(3)] == [[b"early", b"%d" % i] for i in range(3)]
    push.send(b"later")
    assert pull.recv() == b"later"


@pytest.mark.parametrize("connecter", ["pz", "lz"])
def test_reconnect_after_peer_rebinds(peers: Any, connecter: str) -> None:
    """The bound peer goes away and comes back on the same endpoint: the other
    implementation's connecting socket reconnects and traffic resumes."""
    binder = "lz" if connecter == "pz" else "pz"
    ep = free_tcp_endpoint()
    dealer = peers.socket(connecter, "DEALER", reconnect_ivl=20)
    first = peers.socket(binder, "DEALER")
    first.bind(ep)
    dealer.connect(ep)
    dealer.send(b"one")
    assert first.recv() == b"one"
    first.close(linger=0)
    second = peers.socket(binder, "DEALER")
    bind_retrying(second, ep)
    # A bound DEALER's send waits for a peer: it completes once the connecter
    # is back (a message sent *into* the dying connection could be lost, in
    # libzmq as anywhere).
    second.send(b"welcome back")
    assert dealer.recv() == b"welcome back"
    dealer.send(b"two")
    assert second.recv() == b"two"


@pytest.mark.parametrize("binder", ["pz", "lz"])
def test_rebind_ipc_path_right_after_close(peers: Any, binder: str) -> None:
    """close() then bind() of the same ipc path at once, as pyzmq programs do:
    libzmq replaces the old socket file, so the bind always succeeds and the
    other implementation can connect. Repeated, because a race shows only
    sometimes."""
    connecter = "lz" if binder == "pz" else "pz"
    ep = peers.endpoint("ipc")
    old = peers.socket(binder, "PULL")
    old.bind(ep)
    for i in range(20):
        old.close(linger=0)
        new = peers.socket(binder, "PULL")
        new.bind(ep)
        push = peers.socket(connecter, "PUSH")
        push.connect(ep)
        push.send(b"round %d" % i)
        assert new.recv() == b"round %d" % i
        push.close(linger=0)
        old = new
