"""The order of a connection's set-up work (issue 14, connection set-up).

Three changes let the work a new connection waits for go first:

- the I/O thread runs deferred work (`IOThread.call_idle`) only when a poll
  finds nothing ready, or after a bounded number of busy turns, and before
  it stops; a closed connection's teardown is deferred that way;
- an engine writes the ZMTP signature before it builds the connection
  (`signature_for`), which then does not send it again;
- a decoder's initial ring is handed on to the next decoder when it dies,
  and the next one reads only the bytes it received into it.
"""

from __future__ import annotations

import gc
import socket
import threading
from collections.abc import Callable, Iterator

import pytest
from tests.unit.zmtp.helpers import make_conn, out_bytes

import purezmq as zmq
from purezmq._io.threaded.iothread import _IDLE_MAX_WAIT, IOThread
from purezmq._zmtp import decoder as dec
from purezmq._zmtp.frames import FLAG_MORE
from purezmq._zmtp.greeting import signature


class _Handler:
    """An IOHandler whose readiness runs `on_read`."""

    def __init__(self, on_read: Callable[[], None]) -> None:
        self.on_readable = on_read

    def on_writable(self) -> None:
        pass

    def on_poll_error(self, exc: BaseException | None) -> None:
        pass


def _on_loop(loop: IOThread, fn: object) -> None:
    done = threading.Event()

    def run() -> None:
        fn()  # type: ignore[operator]
        done.set()

    loop.call_soon(run)
    assert done.wait(5), "the I/O thread did not run the command"


@pytest.fixture
def loop_pair() -> Iterator[tuple[IOThread, socket.socket, socket.socket]]:
    """An I/O thread and a connected socket pair for it to watch."""
    loop = IOThread(name="purezmq-test-io")
    a, b = socket.socketpair()
    yield loop, a, b
    loop.stop(5)
    a.close()
    b.close()


def test_deferred_work_waits_for_a_poll_that_finds_nothing(
    loop_pair: tuple[IOThread, socket.socket, socket.socket],
) -> None:
    loop, a, b = loop_pair
    order: list[str] = []
    idle_ran = threading.Event()

    def setup() -> None:
        loop.register(a.fileno(), _Handler(lambda: order.append("read:" + a.recv(64).decode())), 1)
        b.send(b"x")  # ready at the next poll: it must come first
        loop.call_idle(lambda: (order.append("idle"), idle_ran.set()))

    _on_loop(loop, setup)
    assert idle_ran.wait(5), "deferred work never ran on an idle loop"
    assert order == ["read:x", "idle"]


def test_deferred_work_runs_on_a_loop_that_is_never_idle(
    loop_pair: tuple[IOThread, socket.socket, socket.socket],
) -> None:
    loop, a, b = loop_pair
    reads = [0]
    ran_after: list[int] = []
    idle_ran = threading.Event()

    def count() -> None:
        reads[0] += 1  # never reads: level-triggered, ready on every poll

    def setup() -> None:
        b.send(b"x")
        loop.register(a.fileno(), _Handler(count), 1)
        loop.call_idle(lambda: (ran_after.append(reads[0]), idle_ran.set()))

    _on_loop(loop, setup)
    assert idle_ran.wait(5), "deferred work starved behind a busy descriptor"
    assert 1 <= ran_after[0] <= _IDLE_MAX_WAIT + 1


def test_deferred_work_runs_when_the_loop_stops() -> None:
    loop = IOThread(name="purezmq-test-io")
    ran = threading.Event()
    busy = threading.Event()

    def setup() -> None:
        loop.call_idle(ran.set)
        busy.set()

    loop.call_soon(setup)
    assert busy.wait(5)
    loop.stop(5)
    assert ran.is_set()


def test_a_started_connection_does_not_send_the_signature_again() -> None:
    sig = signature(0)
    assert out_bytes(make_conn()).startswith(sig)
    assert not out_bytes(make_conn(signature_sent=len(sig)))
    assert out_bytes(make_conn(signature_sent=4)) == sig[4:]


def test_the_peer_gets_one_signature_and_a_working_connection() -> None:
    """Over a real socket: the signature written early, the rest after."""
    ctx = zmq.Context()
    try:
        server = ctx.socket(zmq.ROUTER)
        server.bind("tcp://127.0.0.1:*")
        port = int(server.LAST_ENDPOINT.decode().rsplit(":", 1)[1])
        raw = socket.create_connection(("127.0.0.1", port))
        raw.settimeout(5)
        got = b""
        while len(got) < 10:
            got += raw.recv(10 - len(got))
        assert got == signature(0)
        raw.sendall(signature(0))
        assert raw.recv(1) == b"\x03"  # the major version, not the signature again
        raw.close()
        client = ctx.socket(zmq.DEALER)
        client.connect(server.LAST_ENDPOINT.decode())
        client.send(b"hello")
        assert server.poll(5000)
        assert server.recv_multipart()[1] == b"hello"
        client.close(linger=0)
        server.close(linger=0)
    finally:
        ctx.term()


def test_a_dead_decoders_ring_serves_the_next_one() -> None:
    gc.collect()  # other tests' decoders: let them go first
    first = dec.FrameDecoder()
    view = first.get_buffer()
    view[:2] = bytes([FLAG_MORE, 3])  # a header the next decoder must not see
    first.buffer_updated(2)
    ring = first._buf
    del first, view
    gc.collect()
    assert any(r is ring for r in dec._SPARE_RINGS)
    dec._SPARE_RINGS[:] = [ring]  # whatever else died meanwhile, aside
    second = dec.FrameDecoder()
    assert second._buf is ring
    second.start_framing()
    assert second.next_frame() is None  # nothing received: the old bytes are not data
    view = second.get_buffer()
    view[:3] = b"\x00\x01z"
    second.buffer_updated(3)
    assert second.next_frame() == (0, b"z")


def test_a_grown_ring_is_not_kept() -> None:
    d = dec.FrameDecoder()
    d._make_room(4 * dec.INITIAL_RING)  # as a busy connection's ring grows
    grown = d._buf
    assert len(grown) > dec.INITIAL_RING
    del d
    gc.collect()
    assert not any(r is grown for r in dec._SPARE_RINGS)
