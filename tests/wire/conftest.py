"""Fixtures for the wire tests: purezmq sockets bound on TCP, raw peers,
monitor readers and a "healthy peer" that proves a socket still works.

Everything waits with a deadline: raw sockets have timeouts, purezmq sockets
have RCVTIMEO/SNDTIMEO, monitors poll with a timeout.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator

import pytest

import purezmq as zmq

from .helpers import IO_TIMEOUT_MS, Bound, HealthyPeer, Monitor
from .zmtp_raw import RawPeer


@pytest.fixture
def bound(ctx: zmq.Context) -> Callable[..., Bound]:
    """bound("ROUTER", MAXMSGSIZE=10) -> a purezmq socket bound on 127.0.0.1:*.

    Options are set before bind (named as in pyzmq); LINGER 0 and 5 s
    send/receive timeouts unless given."""

    def make(socket_type: str, **options: object) -> Bound:
        sock = ctx.socket(getattr(zmq, socket_type))
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, IO_TIMEOUT_MS)
        sock.setsockopt(zmq.SNDTIMEO, IO_TIMEOUT_MS)
        for name, value in options.items():
            sock.setsockopt(getattr(zmq, name), value)
        sock.bind("tcp://127.0.0.1:*")
        endpoint = sock.get(zmq.LAST_ENDPOINT).decode()
        return Bound(sock, int(endpoint.rsplit(":", 1)[1]), endpoint)

    return make


@pytest.fixture
def raw() -> Iterator[Callable[..., RawPeer]]:
    """raw(port) -> a connected RawPeer, closed at teardown."""
    peers: list[RawPeer] = []

    def connect(port: int, timeout: float = 5.0) -> RawPeer:
        peer = RawPeer.connect(port, timeout)
        peers.append(peer)
        return peer

    yield connect
    for peer in peers:
        peer.close()


@pytest.fixture
def monitor() -> Callable[..., Monitor]:
    """monitor(sock, events=None) -> a Monitor reading purezmq's own
    get_monitor_socket (the ctx fixture closes everything)."""
    counter = itertools.count()

    def make(sock: zmq.Socket, events: int | None = None) -> Monitor:
        addr = f"inproc://wire-mon-{os.getpid()}-{id(sock):x}-{next(counter)}"
        mon = sock.get_monitor_socket(events, addr=addr)
        mon.setsockopt(zmq.LINGER, 0)
        return Monitor(mon)

    return make


@pytest.fixture
def healthy(raw: Callable[..., RawPeer]) -> Callable[[Bound], HealthyPeer]:
    """healthy(router) -> a connected HealthyPeer that already did one roundtrip."""

    def make(router: Bound) -> HealthyPeer:
        h = HealthyPeer(router, raw)
        h.roundtrip()
        return h

    return make
