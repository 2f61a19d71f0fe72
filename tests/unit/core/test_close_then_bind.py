"""close() returns once the socket's listeners are closed, in both builds.

A pyzmq program closes a bound socket and binds the same address straight
away (a restart, a test fixture): that has to work every time, so close()
waits for the I/O thread to close the listening socket (and remove an ipc
path). In the compiled build that wait once lasted 0 s: `StreamDriver` is a
compiled class with interpreted subclasses, and mypyc's glue for those
dropped the `run_and_wait(timeout=5.0)` default to 0.0, so the new bind
raced the I/O thread and lost about one time in two (EADDRINUSE over tcp;
over ipc the old listener still answered the liveness probe). Repeated,
because a race shows only sometimes.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from collections.abc import Iterator

import pytest

import purezmq

ROUNDS = 20


@pytest.fixture
def ctx() -> Iterator[purezmq.Context]:
    c = purezmq.Context()
    yield c
    c.destroy(linger=0)  # also the sockets a failed round left open


def test_close_leaves_the_tcp_port_free(ctx: purezmq.Context) -> None:
    for _ in range(ROUNDS):
        s = ctx.socket(purezmq.PULL)
        s.linger = 0
        port = s.bind_to_random_port("tcp://127.0.0.1")
        s.close()
        # Nothing connected, so nothing lingers in TIME_WAIT: a plain bind
        # (no SO_REUSEADDR) succeeds only if the listener is really gone.
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as e:
            assert e.errno != errno.EADDRINUSE, "close() returned before its listener closed"
            raise
        finally:
            probe.close()


def test_close_then_bind_the_same_ipc_path(ctx: purezmq.Context) -> None:
    with tempfile.TemporaryDirectory() as d:
        endpoint = "ipc://" + os.path.join(d, "sock")
        old = ctx.socket(purezmq.PULL)
        old.linger = 0
        old.bind(endpoint)
        for _ in range(ROUNDS):
            old.close()
            new = ctx.socket(purezmq.PULL)
            new.linger = 0
            new.bind(endpoint)  # EADDRINUSE if the old listener still answers
            old = new
        old.close()
