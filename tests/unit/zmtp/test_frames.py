"""Frame codec: encoder chunk layout, decoder flags/sizes, big-frame path."""

from __future__ import annotations

import array
import struct

import pytest

from purezmq._zmtp import BIG_FRAME, ProtocolError
from purezmq._zmtp.bigframe import INITIAL_RESERVE, BigFrame
from purezmq._zmtp.decoder import ALLOC_MAX, HEADER_READ, FrameDecoder
from purezmq._zmtp.frames import (
    SHORT_LAST,
    SHORT_MORE,
    FrameEncoder,
    byte_length,
    command_frame,
    frame_header,
    long_size,
)

from .helpers import data_frame, message_bytes


def joined(chunks: list[bytes | bytearray | memoryview]) -> bytes:
    return b"".join(bytes(c) for c in chunks)


# ------------------------------------------------------------------ encoder


def test_precomputed_short_headers() -> None:
    assert len(SHORT_LAST) == len(SHORT_MORE) == 256
    assert SHORT_LAST[0] == b"\x00\x00" and SHORT_LAST[255] == b"\x00\xff"
    assert SHORT_MORE[7] == b"\x01\x07"


@pytest.mark.parametrize(
    ("size", "flags", "header"),
    [
        (0, 0, b"\x00\x00"),
        (255, 1, b"\x01\xff"),
        (256, 0, b"\x02\x00\x00\x00\x00\x00\x00\x01\x00"),
        (256, 1, b"\x03\x00\x00\x00\x00\x00\x00\x01\x00"),
        (2**40, 4, b"\x06\x00\x00\x01\x00\x00\x00\x00\x00"),
    ],
)
def test_frame_header(size: int, flags: int, header: bytes) -> None:
    assert frame_header(size, flags) == header


@pytest.mark.parametrize(
    "size", [0, 1, 255, 256, 1024, 8191, 2**24 + 3, 2**31, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 1]
)
def test_long_size_reads_the_header_it_was_given(size: int) -> None:
    header = b"\x02" + struct.pack(">Q", size)  # long headers may carry small sizes
    assert long_size(b"xy" + header + b"z", 3) == size


def test_small_batch_is_one_joined_chunk() -> None:
    enc = FrameEncoder()
    enc.add_messages([[b"a"], [b""], [b"x" * 255]])
    chunks = enc.take()
    assert chunks == [b"\x00\x01a\x00\x00\x00\xff" + b"x" * 255]
    assert not enc and enc.take() == []


def test_multipart_sets_more_on_all_but_last() -> None:
    enc = FrameEncoder()
    enc.add_messages([[b"a", b"bb", b"c" * 300]])
    assert joined(enc.take()) == (
        b"\x01\x01a" + b"\x01\x02bb" + b"\x02" + struct.pack(">Q", 300) + b"c" * 300
    )


def test_long_more_and_last_frames_encode_alike_each_time() -> None:
    # The second message meets the cached headers of the first.
    msg = [b"m" * 300, b"l" * (BIG_FRAME - 1)]
    enc = FrameEncoder()
    enc.add_messages([msg, msg])
    assert joined(enc.take()) == message_bytes(msg) * 2


def test_long_frame_below_threshold_is_joined() -> None:
    enc = FrameEncoder()
    frame = b"q" * (BIG_FRAME - 1)
    enc.add_messages([[frame]])
    chunks = enc.take()
    assert len(chunks) == 1 and chunks[0] == data_frame(frame)


def test_big_frames_are_emitted_by_reference() -> None:
    enc = FrameEncoder()
    big1 = b"B" * BIG_FRAME
    big2 = bytearray(b"C" * 100_000)
    enc.add_messages([[b"hi"], [big1], [b"x", big2], [b"tail"]])
    chunks = enc.take()
    assert chunks[1] is big1 and chunks[3] is big2
    assert len(chunks) == 5
    assert joined(chunks) == message_bytes([b"hi"]) + message_bytes([big1]) + message_bytes(
        [b"x", bytes(big2)]
    ) + message_bytes([b"tail"])


def test_memoryview_sizes_count_bytes_not_items() -> None:
    ints = array.array("i", range(100))
    view = memoryview(ints)
    assert len(view) == 100 and byte_length(view) == 400
    enc = FrameEncoder()
    enc.add_messages([[view], [b"a", memoryview(ints)]])
    body = ints.tobytes()
    assert joined(enc.take()) == message_bytes([body]) + message_bytes([b"a", body])


