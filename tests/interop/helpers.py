"""Helpers shared by the interop tests: one vocabulary for both implementations.

purezmq and pyzmq sockets have the same methods, so most helpers take either.
`impl` is "pz" (purezmq) or "lz" (libzmq through pyzmq).
"""

from __future__ import annotations

import errno
import hashlib
import socket
import struct
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
import zmq

import purezmq

ZMQ_ERRORS = (zmq.ZMQError, purezmq.ZMQError)
#: Default send/receive timeout: a hang becomes a clear failure (EAGAIN).
IO_TIMEOUT_MS = 5000


def module_of(sock: Any) -> ModuleType:
    return purezmq if isinstance(sock, purezmq.Socket) else zmq


def impl_of(sock: Any) -> str:
    return "pz" if isinstance(sock, purezmq.Socket) else "lz"


def last_endpoint(sock: Any) -> str:
    value = sock.getsockopt(module_of(sock).LAST_ENDPOINT)
    return value.decode() if isinstance(value, bytes) else str(value)


def bind(sock: Any, endpoint: str) -> str:
    """Bind and return the concrete endpoint (real port for tcp://...:*)."""
    sock.bind(endpoint)
    return last_endpoint(sock)


def bind_retrying(sock: Any, endpoint: str, timeout: float = 5.0) -> None:
    """Bind an endpoint a just-closed socket held: libzmq closes its listener in
    the background, so EADDRINUSE may last a moment."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock.bind(endpoint)
            return
        except ZMQ_ERRORS as e:
            if e.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                raise
        time.sleep(0.005)


def free_tcp_endpoint(host: str = "127.0.0.1") -> str:
    """tcp://host:port with a port that was free a moment ago (for tests that
    must connect before anything binds, or bind the same port twice)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    return f"tcp://[{host}]:{port}" if family == socket.AF_INET6 else f"tcp://{host}:{port}"


def recv_or_none(sock: Any, timeout_ms: int) -> list[bytes] | None:
    """The next whole message, or None if none arrives within `timeout_ms`."""
    if not sock.poll(timeout_ms):
        return None
    return [bytes(f) for f in sock.recv_multipart()]


def recv_poking(sock: Any, *others: Any, timeout: float = IO_TIMEOUT_MS / 1000) -> list[bytes]:
    """Receive on `sock` while letting `others` process their commands.

    libzmq attaches a connection to a *bound* socket only when the application
    next calls into that socket (LIBZMQ-270, libzmq#2267): a bound SUB/XSUB
    sends its subscriptions upstream only then. purezmq does the same. So a
    test waiting for a bound subscriber's subscription pokes it (poll(0))."""
    deadline = time.monotonic() + timeout
    while True:
        for other in others:
            other.poll(0)
        msg = recv_or_none(sock, 10)
        if msg is not None:
            return msg
        if time.monotonic() > deadline:
            pytest.fail(f"nothing received on the {impl_of(sock)} socket within {timeout}s")


def assert_nothing_received(sock: Any, timeout_ms: int = 100) -> None:
    msg = recv_or_none(sock, timeout_ms)
    assert msg is None, f"unexpected message on {impl_of(sock)} socket: {short(msg)}"


def short(msg: Sequence[bytes] | None) -> str:
    if msg is None:
        return "None"
    return repr([f if len(f) <= 40 else f[:20] + b"...(%d bytes)" % len(f) for f in msg])


def send_when_routable(sock: Any, msg: Sequence[bytes], timeout: float = 5.0) -> None:
    """ROUTER with ROUTER_MANDATORY: send once the peer is known (EHOSTUNREACH before)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock.send_multipart(msg)
            return
        except ZMQ_ERRORS as e:
            if e.errno != errno.EHOSTUNREACH:
                raise
        if time.monotonic() > deadline:
            pytest.fail(f"peer {msg[0]!r} never became routable within {timeout}s")
        time.sleep(0.005)


def digest(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- pub/sub sync
PROBE = b"\x00~probe"
SYNC = b"\x00~sync"


def sync_subscribers(pub: Any, subs: Sequence[tuple[Any, bytes]], timeout: float = 5.0) -> None:
    """Beat the slow joiner: publish a probe per prefix until every subscriber
    has seen one, then a sync marker per prefix, and drain each subscriber up to
    the markers it matches. Afterwards every subscriber's stream is clean.

    `subs` are (socket, prefix it subscribed to); PUB or XSUB-facing XPUB alike."""
    prefixes = [p for _, p in subs]
    probes = [p + PROBE for p in prefixes]
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < len(subs):
        if time.monotonic() > deadline:
            missing = [prefixes[i] for i in range(len(subs)) if i not in seen]
            pytest.fail(f"subscribers with prefixes {missing!r} never received a probe")
        for probe in probes:
            pub.send(probe)
        for i, (sub, _) in enumerate(subs):
            if i not in seen and sub.poll(10):
                seen.add(i)
    markers = [p + SYNC for p in prefixes]
    for marker in markers:
        pub.send(marker)
    for sub, prefix in subs:
        expected = [m for m in markers if m.startswith(prefix)]
        got: list[bytes] = []
        while len(got) < len(expected):
            msg = recv_or_none(sub, IO_TIMEOUT_MS)
            assert msg is not None, f"sync markers for {prefix!r} did not arrive"
            if msg[0] in markers:
                got.append(msg[0])
            else:
                assert msg[0] in probes, f"unexpected message while syncing: {short(msg)}"
        assert got == expected


# ---------------------------------------------------------------- monitors
@dataclass(frozen=True)
class Event:
    event: int
    value: int
    endpoint: str

    def __repr__(self) -> str:
        try:
            name = zmq.Event(self.event).name
        except ValueError:
            name = str(self.event)
        return f"Event({name}, {self.value}, {self.endpoint!r})"


def parse_event(frames: Sequence[bytes]) -> Event:
    """libzmq's monitor format (v1): [pack('=HI', event, value), endpoint]."""
    event, value = struct.unpack("=HI", bytes(frames[0])[:6])
    return Event(event, value, bytes(frames[1]).decode())


def next_event(mon: Any, timeout_ms: int) -> Event | None:
    msg = recv_or_none(mon, timeout_ms)
    return None if msg is None else parse_event(msg)


def wait_for_event(mon: Any, wanted: int, timeout: float = 5.0) -> list[Event]:
    """Read events until one of type `wanted`; return all read (it last)."""
    seen: list[Event] = []
    deadline = time.monotonic() + timeout
    while True:
        remaining = int((deadline - time.monotonic()) * 1000)
        ev = next_event(mon, max(remaining, 0)) if remaining > 0 else None
        if ev is None:
            pytest.fail(f"no {zmq.Event(wanted).name} within {timeout}s; saw {seen}")
        seen.append(ev)
        if ev.event == wanted:
            return seen


def events_during(mon: Any, seconds: float) -> list[Event]:
    """Every event that arrives in the next `seconds` (a watch window)."""
    seen: list[Event] = []
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        ev = next_event(mon, max(1, int(remaining * 1000)))
        if ev is not None:
            seen.append(ev)
    return seen


def kinds(events: Iterable[Event]) -> list[str]:
    return [repr(e) for e in events]
