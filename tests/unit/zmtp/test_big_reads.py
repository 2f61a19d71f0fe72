"""Reads around large frames: after a big frame the ring takes headers only,
so the next body goes straight into its own storage (decoder.HEADER_READ)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purezmq._zmtp import BIG_FRAME
from purezmq._zmtp.decoder import HEADER_READ, MIN_READ, SCAN_WINDOW, FrameDecoder

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


#: A message ahead of a big frame in the same read, so that the big body
#: starts more than HEADER_READ into the read: no lead is learnt from it.
AHEAD = message_bytes([b"p" * 600])


def test_after_a_big_frame_the_ring_reads_headers_only() -> None:
    dec = framing_decoder()
    first = b"a" * (BIG_FRAME * 8)
    feed(dec, AHEAD + data_frame(first))
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
    feed(dec, AHEAD + data_frame(b"x" * (BIG_FRAME * 4)))
    assert len(dec.get_buffer()) == HEADER_READ
    dec.buffer_updated(0)
    assert len(dec.get_buffer()) >= MIN_READ


def test_the_header_read_stops_where_the_next_body_of_the_same_shape_starts() -> None:
    """The big body began 11 bytes into the read that brought it (an empty
    delimiter and a long header, as REQ/REP): the next header read is 11
    bytes, so the next such body is not touched by the ring and the driver
    may receive it whole as bytes of its own (direct_body)."""
    dec = framing_decoder()
    first, second = b"a" * 70_000, b"b" * 80_000
    feed(dec, message_bytes([b"", first]))
    out: list[list[bytes]] = []
    dec.decode(out, 10)
    assert out == [[b"", first]]
    wire = message_bytes([b"", second])
    view = dec.get_buffer()
    assert len(view) == 2 + 9
    view[:] = wire[:11]
    dec.buffer_updated(11)
    assert dec.big_remaining == len(second)
    assert dec.direct_body(len(second) - 1) == 0  # not all of it has arrived
    assert dec.direct_body(len(second) + 5) == len(second)
    dec.body_received(second)
    assert dec.big_remaining == 0
    out.clear()
    dec.decode(out, 10)
    assert out == [[b"", second]]
    assert out[0][1] is second  # delivered as received: no copy, no storage


def test_a_short_direct_read_goes_on_in_storage() -> None:
    dec = framing_decoder()
    body = bytes(range(256)) * 300
    feed(dec, data_frame(b"z" * 70_000))  # learns the lead: 9 bytes
    wire = data_frame(body)
    view = dec.get_buffer()
    view[:] = wire[: len(view)]
    dec.buffer_updated(len(view))
    assert dec.direct_body(len(body)) == len(body)
    dec.body_received(body[:1000])  # the kernel gave less than it said
    assert dec.direct_body(len(body)) == 0
    feed(dec, body[1000:])
    out: list[list[bytes]] = []
    dec.decode(out, 10)
    assert out == [[b"z" * 70_000], [body]]


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


def test_a_big_frame_behind_many_unparsed_small_ones_is_found() -> None:
    """The I/O thread's header walk (`_scan_for_big`) reads the ring through
    windows of SCAN_WINDOW bytes: frames of every header shape, some longer
    than a window, and headers cut by a window's end, ahead of a big frame
    nobody has parsed yet; the next view offered for reading is the big
    frame's storage, and every message comes out whole."""
    shapes = [1, 200, 300, SCAN_WINDOW + 5, 7, BIG_FRAME - 1]
    small = [[bytes([i % 251]) * shapes[i % len(shapes)]] for i in range(120)]
    big = b"z" * (BIG_FRAME * 3)
    head = b"".join(message_bytes(m) for m in small)
    assert len(head) > 20 * SCAN_WINDOW
    wire = head + data_frame(big)
    dec = framing_decoder()
    feed(dec, wire[: len(head) + 100])  # the big header and part of its body
    dec.get_buffer()
    assert dec._big is not None
    assert dec._big.filled == 100 - 9
    feed(dec, wire[len(head) + 100 :])
    out: list[list[bytes]] = []
    while dec.decode(out, 1 << 30) is not None:
        pass
    assert out == [*small, [big]]


def test_a_long_header_cut_by_the_scan_window_is_read_whole() -> None:
    """A 9-byte header that starts a few bytes before the end of the walk's
    first window (SCAN_WINDOW bytes from where the first full read begins)."""
    small = [[b"s" * 200] for _ in range(SCAN_WINDOW // 202)]  # 202 bytes each on the wire
    lead = sum(len(message_bytes(m)) for m in small)
    small.append([b"t" * (SCAN_WINDOW - 4 - lead - 2)])  # the long header starts 4 bytes before
    small.append([b"u" * 300])  # a long header (300 > 255)
    head = b"".join(message_bytes(m) for m in small)
    assert len(head) - (300 + 9) == SCAN_WINDOW - 4
    big = b"z" * (BIG_FRAME * 3)
    wire = head + data_frame(big)
    dec = framing_decoder()
    feed(dec, wire[: len(head) + 100])
    dec.get_buffer()
    assert dec._big is not None
    feed(dec, wire[len(head) + 100 :])
    out: list[list[bytes]] = []
    while dec.decode(out, 1 << 30) is not None:
        pass
    assert out == [*small, [big]]


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
    direct_reads=st.booleans(),
)
def test_bytes_arrive_intact_across_random_partial_reads(
    msgs: list[list[int]], chunks: list[int], parse_every: int, direct_reads: bool
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
        # A driver that knows what has arrived (FIONREAD): everything up to
        # this chunk's end. It takes a whole body as bytes when allowed.
        arrived = min(chunks[i % len(chunks)], len(wire) - pos)
        direct = dec.direct_body(arrived) if direct_reads else 0
        if direct:
            dec.body_received(wire[pos : pos + direct])
            pos += direct
            i += 1
            continue
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
