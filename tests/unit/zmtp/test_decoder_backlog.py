"""The decoder under a long unparsed backlog (issue 14, `purezmq._core.intake`).

An unbounded pipe leaves what its reader has not taken as bytes in the
ring: the header walk must report commands and malformed frames in it
(`FrameDecoder.urgent`), parsing it a batch at a time must give every
message in order, and the ring must not copy the backlog read after read.
"""

from __future__ import annotations

import struct

from purezmq._zmtp import BIG_FRAME
from purezmq._zmtp.decoder import SNAP_MAX, FrameDecoder
from purezmq._zmtp.frames import command_frame

from .helpers import message_bytes
from .test_frames import framing_decoder, put

PING = command_frame(b"\x04PING\x00\x00")


def _small(n: int, start: int = 0) -> bytes:
    return b"".join(message_bytes([b"s%07d" % i]) for i in range(start, start + n))


def _decode_batches(dec: FrameDecoder, batch: int) -> list[list[bytes]]:
    out: list[list[bytes]] = []
    while True:
        got: list[list[bytes]] = []
        while dec.decode(got, batch) is not None:
            pass
        if not got:
            return out
        out += got


def test_data_frames_are_not_urgent() -> None:
    dec = framing_decoder()
    put(dec, _small(5000))
    assert not dec.urgent()


def test_command_behind_backlog_is_urgent_until_parsed() -> None:
    dec = framing_decoder(buffer_size=1 << 20)
    put(dec, _small(5000) + PING + _small(10, 5000))
    assert dec.urgent()
    out: list[list[bytes]] = []
    assert dec.decode(out, 1 << 30) is not None  # the PING's body
    assert len(out) == 5000
    assert not dec.urgent()


def test_command_in_bytes_not_walked_yet_is_urgent() -> None:
    """The last read's headers are walked by `urgent` itself."""
    dec = framing_decoder()
    view = dec.get_buffer()
    view[: len(PING)] = PING
    dec.buffer_updated(len(PING))
    assert dec.urgent()


def test_malformed_frames_are_urgent() -> None:
    for bad in (b"\x80\x03abc", b"\x05\x00", b"\x02" + struct.pack(">Q", 1 << 63)):
        dec = framing_decoder()
        put(dec, _small(100) + bad)
        assert dec.urgent(), bad
    dec = framing_decoder(max_msg_size=100)
    put(dec, _small(100) + message_bytes([b"x" * 101]))
    assert dec.urgent()


def test_backlog_beyond_a_snapshot_decodes_in_order() -> None:
    """More than SNAP_MAX unparsed, with frames larger than BIG_FRAME in it
    (one larger than a snapshot), parsed in small batches while more
    arrives."""
    dec = framing_decoder(buffer_size=4 << 20)
    big = b"B" * (SNAP_MAX + 1000)
    mid = b"M" * (BIG_FRAME * 2)
    want: list[list[bytes]] = []
    wire = b""
    for i in range(4):
        wire += _small(20_000, i * 20_000) + message_bytes([mid]) + message_bytes([big])
        want += [[b"s%07d" % j] for j in range(i * 20_000, (i + 1) * 20_000)]
        want += [[mid], [big]]
    got: list[list[bytes]] = []
    step = len(wire) // 7 + 1
    for at in range(0, len(wire), step):
        put(dec, wire[at : at + step])
        got += _decode_batches(dec, 256)
    assert got == want
    assert not dec.has_pending


def test_ring_grows_instead_of_compacting_a_backlog_again_and_again() -> None:
    """A backlog parsed slowly while reads go on: the bytes compactions move
    stay within a small multiple of the bytes received (a compaction that
    freed less than it moved was repeated read after read, moving the whole
    backlog each time)."""
    dec = framing_decoder(buffer_size=64 << 10)
    received = moved = 0
    for i in range(1500):
        data = _small(100, i * 100)
        at = 0
        while at < len(data):
            pos, end = dec._pos, dec._end
            view = dec.get_buffer()
            if dec._pos < pos:  # compacted: the live bytes moved
                moved += end - pos
            n = min(len(view), len(data) - at)
            view[:n] = data[at : at + n]
            dec.buffer_updated(n)
            at += n
        received += len(data)
        got: list[list[bytes]] = []
        dec.decode(got, 10)  # the reader takes far less than arrives
    assert moved <= 2 * received
