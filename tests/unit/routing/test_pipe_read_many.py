"""`Pipe.read_many`: the batch read a session uses to encode, checked against
repeated `Pipe.read` (its definition), with the end of the pipe, the byte
budget, the low-water mark and the reader's sleep flag."""

from __future__ import annotations

from collections import deque

from hypothesis import given
from hypothesis import strategies as st

from purezmq._routing.pipe import Msg, Pipe, pipepair

from .helpers import Recorder


def _pair(hwm: int = 0) -> tuple[Pipe, Pipe, Recorder, Recorder]:
    writer_owner, reader_owner = Recorder(), Recorder()
    w, r = pipepair(writer_owner, reader_owner)
    w.set_hwms(hwm, hwm)
    r.set_hwms(hwm, hwm)
    return w, r, writer_owner, reader_owner


def _drain_many(r: Pipe, limit: int, budget: int) -> list[list[Msg]]:
    batches = []
    while True:
        got, size = r.read_many(limit, budget)
        if not got:
            return batches
        assert size == sum(len(m[0]) for m in got)
        batches.append(got)


@given(
    sizes=st.lists(st.integers(0, 300), max_size=80),
    limit=st.integers(1, 40),
    budget=st.integers(1, 2000),
    close=st.booleans(),
)
def test_same_messages_in_the_same_order_as_read(
    sizes: list[int], limit: int, budget: int, close: bool
) -> None:
    w, r, _, _ = _pair()
    msgs = [
        [bytes([i % 251]) * n, b"tail"] if i % 3 == 0 else [b"x" * n] for i, n in enumerate(sizes)
    ]
    for m in msgs:
        assert w.write(m)
    if close:
        w.close()
    batches = _drain_many(r, limit, budget)
    assert [m for b in batches for m in b] == msgs
    for b in batches:
        assert 1 <= len(b) <= limit
        # Over the budget only when one message alone is over it.
        assert len(b) == 1 or sum(len(m[0]) for m in b) <= budget
    assert r.read() is None
    assert r.in_closed is close  # the DELIMITER was left for read() to see


def test_the_last_empty_read_puts_the_reader_to_sleep() -> None:
    """A writer wakes the reader only when it sleeps: the call that finds the
    queue empty must lower the flag, or a later message would wait forever."""
    w, r, _, reader_owner = _pair()
    for i in range(5):
        w.write([b"%d" % i])
    got, _ = r.read_many(10, 1 << 20)
    assert len(got) == 5
    assert r.read_many(10, 1 << 20) == ([], 0)
    before = reader_owner.count("read", r)
    w.write([b"late"])
    assert reader_owner.count("read", r) == before + 1  # woken
    assert r.read_many(10, 1 << 20) == ([[b"late"]], 4)


def test_draining_to_the_low_water_mark_wakes_a_blocked_writer() -> None:
    w, r, writer_owner, _ = _pair(hwm=10)
    written = 0
    while w.write([b"m"]):
        written += 1
    assert written == 10 and not w.check_write()
    got, _ = r.read_many(10, 1 << 20)
    assert len(got) == 10
    assert writer_owner.count("write", w) == 1
    assert w.check_write()


def test_large_messages_are_not_taken_out_and_handed_back() -> None:
    """With messages larger than the budget, each call takes one - without
    popping the whole queue first and pushing all but one back (that was a
    cost per call proportional to the queue, measured on 1 MiB throughput)."""
    w, r, _, _ = _pair()
    big = [b"x" * 4096]
    for _ in range(50):
        w.write(big)
    pops = 0

    class CountingDeque(deque[Msg]):
        def popleft(self) -> Msg:
            nonlocal pops
            pops += 1
            return super().popleft()

    r._in = CountingDeque(r._in)  # the writer is done: only the reader's view matters
    r._pop = r._in.popleft  # read() pops through its bound popleft
    got, size = r.read_many(1024, 1000)
    assert got == [big] and size == 4096
    assert pops == 1
