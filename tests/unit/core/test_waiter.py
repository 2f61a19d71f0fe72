"""PollWaiter: the direct read path's wait keeps parked descriptors
registered between waits (a request/reply loop waits on the same
connection every time), and only there: a plain wait must not wake for a
connection that the I/O thread reads. Real descriptors (socketpairs),
fake engines that count their reads."""

from __future__ import annotations

import socket

from purezmq._io.waiter import PollWaiter


class _Engine:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reads = 0

    def read_direct(self) -> bool:
        self.reads += 1
        return bool(self.sock.recv(100))


def test_parked_descriptors_are_watched_by_reading_waits_only() -> None:
    waiter = PollWaiter()
    a, b = socket.socketpair()
    c, d = socket.socketpair()
    try:
        one, two = _Engine(a), _Engine(c)
        b.send(b"x")
        waiter.wait_reading(5.0, {a.fileno(): one})
        assert one.reads == 1
        b.send(b"y")  # still registered from the last wait: read again
        waiter.wait_reading(5.0, {a.fileno(): one})
        assert one.reads == 2

        # Another set of parked connections: the old one is no longer watched.
        b.send(b"z")
        d.send(b"w")
        waiter.wait_reading(5.0, {c.fileno(): two})
        assert (one.reads, two.reads) == (2, 1)

        # A plain wait watches only the signal: a connection parked before
        # is taken out of the poll set (its data is the I/O thread's).
        d.send(b"v")
        waiter.wait(0.0)
        assert waiter._watching == []
        assert two.reads == 1
        waiter.signal()
        waiter.wait(5.0)  # returns: the signal is watched
        waiter.drain()

        # A connection that ended is dropped from the caller's dict.
        d.close()
        parked = {c.fileno(): two}
        waiter.wait_reading(5.0, parked)  # "v" is read
        waiter.wait_reading(5.0, parked)  # end of stream
        assert parked == {}
    finally:
        for s in (a, b, c):
            s.close()
        waiter.close()