def test_big_foreign_buffer_becomes_byte_view() -> None:
    ints = array.array("q", range(BIG_FRAME))  # 64 KiB
    enc = FrameEncoder()
    enc.add_messages([[memoryview(ints)]])
    chunks = enc.take()
    big = chunks[1]
    assert isinstance(big, memoryview) and big.format == "B" and len(big) == len(ints) * 8
    assert joined(chunks) == message_bytes([ints.tobytes()])


def test_bytearray_and_memoryview_small_frames() -> None:
    enc = FrameEncoder()
    enc.add_messages([[bytearray(b"ab")], [memoryview(b"cd")[1:]]])
    assert joined(enc.take()) == b"\x00\x02ab\x00\x01d"


def test_commands_and_raw_keep_order() -> None:
    enc = FrameEncoder()
    enc.add_raw(b"RAW")
    enc.add_command(b"\x04PING\x00\x00")
    enc.add_messages([[b"m"]])
    enc.add_command(b"\x05READY" + b"p" * 300)
    assert joined(enc.take()) == (
        b"RAW" + b"\x04\x07\x04PING\x00\x00" + b"\x00\x01m"
        + b"\x06" + struct.pack(">Q", 306) + b"\x05READY" + b"p" * 300
    )  # fmt: skip


def test_command_frame_helper() -> None:
    assert command_frame(b"\x04PONG") == b"\x04\x05\x04PONG"


# ------------------------------------------------------------------ decoder


def framing_decoder(**kwargs: int) -> FrameDecoder:
    dec = FrameDecoder(**kwargs)
    dec.start_framing()
    return dec


def put(dec: FrameDecoder, data: bytes) -> None:
    pos = 0
    while pos < len(data):
        view = dec.get_buffer()
        n = min(len(view), len(data) - pos)
        view[:n] = data[pos : pos + n]
        dec.buffer_updated(n)
        pos += n


def decode_all(dec: FrameDecoder) -> list[list[bytes]]:
    out: list[list[bytes]] = []
    while dec.decode(out, 1 << 30) is not None:
        pass
    return out


def test_decoder_parses_short_long_and_multipart() -> None:
    dec = framing_decoder()
    wire = message_bytes([b"a"]) + message_bytes([b"x" * 256, b"", b"z"]) + message_bytes([b""])
    put(dec, wire)
    assert decode_all(dec) == [[b"a"], [b"x" * 256, b"", b"z"], [b""]]
    assert not dec.has_pending


def test_decoder_returns_commands_in_order() -> None:
    dec = framing_decoder()
    put(dec, message_bytes([b"1"]) + command_frame(b"\x04PING\x00\x00") + message_bytes([b"2"]))
    out: list[list[bytes]] = []
    assert dec.decode(out, 10) == b"\x04PING\x00\x00"
    assert out == [[b"1"]]
    assert dec.decode(out, 10) is None
    assert out == [[b"1"], [b"2"]]


def test_decoder_limit_leaves_rest_buffered() -> None:
    dec = framing_decoder()
    put(dec, b"".join(message_bytes([bytes([i])]) for i in range(10)))
    out: list[list[bytes]] = []
    dec.decode(out, 3)
    assert out == [[b"\x00"], [b"\x01"], [b"\x02"]]
    assert dec.has_pending and dec.buffered == 7 * 3
    dec.decode(out, 100)
    assert len(out) == 10 and not dec.has_pending


def test_partial_multipart_stays_inside() -> None:
    dec = framing_decoder()
    put(dec, data_frame(b"a", more=True) + data_frame(b"b", more=True))
    out: list[list[bytes]] = []
    assert dec.decode(out, 10) is None and out == []
    put(dec, data_frame(b"c"))
    dec.decode(out, 10)
    assert out == [[b"a", b"b", b"c"]]


@pytest.mark.parametrize("flags", [0x08, 0x10, 0x80, 0xFF, 0x09])
def test_reserved_flag_bits_are_rejected(flags: int) -> None:
    dec = framing_decoder()
    put(dec, bytes((flags, 1)) + b"x")
    with pytest.raises(ProtocolError, match="reserved"):
        dec.decode([], 10)
    dec2 = framing_decoder()
    put(dec2, bytes((flags, 1)) + b"x")
    with pytest.raises(ProtocolError):
        dec2.next_frame()


@pytest.mark.parametrize("flags", [0x05, 0x07])
def test_command_with_more_flag_is_rejected(flags: int) -> None:
    dec = framing_decoder()
    put(dec, bytes((flags,)) + (b"\x05" if flags == 5 else struct.pack(">Q", 5)) + b"\x04PING")
    with pytest.raises(ProtocolError, match="MORE"):
        dec.decode([], 10)


