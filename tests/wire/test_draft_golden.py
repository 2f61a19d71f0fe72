"""Golden bytes of the draft types: RADIO/DISH over ZMTP (JOIN/LEAVE
commands, RFC 37 section "RADIO and DISH"; the group frame before the body,
libzmq's radio_session) and the udp datagram (libzmq's udp_engine), against
hand-written bytes from a raw peer. No draft-enabled libzmq is available here
(docs/drafts.md), so these bytes are the interop check."""

from __future__ import annotations

import socket
from collections.abc import Callable

import purezmq as zmq

from .helpers import Bound, Monitor
from .zmtp_raw import RawPeer, command

RawFactory = Callable[..., RawPeer]
BoundFactory = Callable[..., Bound]


def _ready(
    bound: BoundFactory, raw: RawFactory, monitor: Callable[..., Monitor], ours: str, theirs: bytes
) -> tuple[Bound, RawPeer]:
    b = bound(ours)
    mon = monitor(b.sock)
    peer = raw(b.port)
    _, props = peer.handshake(theirs)
    assert props == {b"socket-type": ours.encode()}
    mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    b.sock.poll(0)  # attach the pipe
    return b, peer


def test_dish_sends_join_and_leave_commands(bound, raw, monitor) -> None:
    b, peer = _ready(bound, raw, monitor, "DISH", b"RADIO")
    b.sock.join("weather")
    # flags 0x04 (command), size 12, name-len 4, "JOIN", group
    assert peer.recv_exact(14) == b"\x04\x0c\x04JOINweather"
    b.sock.leave("weather")
    assert peer.recv_exact(15) == b"\x04\x0d\x05LEAVEweather"


def test_dish_joins_before_connection_are_sent_on_handshake(bound, raw, monitor) -> None:
    dish = bound("DISH")
    dish.sock.join("a")
    dish.sock.join("bb")
    mon = monitor(dish.sock)
    peer = raw(dish.port)
    peer.handshake(b"RADIO")
    mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    dish.sock.poll(0)
    got = {peer.read_command(), peer.read_command()}
    assert got == {(b"JOIN", b"a"), (b"JOIN", b"bb")}


def test_dish_receives_group_frame_then_body(bound, raw, monitor) -> None:
    b, peer = _ready(bound, raw, monitor, "DISH", b"RADIO")
    b.sock.join("g")
    assert peer.read_command() == (b"JOIN", b"g")
    peer.send(b"\x01\x01g" + b"\x00\x05hello")  # group frame (MORE), body frame
    peer.send(b"\x01\x01x" + b"\x00\x03not")  # a group we did not join
    frame = b.sock.recv(copy=False)
    assert (frame.bytes, frame.group) == (b"hello", "g")
    assert b.sock.poll(100) == 0


def test_radio_sends_to_joined_peer_only(bound, raw, monitor) -> None:
    b, peer = _ready(bound, raw, monitor, "RADIO", b"DISH")
    peer.send(command(b"JOIN", b"news"))
    b.sock.poll(100)  # let the JOIN reach the pattern
    # the JOIN travels asynchronously: send until the first message arrives
    for _ in range(100):
        b.sock.send(b"ignored", group="sports")
        b.sock.send(b"story", group="news")
        data = peer.recv_available(0.05)
        if data:
            break
    assert data.startswith(b"\x01\x04news\x00\x05story")
    peer.send(command(b"LEAVE", b"news"))
    b.sock.poll(100)
    peer.recv_available(0.2)  # what was in flight before the LEAVE
    b.sock.send(b"after leave", group="news")
    assert peer.recv_available(0.2) == b""


def _udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_udp_datagram_from_radio(ctx: zmq.Context) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw_sock:
        raw_sock.bind(("127.0.0.1", 0))
        raw_sock.settimeout(5)
        port = raw_sock.getsockname()[1]
        radio = ctx.socket(zmq.RADIO)
        radio.linger = 0
        radio.connect(f"udp://127.0.0.1:{port}")
        radio.send(b"abc", group="g1")
        assert raw_sock.recv(100) == b"\x02g1abc"  # length, group, body
        radio.send(b"", group="")
        assert raw_sock.recv(100) == b"\x00"


def test_udp_datagram_to_dish(ctx: zmq.Context) -> None:
    port = _udp_port()
    dish = ctx.socket(zmq.DISH)
    dish.linger = 0
    dish.rcvtimeo = 5000
    dish.bind(f"udp://127.0.0.1:{port}")
    dish.join("hello")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw_sock:
        raw_sock.sendto(b"\x09truncated", ("127.0.0.1", port))  # group overruns: dropped
        raw_sock.sendto(b"\x05otherbody", ("127.0.0.1", port))  # not joined
        raw_sock.sendto(b"\x05hellobody", ("127.0.0.1", port))
    frame = dish.recv(copy=False)
    assert (frame.bytes, frame.group) == (b"body", "hello")
    assert dish.poll(100) == 0


def test_udp_dgram_raw_both_ways(ctx: zmq.Context) -> None:
    port = _udp_port()
    dgram = ctx.socket(zmq.DGRAM)
    dgram.linger = 0
    dgram.rcvtimeo = 5000
    dgram.bind(f"udp://127.0.0.1:{port}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw_sock:
        raw_sock.bind(("127.0.0.1", 0))
        raw_sock.settimeout(5)
        raw_sock.sendto(b"payload", ("127.0.0.1", port))
        addr, body = dgram.recv_multipart()
        assert addr == b"127.0.0.1:%d\0" % raw_sock.getsockname()[1]  # NUL-ended, as libzmq
        assert body == b"payload"
        dgram.send_multipart([addr, b"reply"])
        assert raw_sock.recv(100) == b"reply"  # the body alone
