"""Large frames over tcp: the receive low-water mark never holds up later messages.

While a large frame arrives over TCP, the engine raises the socket's
SO_RCVLOWAT so that it wakes once per 256 KiB rather than once per segment
burst (see `purezmq._io.engine_core.LOWAT_MAX`). The mark must fall back as the
frame completes: a small message after a large one would otherwise wait for
bytes that never come. These tests would block (and fail on RCVTIMEO) if it
did not.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import purezmq as zmq

from .conftest import bind_any

BIG = 3 * 1024 * 1024 + 7  # several marks' worth, and not a multiple of one


@pytest.mark.parametrize("direct", [True, False], ids=["blocking-recv", "poll-then-recv"])
def test_small_messages_right_after_large_ones(
    make: Callable[..., zmq.Socket], direct: bool
) -> None:
    pull = make(zmq.PULL)
    push = make(zmq.PUSH)
    push.connect(bind_any(pull, "tcp://127.0.0.1:*"))
    big = bytes(range(256)) * (BIG // 256) + b"x" * (BIG % 256)
    for i in range(5):
        push.send(big)
        push.send(b"small %d" % i)
        if not direct:  # the I/O thread reads: poll, then receive without blocking
            assert pull.poll(5000) & zmq.POLLIN
        assert pull.recv() == big
        assert pull.recv() == b"small %d" % i


def test_request_reply_alternating_sizes(make: Callable[..., zmq.Socket]) -> None:
    rep = make(zmq.REP)
    req = make(zmq.REQ)
    req.connect(bind_any(rep, "tcp://127.0.0.1:*"))
    for size in (BIG, 1, 300 * 1024, 10, 70 * 1024, BIG, 0):
        payload = b"r" * size
        req.send(payload)
        assert rep.recv() == payload
        rep.send(payload[::-1])
        assert req.recv() == payload


@pytest.mark.parametrize("kind", ["tcp", "ipc"])
@pytest.mark.parametrize("direct", [True, False], ids=["blocking-recv", "poll-then-recv"])
def test_bodies_already_waiting_are_read_at_once(
    make: Callable[..., zmq.Socket],
    endpoint_for: Callable[[str], str],
    direct: bool,
    kind: str,
) -> None:
    """The engine reads a large frame's body in the wake-up that brought its
    header when the kernel already holds it (FIONREAD); frames queued back
    to back - big, small, big of another size - still come out whole and in
    order, whichever thread reads."""
    pull = make(zmq.PULL)
    push = make(zmq.PUSH)
    push.connect(bind_any(pull, endpoint_for(kind)))
    sizes = [65536, 3, 65537, 1 << 20, 0, 300 * 1024, 65536, 65536, 70_000]
    payloads = [bytes([i % 251]) * size for i, size in enumerate(sizes)]
    for payload in payloads:  # all queued before the first receive
        push.send(payload)
    for payload in payloads:
        if not direct:
            assert pull.poll(5000) & zmq.POLLIN
        assert pull.recv() == payload
