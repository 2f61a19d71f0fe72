"""Back-pressure on unparsed bytes (`purezmq._core.intake.buffer_has_room`).

A connection whose unparsed bytes reach READAHEAD_LIMIT stops reading until
its reader parses. A large frame is read whole whatever the limit says, and
once whole it is one message waiting for the reader: it does not count. A
second one does (issue 14: over asyncio, pausing for every 1 MiB message of
a round trip took the descriptor out of the loop's selector and back).
"""

from __future__ import annotations

from purezmq._core.intake import READAHEAD_LIMIT, buffer_has_room
from purezmq._zmtp.raw import RawConnection

from .helpers import data_frame, feed, handshaken, message_bytes

BIG = b"b" * (2 * READAHEAD_LIMIT)


def test_one_whole_large_frame_leaves_reading_on() -> None:
    conn = handshaken()
    feed(conn, data_frame(BIG))
    assert conn.unparsed_bytes > READAHEAD_LIMIT
    assert not conn.receiving_big_frame
    assert buffer_has_room(conn, None)
    feed(conn, message_bytes([b"after"]))
    assert buffer_has_room(conn, None)


def test_a_second_whole_large_frame_stops_reading() -> None:
    conn = handshaken()
    feed(conn, data_frame(BIG) + data_frame(BIG))
    assert not buffer_has_room(conn, None)
    assert conn.pull(1) == [[BIG]]
    assert buffer_has_room(conn, None)  # the reader took one
    assert conn.pull(1) == [[BIG]]
    assert conn.unparsed_bytes == 0


def test_small_messages_up_to_the_limit_stop_reading() -> None:
    conn = handshaken()
    feed(conn, data_frame(BIG) + message_bytes([b"s" * 200]) * (READAHEAD_LIMIT // 200))
    assert conn.pressure_bytes >= READAHEAD_LIMIT
    assert not buffer_has_room(conn, None)


def test_a_raw_connection_counts_every_byte() -> None:
    conn = RawConnection()
    conn.receive_data(BIG, 0.0)
    assert conn.pressure_bytes == conn.unparsed_bytes == len(BIG)
    assert not buffer_has_room(conn, None)
