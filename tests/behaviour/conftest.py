"""Helpers for the socket-behaviour tests (fixtures shared by tests/behaviour).

The base fixtures (`ctx`, `transport`, `endpoint_for`, `ipc_dir`) and helpers
(`wait_until`, `bind_any`) live in tests/conftest.py. Here:

- `make(type, **options)`: a socket of the `ctx` fixture with LINGER 0 and
  5 s send/receive timeouts (so a broken test raises Again instead of
  hanging), options set as attributes;
- `Events`: reads a socket's monitor (libzmq's two-frame events);
- `wait_for_peers`: waits until a socket has finished N handshakes (inproc
  connects are synchronous, so nothing to wait for);
- `sync_subscriptions`: a barrier after SUB (un)subscriptions, without sleeps;
- `late_endpoint`: a concrete endpoint nobody listens on yet, `rebind` to bind
  it again once its previous owner let go, `free_tcp_port`, `drain`.
"""

from __future__ import annotations

import itertools
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

import pytest

import purezmq as zmq
from tests.conftest import bind_any, inproc_name, wait_until

__all__ = [
    "TIMEOUT_MS",
    "Events",
    "bind_any",
    "drain",
    "free_tcp_port",
    "inproc_name",
    "rebind",
    "sync_subscriptions",
    "wait_for_peers",
    "wait_until",
]

#: Default send/receive timeout of sockets made by `make` (a test failing
#: must raise, not hang).
TIMEOUT_MS = 5000

EVENT_NAMES = {int(e): e.name for e in zmq.Event}


@pytest.fixture
def make(ctx: zmq.Context) -> Callable[..., zmq.Socket]:
    """make(zmq.PUSH, sndhwm=10) -> a socket with LINGER 0 and 5 s timeouts."""

    def make_socket(kind: int, **options: Any) -> zmq.Socket:
        s = ctx.socket(kind)
        s.linger = 0
        s.rcvtimeo = TIMEOUT_MS
        s.sndtimeo = TIMEOUT_MS
        for name, value in options.items():
            setattr(s, name, value)
        return s

    return make_socket


@pytest.fixture
def late_endpoint(transport: str, ipc_dir: str) -> str:
    """A concrete endpoint nobody listens on yet (a peer binds it later)."""
    if transport == "tcp":
        return f"tcp://127.0.0.1:{free_tcp_port()}"
    if transport == "ipc":
        return f"ipc://{ipc_dir}/late"
    return inproc_name()


def free_tcp_port() -> int:
    """A loopback port that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rebind(sock: zmq.Socket, endpoint: str, timeout: float = 5.0) -> None:
    """Bind `endpoint` again, retrying EADDRINUSE while the previous owner lets go."""

    def attempt() -> bool:
        try:
            sock.bind(endpoint)
        except zmq.ZMQError as e:
            if e.errno != zmq.EADDRINUSE:
                raise
            return False
        return True

    wait_until(attempt, timeout=timeout)


class Events:
    """The events of one socket, read from `get_monitor_socket()`."""

    def __init__(self, sock: zmq.Socket, events: int = zmq.EVENT_ALL) -> None:
        self.sock = sock
        # A fresh address each time: libzmq releases the previous one lazily.
        self.mon = sock.get_monitor_socket(events, addr=inproc_name())
        self.mon.linger = 0
        self.seen: list[tuple[int, int, str]] = []

    def next(self, timeout_ms: int = TIMEOUT_MS) -> tuple[int, int, str]:
        """The next event as (event, value, endpoint); zmq.Again after the timeout."""
        if not self.mon.poll(timeout_ms):
            raise zmq.Again(f"no monitor event within {timeout_ms} ms (seen: {self.names()})")
        frames = self.mon.recv_multipart()
        assert len(frames) == 2, f"a monitor event has two frames, got {frames!r}"
        assert len(frames[0]) == 6, f"first frame is struct '=HI' (6 bytes), got {frames[0]!r}"
        event, value = struct.unpack("=HI", frames[0])
        item = (event, value, frames[1].decode())
        self.seen.append(item)
        return item

    def wait_for(
        self, event: int, count: int = 1, timeout: float = 5.0
    ) -> list[tuple[int, int, str]]:
        """Read events until `count` of kind `event` were seen (counting earlier ones)."""
        deadline = time.monotonic() + timeout
        while sum(1 for e in self.seen if e[0] == event) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(
                    f"expected {count} x {EVENT_NAMES.get(event, event)} within {timeout}s; "
                    f"seen {self.names()}"
                )
            try:
                self.next(max(1, int(remaining * 1000)))
            except zmq.Again:
                continue
        return [e for e in self.seen if e[0] == event]

    def names(self) -> list[str]:
        return [EVENT_NAMES.get(e[0], str(e[0])) for e in self.seen]

    def stop(self) -> None:
        self.sock.disable_monitor()


def wait_for_peers(
    sock: zmq.Socket, connect: Callable[[], object], count: int, transport: str
) -> None:
    """Run `connect()` (which makes `count` peers connect to `sock`) and wait
    until `sock` finished that many handshakes. inproc connects need no wait.

    Call once per peer to make the attach order (hence round-robin order)
    deterministic."""
    if transport == "inproc":
        connect()
        return
    ev = Events(sock, zmq.EVENT_HANDSHAKE_SUCCEEDED)
    try:
        connect()
        ev.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED, count)
    finally:
        ev.stop()
        ev.mon.close(0)


_sync_ids = itertools.count()


def sync_subscriptions(
    pub: zmq.Socket, subs: zmq.Socket | list[zmq.Socket], timeout: float = 5.0
) -> None:
    """Barrier: every (un)subscription each SUB made so far has reached `pub`.

    Each SUB subscribes a fresh topic (b"\\xff" + id) and `pub` publishes it
    until every SUB got one (subscriptions travel in order on a connection,
    so earlier ones have been applied). The probes are then drained with an
    end marker. Test topics must not start with b"\\xff"."""
    if not isinstance(subs, list):
        subs = [subs]
    topic = b"\xffsync-%d" % next(_sync_ids)
    for s in subs:
        s.subscribe(topic)
    deadline = time.monotonic() + timeout
    waiting = list(subs)
    while waiting:
        if time.monotonic() > deadline:
            pytest.fail(f"subscriptions did not reach the publisher within {timeout}s")
        pub.send(topic)
        waiting = [s for s in waiting if not s.poll(20)]
    end = topic + b"-end"
    pub.send(end)
    for s in subs:
        while True:
            part = s.recv_multipart()
            if part == [end]:
                break
            assert part == [topic], f"unexpected message while syncing: {part!r}"


def drain(sock: zmq.Socket, timeout_ms: int = 0) -> list[list[bytes]]:
    """Every message `sock` can receive now (waiting up to `timeout_ms` for each)."""
    out = []
    while sock.poll(timeout_ms):
        out.append(sock.recv_multipart())
    return out
