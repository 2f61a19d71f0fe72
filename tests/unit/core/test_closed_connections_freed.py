"""A closed connection's objects are freed when it closes, not at its timers' deadlines.

Every connection arms a handshake timer (HANDSHAKE_IVL, 30 s) and cancels it
when the handshake ends. The I/O thread drops a cancelled timer only when its
deadline comes, so a timer that kept its callback kept the closed
connection's engine, session, pipes and socket alive for 30 s: in the
`conn/*` benchmark (a thousand set-ups a second) the heap grew by 75 objects
per set-up and each full garbage collection walked them all (25 - 135 ms).
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import purezmq
from purezmq._core.session import Session
from purezmq._core.socket_core import SocketCore
from purezmq._io.connecter import Connecter
from purezmq._io.engine import StreamEngine
from purezmq._io.threaded.iothread import IOThread, TimerHandle


@pytest.fixture
def io() -> Iterator[IOThread]:
    thread = IOThread("test-timers")
    yield thread
    thread.stop(5.0)


def _on_loop(io: IOThread, fn: Callable[[], None]) -> None:
    """Run `fn` on the loop's thread (timers are armed there) and wait."""
    done = threading.Event()

    def call() -> None:
        try:
            fn()
        finally:
            done.set()

    io.call_soon(call)
    assert done.wait(5.0)


class _Callback:
    def __call__(self) -> None:  # pragma: no cover - never due
        raise AssertionError("a cancelled timer ran")


def test_a_cancelled_timer_lets_go_of_its_callback(io: IOThread) -> None:
    callbacks = [_Callback()]
    ref = weakref.ref(callbacks[0])
    handles: list[TimerHandle] = []
    _on_loop(io, lambda: handles.append(io.call_later(3600.0, callbacks.pop())))
    handles[0].cancel()
    gc.collect()
    assert ref() is None


def test_cancelled_timers_do_not_pile_up(io: IOThread) -> None:
    def arm_and_cancel() -> None:
        for _ in range(1000):
            io.call_later(3600.0, _Callback()).cancel()

    _on_loop(io, arm_and_cancel)
    assert len(io._timers) < 200


def test_a_cancelled_first_timer_does_not_set_the_poll_timeout(io: IOThread) -> None:
    """The loop drops cancelled timers from the top of its heap before it
    waits: a cancelled timer left there set the poll's timeout, and during
    back-to-back set-ups that was a few milliseconds for nearly every wait,
    which wakes slower on the VMs we measure on (issue 14)."""
    handles: list[TimerHandle] = []
    _on_loop(io, lambda: handles.append(io.call_later(3600.0, _Callback())))
    _on_loop(io, lambda: handles.append(io.call_later(7200.0, _Callback())))
    handles[0].cancel()
    # The first call's command may run in the turn that was waiting when
    # the timer was cancelled; the second's runs in a turn begun after it.
    _on_loop(io, lambda: None)
    _on_loop(io, lambda: None)
    assert [entry[2] for entry in io._timers] == [handles[1]]
    handles[1].cancel()
    _on_loop(io, lambda: None)
    _on_loop(io, lambda: None)
    assert io._timers == []


def _set_ups(ctx: purezmq.Context, router: purezmq.Socket, endpoint: str, count: int) -> None:
    """`count` times: a DEALER connects to `router`, does a round trip, closes."""
    for _ in range(count):
        s = ctx.socket(purezmq.DEALER)
        s.connect(endpoint)
        s.send(b"x")
        ident, _body = router.recv_multipart()
        router.send_multipart([ident, b"y"])
        assert s.recv() == b"y"
        s.close(linger=0)


def _live_socket_cores() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is SocketCore)


def test_closed_sockets_are_freed_at_once() -> None:
    ctx = purezmq.Context()
    try:
        router = ctx.socket(purezmq.ROUTER)
        router.linger = 0
        port = router.bind_to_random_port("tcp://127.0.0.1")
        before = _live_socket_cores()
        _set_ups(ctx, router, f"tcp://127.0.0.1:{port}", 50)
        deadline = time.monotonic() + 5.0
        while _live_socket_cores() > before + 5 and time.monotonic() < deadline:
            time.sleep(0.05)  # the I/O thread ends the last connections
        assert _live_socket_cores() <= before + 5
    finally:
        ctx.destroy(linger=0)


#: What a connection used to keep in reference cycles after it closed:
#: the socket (through its endpoints, sessions and option hooks), each
#: session (through its pipes' hooks and its ZAP state) and what hangs
#: off them. Their pipe pair is still a cycle of its own (two pipes that
#: name each other), freed by the collector.
_FREED_BY_REFCOUNT = (SocketCore, Session, StreamEngine, Connecter)


def _live_without_collecting() -> int:
    """Objects of those types still tracked - including unreachable ones:
    with the collector off, a cycle stays here until `gc.collect()`."""
    return sum(1 for o in gc.get_objects() if type(o) in _FREED_BY_REFCOUNT)


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_closed_sockets_need_no_garbage_collector(transport: str, tmp_path: Path) -> None:
    ctx = purezmq.Context()
    collecting = gc.isenabled()
    gc.disable()
    try:
        router = ctx.socket(purezmq.ROUTER)
        router.linger = 0
        if transport == "tcp":
            endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
        else:
            endpoint = f"ipc://{tmp_path}/freed"
            router.bind(endpoint)
        gc.collect()
        before = _live_without_collecting()
        _set_ups(ctx, router, endpoint, 20)
        deadline = time.monotonic() + 5.0
        while _live_without_collecting() > before and time.monotonic() < deadline:
            # Both ends' I/O threads end the last connections; the ROUTER lets
            # go of its ended ones when it next runs (its commands, its parked
            # connections), as any operation of the application would make it.
            router.poll(20)
        assert _live_without_collecting() == before
    finally:
        if collecting:
            gc.enable()
        ctx.destroy(linger=0)
