"""Hypothesis: encode/decode round-trips through a fake link with random
chunking, and fuzzing with the invariant "only ProtocolError escapes"."""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purezmq._zmtp import NullMechanism, ProtocolError, ZMTPConnection

from .helpers import GREETING_31_NULL, connected, out_bytes, ready_frame

SIZES = st.one_of(
    st.sampled_from([0, 1, 255, 256, 8191, 8192, 70000]),
    st.integers(min_value=0, max_value=600),
)
FRAME = SIZES.flatmap(
    lambda n: st.tuples(
        st.sampled_from(["bytes", "bytearray", "memoryview"]), st.just(n), st.integers(0, 255)
    )
)
MESSAGE = st.lists(FRAME, min_size=1, max_size=4)
SLOW = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])


def build(frame: tuple[str, int, int]) -> bytes | bytearray | memoryview:
    kind, size, fill = frame
    data = bytes([fill]) * size
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(b"\x00" + data)[1:]
    return data


def deliver(src: ZMTPConnection, dst: ZMTPConnection, cuts: list[int], now: float = 0.0) -> None:
    """Move src's output to dst through get_buffer/buffer_updated, cutting
    the stream into pieces whose sizes cycle through `cuts`."""
    data = out_bytes(src)
    pos, i = 0, 0
    while pos < len(data):
        piece = cuts[i % len(cuts)]
        i += 1
        end = min(len(data), pos + piece)
        while pos < end:
            view = dst.get_buffer()
            count = min(len(view), end - pos)
            view[:count] = data[pos : pos + count]
            dst.buffer_updated(count, now)
            pos += count


@SLOW
@given(
    msgs=st.lists(MESSAGE, min_size=1, max_size=12),
    cuts=st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=6),
    max_msgs=st.integers(min_value=1, max_value=20),
)
def test_round_trip_through_random_chunks(
    msgs: list[list[tuple[str, int, int]]], cuts: list[int], max_msgs: int
) -> None:
    a, b = connected("DEALER", "ROUTER")
    frames = [[build(f) for f in msg] for msg in msgs]
    expected = [[bytes(f) for f in msg] for msg in frames]
    a.send_messages(frames)
    deliver(a, b, cuts)
    received: list[list[bytes]] = []
    while True:
        batch = b.pull(max_msgs)
        assert len(batch) <= max_msgs
        if not batch:
            break
        received.extend(batch)
    assert received == expected
    assert all(type(f) is bytes for msg in received for f in msg)
    assert not b.has_pending_input


@SLOW
@given(
    rounds=st.lists(st.lists(MESSAGE, min_size=0, max_size=4), min_size=1, max_size=5),
    cuts=st.lists(st.integers(min_value=1, max_value=9000), min_size=1, max_size=4),
)
def test_interleaved_sending_and_pulling(
    rounds: list[list[list[tuple[str, int, int]]]], cuts: list[int]
) -> None:
    a, b = connected("PUSH", "PULL")
    expected: list[list[bytes]] = []
    received: list[list[bytes]] = []
    for batch in rounds:
        frames = [[build(f) for f in msg] for msg in batch]
        expected.extend([bytes(f) for f in msg] for msg in frames)
        a.send_messages(frames)
        deliver(a, b, cuts)
        received.extend(b.pull(2))
    while more := b.pull(100):
        received.extend(more)
    assert received == expected


@settings(deadline=None, max_examples=300)
@given(data=st.binary(max_size=400), socket_type=st.sampled_from(["DEALER", "SUB", "XPUB"]))
def test_fuzz_random_bytes_from_the_start(data: bytes, socket_type: str) -> None:
    conn = ZMTPConnection(socket_type=socket_type, mechanism=NullMechanism(), now=0.0)
    try:
        conn.receive_data(data, 1.0)
        conn.pull(100)
        conn.on_timer(100.0)
    except ProtocolError as exc:
        assert conn.close_reason is exc
    conn.data_to_send()


@settings(deadline=None, max_examples=300)
@given(data=st.binary(max_size=600), max_msgs=st.integers(1, 5))
def test_fuzz_random_bytes_after_valid_greeting(data: bytes, max_msgs: int) -> None:
    conn = ZMTPConnection(socket_type="ROUTER", mechanism=NullMechanism(), now=0.0)
    try:
        conn.receive_data(GREETING_31_NULL + data, 0.0)
        for _ in range(len(data) + 1):
            if not conn.pull(max_msgs):
                break
    except ProtocolError:
        assert conn.state == "closed"


def frame_bytes(flags: int, body: bytes) -> bytes:
    if flags & 2:
        return bytes((flags,)) + struct.pack(">Q", len(body)) + body
    return bytes((flags, len(body) & 0xFF)) + body


@settings(deadline=None, max_examples=300)
@given(
    frames=st.lists(
        st.tuples(
            st.integers(0, 255),
            st.one_of(
                st.binary(max_size=40),
                st.sampled_from(
                    [b"\x04PING", b"\x04PING\x00\x01", b"\x09SUBSCRIBE", b"\x05ERROR\x01x"]
                ),
            ),
        ),
        max_size=10,
    ),
    tail=st.binary(max_size=20),
    chunk=st.integers(1, 50),
)
def test_fuzz_frames_after_handshake(
    frames: list[tuple[int, bytes]], tail: bytes, chunk: int
) -> None:
    conn = ZMTPConnection(socket_type="XPUB", mechanism=NullMechanism(), now=0.0, max_msg_size=1000)
    wire = (
        GREETING_31_NULL
        + ready_frame(b"SUB")
        + b"".join(frame_bytes(f, b) for f, b in frames)
        + tail
    )
    try:
        for pos in range(0, len(wire), chunk):
            conn.receive_data(wire[pos : pos + chunk], 0.0)
            conn.pull(3)
        while conn.pull(10):
            pass
    except ProtocolError:
        assert conn.close_reason is not None
