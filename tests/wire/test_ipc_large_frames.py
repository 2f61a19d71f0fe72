"""Large frames over ipc: a sender keeps whole frames in flight.

A unix stream socket holds only its sender's SO_SNDBUF in the kernel (about
208 KiB by default; no autotuning as over tcp), so a 1 MiB frame went in
five writes and the receiver took it in pieces. Once a write of a large
frame comes back partial, the engine raises the default send buffer of an
ipc connection (`purezmq._io.engine.IPC_SNDBUF`); a ZMQ_SNDBUF the
application chose is left alone.

The peer here is a raw unix socket that does not read: what purezmq has
put in flight is what that socket's FIONREAD reports.
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

from .zmtp_raw import RawPeer

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


def test_small_messages_leave_the_buffer_alone(
    ctx: zmq.Context, listener: tuple[socket.socket, str]
) -> None:
    lst, endpoint = listener
    push, peer = _connected_push(ctx, endpoint, lst)
    payloads = [b"s" * 4000] * 500  # 2 MB, none of it a large frame (SNDHWM 1000)
    for payload in payloads:
        push.send(payload)
    in_flight = _settled(peer.sock)
    assert 0 < in_flight <= _default_sndbuf() * 3 // 2, in_flight
    _frames_intact(peer, payloads)
    push.close()