def test_max_msg_size_checked_per_frame_from_the_header() -> None:
    dec = framing_decoder(max_msg_size=10)
    put(dec, message_bytes([b"x" * 10, b"y" * 10]) + data_frame(b"z" * 11)[:2])
    out: list[list[bytes]] = []
    with pytest.raises(ProtocolError, match="max_msg_size"):
        dec.decode(out, 10)
    assert out == [[b"x" * 10, b"y" * 10]]


def test_max_msg_size_zero_allows_only_empty_frames() -> None:
    dec = framing_decoder(max_msg_size=0)
    put(dec, message_bytes([b""]) + message_bytes([b"a"]))
    out: list[list[bytes]] = []
    with pytest.raises(ProtocolError):
        dec.decode(out, 10)
    assert out == [[b""]]


@pytest.mark.parametrize("size", [2**30, ALLOC_MAX])
def test_huge_claimed_size_does_not_allocate(size: int) -> None:
    """Storage follows the bytes that arrive, never the declared size (issue
    12: a 1 MiB first reserve made 200 such peers cost 206 MiB)."""
    dec = framing_decoder()
    put(dec, b"\x02" + struct.pack(">Q", size) + b"abc")
    view = dec.get_buffer()
    assert 0 < len(view) <= INITIAL_RESERVE
    assert dec.decode([], 10) is None
    received = 3 + len(view)
    put(dec, b"\x00" * len(view))
    for _ in range(4):  # each reserve is at most what arrived, doubled
        view = dec.get_buffer()
        assert len(view) <= received
        received += len(view)
        put(dec, b"\x00" * len(view))
    assert dec.buffered == 9 + received  # the header stays in the ring


@pytest.mark.parametrize("size", [ALLOC_MAX + 1, 2**62, 2**63 - 1])
@pytest.mark.parametrize("path", ["decode", "next_frame"])
def test_sizes_no_allocation_could_hold_are_refused(size: int, path: str) -> None:
    """libzmq allocates the declared size and drops the peer when malloc
    fails (2^62, 2^63-1 under Linux's overcommit rules); we refuse what is
    larger than this machine's memory, before storing a byte of it."""
    dec = framing_decoder()
    put(dec, b"\x02" + struct.pack(">Q", size) + b"abc")
    view = dec.get_buffer()
    assert len(view) <= 64 * 1024  # the ring, not a big-frame store
    with pytest.raises(ProtocolError, match="larger than this machine's memory"):
        if path == "decode":
            dec.decode([], 10)
        else:
            dec.next_frame()


def test_next_frame_general_path() -> None:
    dec = framing_decoder()
    put(dec, data_frame(b"a", more=True) + command_frame(b"\x05READY") + b"\x00")
    assert dec.next_frame() == (1, b"a")
    assert dec.next_frame() == (4, b"\x05READY")
    assert dec.next_frame() is None
    assert dec.has_pending


def test_raw_bytes_before_framing() -> None:
    dec = FrameDecoder()
    put(dec, b"0123456789")
    assert dec.peek_raw(4) == b"0123"
    assert dec.take_raw(11) is None
    assert dec.take_raw(3) == b"012"
    assert dec.peek_raw(100) == b"3456789"


def test_ring_compacts_and_grows_without_losing_data() -> None:
    dec = framing_decoder(buffer_size=8192)
    msgs = [[bytes([i % 256]) * (i % 300)] for i in range(3000)]
    wire = b"".join(message_bytes(m) for m in msgs)
    got: list[list[bytes]] = []
    pos = 0
    while pos < len(wire):
        view = dec.get_buffer()
        n = min(len(view), 777, len(wire) - pos)
        view[:n] = wire[pos : pos + n]
        dec.buffer_updated(n)
        pos += n
        dec.decode(got, 5)  # parse slower than data arrives: forces growth
    while dec.decode(got, 1000) is not None or dec.has_pending:
        if not dec.has_pending:
            break
    assert got == msgs


# ------------------------------------------------------------ big frames


def test_big_frame_is_received_into_its_own_storage() -> None:
    dec = framing_decoder()
    body = bytes(range(256)) * 1000  # 256000 bytes
    wire = message_bytes([b"before"]) + data_frame(body) + message_bytes([b"after"])
    put(dec, wire[: 2 + 6 + 9 + 100])  # header + 100 body bytes
    view = dec.get_buffer()
    assert len(view) == min(len(body), INITIAL_RESERVE) - 100
    # the view points into the big frame's storage, not into the ring
    assert dec._big is not None
    rest = wire[2 + 6 + 9 + 100 :]
    pos = 0
    while pos < len(rest):
        view = dec.get_buffer()
        n = min(len(view), len(rest) - pos)
        view[:n] = rest[pos : pos + n]
        dec.buffer_updated(n)
        pos += n
    assert decode_all(dec) == [[b"before"], [body], [b"after"]]


