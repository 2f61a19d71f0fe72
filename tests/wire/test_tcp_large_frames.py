"""Large frames over tcp arriving in pieces, with pauses.

Right after a large frame's header the engine waits for SO_RCVLOWAT's worth
of the body (`purezmq._io.engine_core.LOWAT_MAX`) unless all of it is there.
Once the body is arriving in storage it reads whatever the kernel holds,
however little, and only then waits again (`StreamEngine._read_more`). The
raw peers below send bodies in pieces that are not multiples of anything,
pausing so that the reader catches up and finds nothing: the mark must
never wait for bytes that are not coming, and every frame must come out
whole, on the I/O thread and on an asyncio loop.
"""

from __future__ import annotations

import asyncio
import time

import pytest

import purezmq as zmq
import purezmq.asyncio as azmq

from .helpers import receive_pieces_then_close
from .zmtp_raw import RawPeer, frame

BIG = 1 << 20
STEP = 70_001


def _body(size: int) -> bytes:
    return bytes(range(256)) * (size // 256) + b"t" * (size % 256)


def _send_in_pieces(peer: RawPeer, wire: bytes) -> None:
    for at in range(0, len(wire), STEP):
        peer.send(wire[at : at + STEP])
        if at // STEP % 5 == 2:
            time.sleep(0.02)  # the reader catches up and finds nothing


@pytest.mark.parametrize("size", [BIG, 3 * BIG + 5, 300 * 1024 + 1])
def test_bodies_sent_in_pieces_with_pauses_arrive_whole(ctx: zmq.Context, size: int) -> None:
    pull = ctx.socket(zmq.PULL)
    pull.setsockopt(zmq.LINGER, 0)
    pull.setsockopt(zmq.RCVTIMEO, 5000)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    peer = RawPeer.connect(port)
    peer.handshake(b"PUSH")
    body = _body(size)
    for i in range(2):
        _send_in_pieces(peer, frame(body) + frame(b"after"))
        assert pull.recv() == body, i
        assert pull.recv() == b"after"
    peer.close()
    pull.close()


def test_asyncio_receives_bodies_sent_in_pieces() -> None:
    body = _body(2 * BIG + 3)

    async def main() -> None:
        actx = azmq.Context()
        pull = actx.socket(zmq.PULL)
        pull.setsockopt(zmq.LINGER, 0)
        port = pull.bind_to_random_port("tcp://127.0.0.1")
        loop = asyncio.get_running_loop()
        peer = await loop.run_in_executor(None, RawPeer.connect, port)
        await loop.run_in_executor(None, peer.handshake, b"PUSH")
        sending = loop.run_in_executor(None, _send_in_pieces, peer, frame(body) * 3 + frame(b"end"))
        await receive_pieces_then_close(pull, peer, actx, sending, body, 3)

    asyncio.run(main())
