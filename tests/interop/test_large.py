"""Large messages against libzmq: >= 16 MiB frames alone and mixed with small
and empty frames in one multipart message, both directions, tcp and ipc.
Content is compared by SHA-256 (a mismatch prints digests, not megabytes)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from .helpers import digest

pytestmark = pytest.mark.interop

MiB = 1024 * 1024


def _blob(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


@pytest.fixture(scope="module")
def payloads() -> dict[str, list[bytes]]:
    """Made once for the module: random bytes are the slow part."""
    return {
        "single": [_blob(16 * MiB + 1, 1)],
        "multipart": [
            b"head",
            _blob(17 * MiB, 2),
            b"",
            _blob(1000, 3),
            _blob(16 * MiB, 4),
            b"\x00",
        ],
    }


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
@pytest.mark.parametrize("direction", ["pz->lz", "lz->pz"])
def test_large_messages(
    peers: Any, payloads: dict[str, list[bytes]], direction: str, transport: str
) -> None:
    sender_impl, receiver_impl = direction.split("->")
    sender = peers.socket(sender_impl, "PAIR", rcvtimeo=10000, sndtimeo=10000)
    receiver = peers.socket(receiver_impl, "PAIR", rcvtimeo=10000, sndtimeo=10000)
    peers.link(receiver, sender, transport)
    for name in ("single", "multipart"):
        msg = payloads[name]
        sender.send_multipart(msg, copy=False)
        got = receiver.recv_multipart()
        assert [len(f) for f in got] == [len(f) for f in msg], name
        assert [digest(f) for f in got] == [digest(f) for f in msg], name