def test_big_frame_starts_with_the_read_that_brought_its_header() -> None:
    """After a big frame the next read is a header read; when it brings
    the next big frame's header, `receiving_big` and `big_remaining` are
    right as soon as it is taken in, before any get_buffer: the driver asks
    them to decide whether the body is already waiting in the kernel and
    can be read in the same wake-up."""
    dec = framing_decoder()
    first, second = b"p" * 70_000, b"q" * 80_000
    put(dec, message_bytes([b"x" * 600]) + data_frame(first))  # no lead learnt
    assert dec.big_remaining == 0
    wire = data_frame(second)
    view = dec.get_buffer()
    assert len(view) == HEADER_READ
    view[:] = wire[:HEADER_READ]
    dec.buffer_updated(HEADER_READ)
    assert dec.receiving_big
    assert dec.big_remaining == len(wire) - HEADER_READ
    rest = wire[HEADER_READ:]
    view = dec.get_buffer(len(rest))  # FIONREAD: all of it is waiting
    assert len(view) == len(rest)  # one read takes the rest
    view[:] = rest
    dec.buffer_updated(len(rest))
    assert dec.big_remaining == 0  # complete: back to the ring
    assert decode_all(dec) == [[b"x" * 600], [first], [second]]


def test_big_frame_arriving_whole_comes_from_the_ring() -> None:
    dec = framing_decoder(buffer_size=1 << 20)
    body = b"w" * (BIG_FRAME * 3)
    view = dec.get_buffer(len(body) + 100)
    wire = data_frame(body)
    view[: len(wire)] = wire
    dec.buffer_updated(len(wire))
    assert decode_all(dec) == [[body]]


def test_big_frame_storage_result_is_not_copied() -> None:
    big = BigFrame(300_000, memoryview(b"ab"))
    while not big.complete:
        view = big.writable()
        n = min(len(view), 70_000)
        view[:n] = b"z" * n
        big.written(n)
    value = big.take()
    assert len(value) == 300_000 and value[:3] == b"abz"
    assert big._bio.getvalue() is value  # the BytesIO's own bytes object


def test_big_frame_grows_geometrically_not_to_claimed_size() -> None:
    big = BigFrame(10**12, memoryview(b""))
    assert len(big.writable()) == INITIAL_RESERVE
    big.written(INITIAL_RESERVE)
    assert len(big.writable()) == INITIAL_RESERVE  # doubled
    big.written(10)
    assert not big.complete


def test_big_frame_grows_to_what_has_arrived_in_one_step() -> None:
    """The driver says how many bytes wait in the kernel (FIONREAD): the
    storage takes them in one view - arrived bytes, so memory still follows
    what the peer sent - but never beyond the frame."""
    big = BigFrame(10**6, memoryview(b""))
    first = big.writable()
    assert len(first) == INITIAL_RESERVE
    first[:] = b"a" * len(first)
    big.written(len(first))
    assert len(big.writable(300_000)) == 300_000
    big.written(300_000)
    assert len(big.writable(10**7)) == 10**6 - INITIAL_RESERVE - 300_000  # capped at the frame
    big.written(10**6 - INITIAL_RESERVE - 300_000)
    assert big.complete


def test_big_frame_without_a_hint_doubles() -> None:
    big = BigFrame(10**6, memoryview(b""))
    sizes = []
    while not big.complete:
        view = big.writable()
        sizes.append(len(view))
        big.written(len(view))
    assert sizes[:4] == [INITIAL_RESERVE, INITIAL_RESERVE, 2 * INITIAL_RESERVE, 4 * INITIAL_RESERVE]


def test_big_frame_survives_a_view_kept_by_the_driver() -> None:
    big = BigFrame(200_000, memoryview(b""))
    view = big.writable()
    kept = view[:10]  # a derived view the driver forgot to drop
    first = len(view)
    view[:] = b"a" * first
    big.written(first)
    while not big.complete:
        view2 = big.writable()
        view2[:] = b"b" * len(view2)
        big.written(len(view2))
    assert big.take() == b"a" * first + b"b" * (200_000 - first)
    kept.release()


def test_two_big_frames_buffered_before_parsing() -> None:
    dec = framing_decoder()
    one, two = b"1" * 50_000, b"2" * 60_000
    wire = data_frame(one) + message_bytes([b"mid"]) + data_frame(two)
    for i in range(0, len(wire), 1000):  # never parse in between
        piece = wire[i : i + 1000]
        pos = 0
        while pos < len(piece):
            view = dec.get_buffer()
            n = min(len(view), len(piece) - pos)
            view[:n] = piece[pos : pos + n]
            dec.buffer_updated(n)
            pos += n
    assert len(dec._markers) == 2
    assert decode_all(dec) == [[one], [b"mid"], [two]]


