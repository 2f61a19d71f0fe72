"""A socket the cyclic GC collects on an I/O thread is closed, without a
deadlock.

The collector runs on whatever thread allocates; an I/O thread allocates
while it posts a command to a socket, holding that socket's post lock. An
unclosed socket collected right then used to close itself there and wait
for the lock its own thread held (and `Context.term` behind it), seen once
in CI with a CLIENT socket kept alive by a traceback cycle."""

from __future__ import annotations

import threading
import warnings

import purezmq as zmq
from tests.conftest import wait_until


def test_a_socket_collected_on_an_io_thread_is_closed_by_another_thread() -> None:
    ctx = zmq.Context()
    sock = ctx.socket(zmq.PUSH)
    core = sock._core
    finalized = threading.Event()

    def collect_while_posting() -> None:
        # The post lock, as the I/O thread holds it while posting.
        with core._post_lock, warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            sock.__del__()
        finalized.set()

    io = threading.Thread(target=collect_while_posting, name="purezmq-io-gc", daemon=True)
    io.start()
    assert finalized.wait(10), "the finalizer waited on the lock its own thread holds"
    wait_until(lambda: core.closed)
    ctx.term()
