"""A closed socket's waiter (eventfd and poll object) serves the next socket.

`ContextCore.recycle_waiter` keeps it when nobody outside can still hold its
descriptor, drained and with nothing watched but its own signal; `term`
closes what it kept. See `ContextCore.recycle_waiter` for why.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator

import pytest

import purezmq


@pytest.fixture
def ctx() -> Iterator[purezmq.Context]:
    c = purezmq.Context()
    yield c
    c.destroy(linger=0)


def _pair(ctx: purezmq.Context) -> tuple[purezmq.Socket, purezmq.Socket]:
    server = ctx.socket(purezmq.ROUTER)
    server.linger = 0
    port = server.bind_to_random_port("tcp://127.0.0.1")
    client = ctx.socket(purezmq.DEALER)
    client.rcvtimeo = 5000
    client.connect(f"tcp://127.0.0.1:{port}")
    return server, client


def test_the_next_socket_gets_the_closed_ones_waiter_as_new(ctx: purezmq.Context) -> None:
    server, client = _pair(ctx)
    client.send(b"ping")
    ident, _ = server.recv_multipart()
    server.send_multipart([ident, b"pong"])
    assert client.recv() == b"pong"  # it waited: its connection was parked on the poll
    waiter = client._core._waiter
    # A signal left pending: the reply's wake-up, or a late post before close.
    waiter.signal()
    client.close(linger=0)
    assert not waiter.closed

    again = ctx.socket(purezmq.DEALER)
    assert again._core._waiter is waiter
    assert waiter._watching == []
    assert not waiter._armed
    assert again.poll(0) == 0
    again.rcvtimeo = 50
    with pytest.raises(purezmq.Again):
        again.recv()
    again.close()
    server.close()


def test_a_waiter_whose_descriptor_was_given_out_is_closed(ctx: purezmq.Context) -> None:
    sock = ctx.socket(purezmq.DEALER)
    fd = sock.getsockopt(purezmq.FD)  # the application may watch it from now on
    waiter = sock._core._waiter
    sock.close()
    assert waiter.closed
    with pytest.raises(OSError) as e:
        os.fstat(fd)
    assert e.value.errno == errno.EBADF
    assert ctx.socket(purezmq.DEALER)._core._waiter is not waiter


def test_a_closed_socket_no_longer_signals_its_recycled_waiter(ctx: purezmq.Context) -> None:
    old = ctx.socket(purezmq.DEALER)
    old_core = old._core
    old.close()
    new = ctx.socket(purezmq.DEALER)
    waiter = new._core._waiter
    assert waiter is old_core._waiter
    old_core.wake()  # what term() does to every socket it saw open
    old_core.signal_fd()  # and an asyncio waker
    assert not waiter._armed
    assert new.poll(0) == 0
    new.close()


def test_term_closes_the_waiters_it_kept() -> None:
    c = purezmq.Context()
    sock = c.socket(purezmq.PAIR)
    waiter = sock._core._waiter
    sock.close()
    assert not waiter.closed  # kept for the next socket
    c.term()
    assert waiter.closed
