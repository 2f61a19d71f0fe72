"""Fuzzing over real sockets: hypothesis-made byte streams from raw clients
against a bound purezmq ROUTER.

Invariant: whatever a client sends, the only consequence is that *its*
connection ends (we half-close our side, so purezmq must close too); the
healthy peer keeps exchanging messages, no exception reaches the application
thread or kills a purezmq thread, and nothing is logged at ERROR level
(purezmq logs unexpected handler failures with ``log.exception``).

Bounded: derandomized, a fixed number of examples, well under 20 s.
"""

from __future__ import annotations

import itertools
import logging
import socket
import threading
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import purezmq as zmq

from .helpers import Bound, HealthyPeer
from .zmtp_raw import RawPeer, command, frame, greeting, message, prop, ready

FUZZ_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# ------------------------------------------------------------ strategies
frames_st = st.lists(
    st.one_of(st.binary(max_size=40), st.binary(min_size=250, max_size=300)),
    min_size=1,
    max_size=3,
)


@st.composite
def valid_stream(draw: st.DrawFn) -> bytes:
    """A well-formed client stream: greeting, READY, messages and commands."""
    minor = draw(st.sampled_from([0, 1, 2]))
    stype = draw(st.sampled_from([b"DEALER", b"REQ", b"ROUTER"]))
    identity = draw(st.one_of(st.none(), st.binary(min_size=1, max_size=8)))
    out = greeting(minor=minor)
    extra = draw(
        st.lists(
            st.tuples(st.sampled_from([b"X-A", b"X-Long"]), st.binary(max_size=20)), max_size=2
        )
    )
    out += ready(stype, identity, *(prop(k, v) for k, v in extra))
    items = draw(
        st.lists(
            st.one_of(
                frames_st.map(lambda fs: message(*fs)),
                st.binary(max_size=16).map(lambda c: command(b"PING", b"\x00\x01" + c)),
                st.binary(max_size=8).map(lambda t: command(b"SUBSCRIBE", t)),
                st.binary(max_size=8).map(lambda t: command(b"UNKNOWN", t)),
                st.binary(max_size=8).map(lambda b: frame(b, long=True)),
                # above purezmq's big-frame threshold (8 KiB): its own storage path
                st.integers(8192, 20_000).map(lambda n: message(b"B" * n)),
            ),
            max_size=4,
        )
    )
    return out + b"".join(items)


@st.composite
def mutated_stream(draw: st.DrawFn) -> bytes:
    """A valid stream with a few byte-level mutations."""
    data = bytearray(draw(valid_stream()))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["set", "flip", "truncate", "insert", "delete"]))
        if not data:
            break
        pos = draw(st.integers(0, len(data) - 1))
        if op == "set":
            data[pos] = draw(st.integers(0, 255))
        elif op == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=12))
        else:
            del data[pos : pos + draw(st.integers(1, 12))]
    return bytes(data)


@st.composite
def valid_prefix_then_noise(draw: st.DrawFn) -> bytes:
    prefix = draw(valid_stream())
    cut = draw(st.integers(64, len(prefix)))
    return prefix[:cut] + draw(st.binary(min_size=1, max_size=64))


stream_st = st.one_of(
    st.binary(max_size=200),
    st.binary(max_size=60).map(lambda b: greeting()[:11] + b),  # a ZMTP-looking start
    mutated_stream(),
    valid_prefix_then_noise(),
    valid_stream(),
)


# ------------------------------------------------------------ the test
def _send_and_half_close(port: int, data: bytes, cuts: list[int]) -> None:
    """Send `data` in pieces (one send per piece, TCP_NODELAY), then half-close."""
    peer = RawPeer.connect(port, timeout=5.0)
    bounds = [0, *sorted({c % (len(data) + 1) for c in cuts}), len(data)]
    try:
        try:
            for start, end in itertools.pairwise(bounds):
                if end > start:
                    peer.send(data[start:end])
            peer.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # purezmq already closed: fine
        # purezmq must end the connection: at the latest on our EOF.
        peer.wait_closed(timeout=5.0)
    finally:
        peer.close()


def test_fuzzed_streams_only_close_their_connection(
    bound: Callable[..., Bound],
    healthy: Callable[[Bound], HealthyPeer],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    thread_errors: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", thread_errors.append)
    caplog.set_level(logging.DEBUG, logger="purezmq")
    router = bound("ROUTER", HANDSHAKE_IVL=2000)
    good = healthy(router)
    io_threads = {t for t in threading.enumerate() if t.name.startswith("purezmq")}
    examples = []

    @FUZZ_SETTINGS
    @given(data=stream_st, cuts=st.lists(st.integers(0, 1 << 16), max_size=4))
    def one(data: bytes, cuts: list[int]) -> None:
        examples.append(data)
        _send_and_half_close(router.port, data, cuts)
        good.roundtrip()
        bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        assert not bad, [r.getMessage() for r in bad]
        assert not thread_errors, thread_errors

    one()
    assert len(examples) >= 100
    assert all(t.is_alive() for t in io_threads), "a purezmq thread died"
    # The socket itself is still fine: send and receive with a fresh peer.
    fresh = HealthyPeer(router, lambda port: RawPeer.connect(port))
    fresh.roundtrip()
    fresh.peer.close()
    good.roundtrip()
    assert router.sock.getsockopt(zmq.TYPE) == zmq.ROUTER
