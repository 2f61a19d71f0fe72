"""Reads around large frames: after a big frame the ring takes headers only,
so the next body goes straight into its own storage (decoder.HEADER_READ)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purezmq._zmtp import BIG_FRAME
from purezmq._zmtp.decoder import HEADER_READ, MIN_READ, FrameDecoder

from .helpers import data_frame, message_bytes


def framing_decoder() -> FrameDecoder:
    dec = FrameDecoder()
    dec.start_framing()
    return dec


def feed(dec: FrameDecoder, data: bytes) -> list[int]:
    """Write `data` through the decoder's views; the view sizes it offered."""
    sizes = []
    pos = 0
    while pos < len(data):
        view = dec.get_buffer()
        sizes.append(len(view))
        n = min(len(view), len(data) - pos)
        view[:n] = data[pos : pos + n]
        dec.buffer_updated(n)
        pos += n
    return sizes


def test_after_a_big_frame_the_ring_reads_headers_only() -> None:
    dec = framing_decoder()
    first = b"a" * (BIG_FRAME * 8)
    feed(dec, data_frame(first))
    view = dec.get_buffer()
    assert len(view) == HEADER_READ
    wire = message_bytes([b"", b"b" * (BIG_FRAME * 8)])
    view[:HEADER_READ] = wire[:HEADER_READ]
    dec.buffer_updated(HEADER_READ)
    # The next big frame starts from the headers' read: at most that much
    # of its body was copied from the ring; the rest goes into its storage.
    view = dec.get_buffer()
    big = dec._big
    assert big is not None
    assert big.filled == HEADER_READ - 2 - 9
    chunk = b"c" * 1000
    view[:1000] = chunk
    dec.buffer_updated(1000)
    stored = big._bio.getbuffer()
    try:
        assert bytes(stored[big.filled - 1000 : big.filled]) == chunk  # the frame's own storage
    finally:
        stored.release()


def test_the_short_read_is_once_then_the_ring_reads_fully() -> None:
    dec = framing_decoder()
    feed(dec, data_frame(b"x" * (BIG_FRAME * 4)))
    assert len(dec.get_buffer()) == HEADER_READ
    dec.buffer_updated(0)
    assert len(dec.get_buffer()) >= MIN_READ


def test_small_messages_after_a_big_frame_arrive_intact() -> None:
    dec = framing_decoder()
    big = b"q" * (BIG_FRAME * 4)
    small = [[b"m%d" % i] for i in range(300)]
    wire = data_frame(big) + b"".join(message_bytes(m) for m in small)
    feed(dec, wire)
    out: list[list[bytes]] = []
    while dec.decode(out, 1 << 30) is not None:
        pass
    assert out == [[big], *small]


sizes = st.one_of(
    st.integers(0, 300),
    st.integers(BIG_FRAME - 2, BIG_FRAME + 2),
    st.integers(BIG_FRAME, 150_000),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    msgs=st.lists(st.lists(sizes, min_size=1, max_size=3), min_size=1, max_size=6),
    chunks=st.lists(st.integers(1, 70_000), min_size=1, max_size=20),
    parse_every=st.integers(1, 5),
)
def test_bytes_arrive_intact_across_random_partial_reads(
    msgs: list[list[int]], chunks: list[int], parse_every: int
) -> None:
    """Whatever the read sizes (each at most what the decoder offers) and
    however parsing interleaves with reading, every frame comes out whole,
    and frames delivered earlier never change afterwards."""
    expected = [
        [bytes([(m * 7 + f) % 251]) * size for f, size in enumerate(parts)]
        for m, parts in enumerate(msgs)
    ]
    wire = b"".join(message_bytes(m) for m in expected)
    dec = framing_decoder()
    out: list[list[bytes]] = []
    pos = i = 0
    while pos < len(wire):
        view = dec.get_buffer()
        n = min(len(view), chunks[i % len(chunks)], len(wire) - pos)
        view[:n] = wire[pos : pos + n]
        dec.buffer_updated(n)
        pos += n
        i += 1
        if i % parse_every == 0:
            dec.decode(out, 1)
    while dec.decode(out, 1 << 30) is not None:
        pass
    assert out == expected
    assert not dec.has_pending
