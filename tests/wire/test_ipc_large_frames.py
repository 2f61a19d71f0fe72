"""Large frames over ipc: a sender keeps whole frames in flight.

A unix stream socket holds only its sender's SO_SNDBUF in the kernel (about
208 KiB by default; no autotuning as over tcp), so a 1 MiB frame went in
five writes and the receiver took it in pieces. Once a write of a large
frame comes back partial, the engine raises the default send buffer of an
ipc connection (`purezmq._io.engine_core.IPC_SNDBUF`); a ZMQ_SNDBUF the
application chose is left alone.

The peer here is a raw unix socket that does not read: what purezmq has
put in flight is what that socket's FIONREAD reports.

Receiving, a unix socket is readable at one byte (no SO_RCVLOWAT), and a
peer with the default buffer sends a large body in pieces: once the body
is arriving, the engine reads on while the kernel holds more
(`StreamEngine._read_more`). The raw peers below send bodies in pieces,
pause and resume, or stop for good mid-body.
"""

from __future__ import annotations

import array
import fcntl
import socket
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import purezmq as zmq

from .helpers import receive_pieces_then_close
from .zmtp_raw import RawPeer, frame

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="unix socket buffer sizes")

BIG = 1 << 20


def _default_sndbuf() -> int:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        return a.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    finally:
        a.close()
        b.close()


def _waiting(sock: socket.socket) -> int:
    count = array.array("i", [0])
    fcntl.ioctl(sock.fileno(), termios.FIONREAD, count, True)
    return count[0]


def _settled(sock: socket.socket) -> int:
    """FIONREAD once it stops growing (the sender's I/O thread is done)."""
    last = -1
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        now = _waiting(sock)
        if now == last and now > 0:
            return now
        last = now
        time.sleep(0.1)
    return last


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = str(tmp_path / "big.ipc")
    lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lst.bind(path)
    lst.listen(1)
    yield lst, "ipc://" + path
    lst.close()


def _connected_push(
    ctx: zmq.Context, endpoint: str, lst: socket.socket, **options: int
) -> tuple[zmq.Socket, RawPeer]:
    push = ctx.socket(zmq.PUSH)
    push.setsockopt(zmq.LINGER, 0)
    for name, value in options.items():
        push.setsockopt(getattr(zmq, name), value)
    push.connect(endpoint)
    lst.settimeout(5.0)
    conn, _ = lst.accept()
    peer = RawPeer(conn)
    peer.handshake(b"PULL")
    return push, peer


def _frames_intact(peer: RawPeer, payloads: list[bytes]) -> None:
    for payload in payloads:
        assert peer.read_message() == [payload]


def test_large_frames_go_into_the_kernel_whole(
    ctx: zmq.Context, listener: tuple[socket.socket, str]
) -> None:
    lst, endpoint = listener
    push, peer = _connected_push(ctx, endpoint, lst)
    payloads = [bytes([i]) * BIG for i in range(3)]
    for payload in payloads:
        push.send(payload)
    in_flight = _settled(peer.sock)
    # More than the default buffer could ever hold (about 208 KiB of data):
    # it was raised (to 416 KiB where net.core.wmem_max is the default).
    assert in_flight > _default_sndbuf() * 3 // 2, in_flight
    _frames_intact(peer, payloads)
    push.close()


def test_a_send_buffer_the_application_chose_is_kept(
    ctx: zmq.Context, listener: tuple[socket.socket, str]
) -> None:
    lst, endpoint = listener
    push, peer = _connected_push(ctx, endpoint, lst, SNDBUF=64 * 1024)
    payloads = [bytes([i]) * BIG for i in range(3)]
    for payload in payloads:
        push.send(payload)
    in_flight = _settled(peer.sock)
    assert 0 < in_flight < _default_sndbuf(), in_flight
    _frames_intact(peer, payloads)
    push.close()


@pytest.mark.parametrize("size", [4000, 65536])
def test_smaller_frames_leave_the_buffer_alone(
    ctx: zmq.Context, listener: tuple[socket.socket, str], size: int
) -> None:
    """However long the queue: 2 MB of them, none a large frame."""
    lst, endpoint = listener
    push, peer = _connected_push(ctx, endpoint, lst)
    payloads = [b"s" * size] * (2_000_000 // size)  # under SNDHWM (1000)
    for payload in payloads:
        push.send(payload)
    in_flight = _settled(peer.sock)
    assert 0 < in_flight <= _default_sndbuf() * 3 // 2, in_flight
    _frames_intact(peer, payloads)
    push.close()


def _raw_sender(ctx: zmq.Context, tmp_path: Path) -> tuple[zmq.Socket, RawPeer]:
    pull = ctx.socket(zmq.PULL)
    pull.setsockopt(zmq.LINGER, 0)
    pull.setsockopt(zmq.RCVTIMEO, 5000)
    path = str(tmp_path / "pull.ipc")
    pull.bind("ipc://" + path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    peer = RawPeer(sock)
    peer.handshake(b"PUSH")
    return pull, peer


@pytest.mark.parametrize("size", [BIG, 3 * BIG + 5, 300 * 1024 + 1])
def test_bodies_sent_in_pieces_with_pauses_arrive_whole(
    ctx: zmq.Context, tmp_path: Path, size: int
) -> None:
    pull, peer = _raw_sender(ctx, tmp_path)
    body = bytes(range(256)) * (size // 256) + b"t" * (size % 256)
    wire = frame(body) + frame(b"after")
    step = 100_000
    for i in range(2):
        for at in range(0, len(wire), step):
            peer.send(wire[at : at + step])
            if at // step % 4 == 1:
                time.sleep(0.02)  # the reader catches up and finds nothing
        assert pull.recv() == body, i
        assert pull.recv() == b"after"
    pull.close()


def test_a_peer_that_stops_mid_body_holds_up_no_one(ctx: zmq.Context, tmp_path: Path) -> None:
    """The frame never completes: nothing is delivered, and a later peer's
    messages still are; the stalled peer's close ends its connection."""
    pull, peer = _raw_sender(ctx, tmp_path)
    declared = 1 << 30
    peer.send(b"\x02" + declared.to_bytes(8, "big") + b"\x01" * 700_000)
    assert not pull.poll(300)
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other.connect(str(tmp_path / "pull.ipc"))
    good = RawPeer(other)
    good.handshake(b"PUSH")
    good.send(frame(b"g" * BIG))
    assert pull.recv() == b"g" * BIG
    peer.close()
    good.send(frame(b"still"))
    assert pull.recv() == b"still"
    good.close()
    pull.close()


def test_asyncio_receives_bodies_sent_in_pieces(tmp_path: Path) -> None:
    """The same read path on an asyncio loop (each readiness a loop turn)."""
    import asyncio

    import purezmq.asyncio as azmq

    path = str(tmp_path / "aio.ipc")
    body = bytes(range(256)) * (3 * BIG // 256)

    async def main() -> None:
        actx = azmq.Context()
        pull = actx.socket(zmq.PULL)
        pull.setsockopt(zmq.LINGER, 0)
        pull.bind("ipc://" + path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        peer = RawPeer(sock)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, peer.handshake, b"PUSH")
        wire = frame(body) * 3 + frame(b"end")

        def send() -> None:
            for at in range(0, len(wire), 150_000):
                peer.send(wire[at : at + 150_000])
                time.sleep(0.001)

        sending = loop.run_in_executor(None, send)
        await receive_pieces_then_close(pull, peer, actx, sending, body, 3)

    asyncio.run(main())
