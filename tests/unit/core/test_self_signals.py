"""No wake-up signal a thread would send to itself (issue 14, set-up).

Two places used to write an eventfd only to read it back on the same thread:
`connect()`, whose new session posts its pipe to the socket that runs its
mailbox before `connect()` returns, and the I/O thread's own `call_soon`.
Both now skip the signal; these tests pin down that nothing is lost by it:
the command still runs, the socket's FD is not left readable (an event loop
watching it would spin), and a real signal arriving meanwhile is drained.
"""

from __future__ import annotations

import select
import threading
from collections.abc import Iterator

import pytest

import purezmq as zmq
from purezmq._io.threaded.iothread import IOThread


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    c = zmq.Context()
    yield c
    c.term()


def test_connect_attaches_its_pipe_without_signalling(ctx: zmq.Context) -> None:
    s = ctx.socket(zmq.DEALER)
    try:
        fd = s.getsockopt(zmq.FD)
        s.connect("tcp://127.0.0.1:1")  # nobody listens: the pipe exists anyway
        assert not _readable(fd), "connect() left the socket's FD readable"
        assert s.getsockopt(zmq.EVENTS) & zmq.POLLOUT  # the pipe is attached
        assert not _readable(fd)
    finally:
        s.close(linger=0)


def test_a_real_signal_during_the_hold_is_drained(ctx: zmq.Context) -> None:
    """term()'s wake-up (the one signal that can arrive while connect() holds
    the flag) must be read by the next drain, not left on the descriptor."""
    s = ctx.socket(zmq.DEALER)
    core = s._core
    try:
        fd = s.getsockopt(zmq.FD)
        core.hold_wake()
        core.wake()  # as ctx.term() does, from another thread
        assert _readable(fd)
        core.process_commands()
        assert not _readable(fd), "the wake-up was not drained"
    finally:
        s.close(linger=0)


def test_a_drain_racing_a_signal_on_its_way_leaves_no_readable_fd(ctx: zmq.Context) -> None:
    """A poster raises the flag, then signals, holding the post lock. The
    owner's drain must not run between the two: it used to (it took no lock),
    found nothing to read and lowered the flag; the signal landing next left
    the FD readable with the flag down, so every wait of the owner returned
    at once, draining nothing, until the next post - a spin, seen as the
    connection benchmark's 2-4 ms set-ups (a server polling in a loop)."""
    s = ctx.socket(zmq.DEALER)
    core = s._core
    in_wake, proceed = threading.Event(), threading.Event()

    def slow_wake() -> None:
        in_wake.set()
        proceed.wait(5)  # the poster, preempted between the flag and the signal
        core.signal_fd()

    try:
        fd = s.getsockopt(zmq.FD)
        core.set_waker(slow_wake)
        poster = threading.Thread(target=core.wake)
        poster.start()
        assert in_wake.wait(5)
        threading.Timer(0.2, proceed.set).start()
        core.process_commands()  # now waits for the signal to be out, then drains it
        poster.join(5)
        core.process_commands()
        assert not _readable(fd), "a signal was left on the FD with the flag down"
    finally:
        proceed.set()
        s.close(linger=0)


def test_call_soon_from_the_loop_thread_runs_without_a_wakeup() -> None:
    loop = IOThread(name="purezmq-test-io")
    try:
        done = threading.Event()
        order: list[str] = []
        signalled: list[bool] = []

        def second() -> None:
            order.append("second")
            done.set()

        def first() -> None:
            order.append("first")
            loop.call_soon(second)  # from the loop's own thread: no signal
            signalled.append(_readable(loop._wake.fileno()))

        loop.call_soon(first)
        assert done.wait(5), "a command queued by the loop thread itself never ran"
        assert order == ["first", "second"]
        assert signalled == [False], "the loop thread signalled itself"
    finally:
        loop.stop(5)
