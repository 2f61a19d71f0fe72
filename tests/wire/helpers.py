"""Shared helpers for the wire tests (no fixtures here: see conftest.py)."""

from __future__ import annotations

import asyncio
import itertools
import os
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

import purezmq as zmq
from tests.conftest import wait_until

from .zmtp_raw import RawPeer

__all__ = ["wait_until"]  # re-exported for the test modules

#: Timeout (ms) on every purezmq send/recv in these tests.
IO_TIMEOUT_MS = 5000


# ------------------------------------------------------------- process probes
def fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_bytes() -> int:
    """Current resident set size from /proc/self/status (VmRSS)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


# ------------------------------------------------------------- bound sockets
@dataclass
class Bound:
    sock: zmq.Socket
    port: int
    endpoint: str


# ------------------------------------------------------------------ monitors
@dataclass
class Event:
    event: int
    value: int
    endpoint: str

    def __repr__(self) -> str:
        try:
            name = zmq.Event(self.event).name
        except ValueError:
            name = str(self.event)
        return f"Event({name}, {self.value:#x}, {self.endpoint!r})"


@dataclass
class Monitor:
    """Reads libzmq-format events (``=HI`` + endpoint) from a monitor PAIR."""

    sock: zmq.Socket
    seen: list[Event] = field(default_factory=list)

    def _read_one(self, timeout_ms: int) -> Event | None:
        if not self.sock.poll(timeout_ms):
            return None
        frames = self.sock.recv_multipart()
        assert len(frames) == 2, f"monitor event must be two frames, got {frames!r}"
        assert len(frames[0]) == 6, f"first frame must be =HI (6 bytes): {frames[0]!r}"
        event, value = struct.unpack("=HI", frames[0])
        ev = Event(event, value, frames[1].decode())
        self.seen.append(ev)
        return ev

    def wait_for(self, event: int, timeout: float = 3.0) -> Event:
        """The next event of this kind (others are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"no {zmq.Event(event).name} event within {timeout}s; saw {self.seen}")
            ev = self._read_one(max(1, int(left * 1000)))
            if ev is not None and ev.event == event:
                return ev

    def drain(self, wait: float = 0.0) -> list[Event]:
        """Events already queued (and any arriving within `wait` seconds)."""
        out = []
        while True:
            ev = self._read_one(int(wait * 1000))
            if ev is None:
                return out
            out.append(ev)


# -------------------------------------------------------------- healthy peer
class HealthyPeer:
    """A well-behaved raw DEALER talking to a purezmq ROUTER.

    `roundtrip()` proves both directions work on this very connection:
    raw -> ROUTER (the ROUTER sees our identity) and ROUTER -> raw.
    """

    _ids = itertools.count()

    def __init__(self, router: Bound, connect: Callable[..., RawPeer]) -> None:
        self.router = router
        self.identity = b"healthy-%d" % next(self._ids)
        self.peer = connect(router.port)
        _greeting, props = self.peer.handshake(b"DEALER", self.identity)
        assert props[b"socket-type"] == b"ROUTER"
        self._n = 0

    def roundtrip(self, *, strict: bool = False) -> None:
        """One message each way. `strict`: the ROUTER must have nothing queued
        from anyone else (otherwise such messages are skipped)."""
        self._n += 1
        body = b"ping-%d" % self._n
        self.peer.send_message(body)
        sock = self.router.sock
        for _ in range(10_000):
            frames = sock.recv_multipart()
            if frames[0] == self.identity:
                break
            assert not strict, f"unexpected message from another peer: {frames!r}"
        else:  # pragma: no cover
            pytest.fail("the healthy peer's message never reached the ROUTER")
        assert frames == [self.identity, body]
        sock.send_multipart([self.identity, b"pong-%d" % self._n])
        assert self.peer.read_message() == [b"pong-%d" % self._n]


def assert_still_serving(router: Bound, peer: HealthyPeer, connect: Callable[..., RawPeer]) -> None:
    """The old healthy connection and a brand-new one both still exchange messages."""
    peer.roundtrip()
    fresh = HealthyPeer(router, connect)
    fresh.roundtrip()
    peer.roundtrip()


# ------------------------------------------------------------- asyncio pieces
async def receive_pieces_then_close(
    pull: Any, peer: RawPeer, actx: Any, sending: Awaitable[None], body: bytes, copies: int
) -> None:
    """An asyncio PULL whose raw peer sends `copies` frames of `body` then
    b"end" in pieces (`sending`, a thread): each arrives whole within 5 s;
    then the sender, the peer, the socket and the context are closed."""
    for _ in range(copies):
        assert await asyncio.wait_for(pull.recv(), 5) == body
    assert await asyncio.wait_for(pull.recv(), 5) == b"end"
    await sending
    peer.close()
    pull.close()
    actx.term()