def test_big_frame_bodies_count_as_buffered() -> None:
    dec = framing_decoder()
    put(dec, b"\x02" + struct.pack(">Q", 100_000) + b"x" * 10)
    dec.get_buffer()
    assert dec.buffered == 9 + 10


def test_one_whole_big_frame_puts_no_pressure() -> None:
    """Back-pressure's gauge leaves out the largest big frame that has all
    arrived (one message waiting for its reader), not one still arriving,
    and not a second one: two whole frames stop reading again."""
    dec = framing_decoder()
    one, two = b"1" * 300_000, b"2" * 200_000
    wire = data_frame(one)
    put(dec, wire[:1000])
    dec.get_buffer()  # the scan finds the big frame's header
    assert dec.receiving_big and dec.pressure == dec.buffered == 1000
    put(dec, wire[1000:])
    assert not dec.receiving_big
    assert dec.buffered == len(wire)
    assert dec.pressure == len(wire) - len(one)  # the header stays in the ring
    put(dec, message_bytes([b"mid"]) + data_frame(two))
    assert dec.pressure == dec.buffered - len(one) > len(two)
    out: list[list[bytes]] = []
    dec.decode(out, 1)
    assert out == [[one]]
    assert dec.pressure == dec.buffered - len(two)
    assert decode_all(dec) == [[b"mid"], [two]]
    assert dec.pressure == dec.buffered == 0


def test_a_whole_body_received_directly_puts_no_pressure() -> None:
    """The same for a body the driver received as bytes of its own."""
    dec = framing_decoder()
    put(dec, data_frame(b"z" * 70_000))  # the next header read is 9 bytes
    assert decode_all(dec) == [[b"z" * 70_000]]
    body = b"d" * 500_000
    view = dec.get_buffer()
    assert len(view) == 9
    view[:] = data_frame(body)[:9]
    dec.buffer_updated(9)
    assert dec.direct_body(len(body)) == len(body)
    dec.body_received(body)
    assert dec.buffered == 9 + len(body) and dec.pressure == 9
    assert decode_all(dec) == [[body]]


def test_oversized_big_frame_is_not_given_storage() -> None:
    dec = framing_decoder(max_msg_size=10_000)
    put(dec, b"\x02" + struct.pack(">Q", 50_000) + b"x" * 100)
    dec.get_buffer()
    assert dec._big is None and not dec._markers
    with pytest.raises(ProtocolError, match="max_msg_size"):
        dec.decode([], 10)


def test_big_frame_with_reserved_flags_is_not_given_storage() -> None:
    dec = framing_decoder()
    put(dec, b"\x12" + struct.pack(">Q", 50_000) + b"x" * 100)
    dec.get_buffer()
    assert dec._big is None
    with pytest.raises(ProtocolError, match="reserved"):
        dec.decode([], 10)


def test_big_frame_when_the_driver_pins_a_view() -> None:
    """A buffer export the driver keeps (here a PickleBuffer) blocks both
    release() and in-place growth: the storage moves and take() copies."""
    import pickle

    size = 3 << 20
    big = BigFrame(size, memoryview(b""))
    view = big.writable()
    pinned = pickle.PickleBuffer(view)  # holds an export of `view` itself
    view[:] = b"p" * len(view)
    big.written(len(view))  # release() raises BufferError inside: tolerated
    while not big.complete:
        more = big.writable()  # growth cannot resize the pinned BytesIO
        more[:] = b"q" * len(more)
        big.written(len(more))
    value = big.take()
    assert len(value) == size
    assert value[:INITIAL_RESERVE] == b"p" * INITIAL_RESERVE and value[-1:] == b"q"
    pinned.release()


def test_decoder_ignores_zero_byte_updates() -> None:
    dec = framing_decoder()
    dec.get_buffer()
    dec.buffer_updated(0)
    assert not dec.has_pending and dec.buffered == 0


def test_long_header_cache_only_below_big_frame() -> None:
    from purezmq._zmtp import frames

    assert frames.long_last_header(256) == b"\x02" + struct.pack(">Q", 256)
    assert frames.long_last_header(8191) is frames.long_last_header(8191)
    assert frames.long_last_header(BIG_FRAME) == b"\x02" + struct.pack(">Q", BIG_FRAME)
    assert BIG_FRAME not in frames._LONG_LAST
