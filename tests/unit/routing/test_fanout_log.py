"""The shared output log of a fan-out socket (PUB/XPUB/RADIO), with its distributor.

Session pipes (`shares_messages`) read through one `SharedLog`: a message is
appended once and every reader's session takes the same chunk. These tests
drive the log the way a session does (`LogReader.take`) and check what the
distributor promises with or without it: whole messages to the chosen
readers only, in order, HWM drops counted per pipe, recovery after a drop.
"""

from __future__ import annotations

import threading

from purezmq._routing.dist import Distributor
from purezmq._routing.fanout_log import CHUNK_ENTRIES, LogReader
from purezmq._routing.patterns import Addressed
from purezmq._routing.patterns.radio import Radio
from purezmq._routing.pipe import Msg, Pipe, pipepair

from .helpers import Recorder


class Writer(Recorder):
    """The socket side: forwards write_activated to the distributor, as the
    socket layer does through its mailbox."""

    def __init__(self) -> None:
        super().__init__()
        self.dist: Distributor | None = None

    def write_activated(self, pipe: Pipe) -> None:
        super().write_activated(pipe)
        assert self.dist is not None
        self.dist.activated(pipe)


def make(
    n: int, sndhwm: int = 0, sessions: bool = True
) -> tuple[Distributor, list[Pipe], list[Recorder]]:
    d = Distributor()
    d.share_output(threading.Lock())
    writer = Writer()
    writer.dist = d
    mine, recorders = [], []
    for _ in range(n):
        rec = Recorder()
        a, b = pipepair(writer, rec)
        a.set_hwms(sndhwm, 0)
        b.set_hwms(0, sndhwm)
        a.shares_messages = sessions
        d.attach(a)
        mine.append(a)
        recorders.append(rec)
    return d, mine, recorders


def reader(pipe: Pipe) -> LogReader:
    assert pipe.shared is not None
    return pipe.shared


def take_all(pipe: Pipe) -> list[Msg]:
    """What the pipe's session would send: every message the log holds for it."""
    r = reader(pipe)
    out: list[Msg] = []
    while chunks := r.take(1):
        for chunk in chunks:
            out += chunk.messages_for(r)
    return out


def test_one_append_is_one_chunk_shared_by_every_reader() -> None:
    d, mine, _ = make(3)
    for i in range(5):
        d.send_to_all(b"m%d" % i, False)
    chunks = [reader(p).take(10) for p in mine]
    assert [len(c) for c in chunks] == [1, 1, 1]
    assert chunks[0][0] is chunks[1][0] is chunks[2][0]
    assert chunks[0][0].only is None  # every message for every reader: encodable once
    assert chunks[0][0].msgs == [[b"m%d" % i] for i in range(5)]
    # Every reader took it: the log holds nothing more.
    assert reader(mine[0]).log._chunks == type(reader(mine[0]).log._chunks)()
    assert [p.msgs_sent for p in mine] == [5, 5, 5]


def test_a_subset_is_filtered_per_reader_and_in_order() -> None:
    d, mine, _ = make(3)
    d.send_to_all(b"all-1", False)
    d.send_to([mine[0], mine[2]], b"some", False)
    d.send_msg_to([mine[1]], [b"one", b"two"])
    d.send_to_all(b"all-2", False)
    assert take_all(mine[0]) == [[b"all-1"], [b"some"], [b"all-2"]]
    assert take_all(mine[1]) == [[b"all-1"], [b"one", b"two"], [b"all-2"]]
    assert take_all(mine[2]) == [[b"all-1"], [b"some"], [b"all-2"]]


def test_multipart_frames_go_whole_through_the_log() -> None:
    d, mine, _ = make(2)
    d.send_to([mine[1]], b"a", True)
    d.send_to([], b"b", True)
    d.send_to([], b"c", False)
    assert take_all(mine[0]) == []
    assert take_all(mine[1]) == [[b"a", b"b", b"c"]]


def test_a_reader_that_joins_later_gets_only_later_messages() -> None:
    d, mine, _ = make(1)
    d.send_to_all(b"early", False)
    late, _ = make_one_more(d)
    d.send_to_all(b"late", False)
    assert take_all(mine[0]) == [[b"early"], [b"late"]]
    assert take_all(late) == [[b"late"]]


def make_one_more(d: Distributor) -> tuple[Pipe, Recorder]:
    rec = Recorder()
    a, _ = pipepair(Writer(), rec)
    a.shares_messages = True
    d.attach(a)
    return a, rec


def test_sleeping_reader_is_woken_once_by_the_next_append() -> None:
    d, mine, recs = make(2)
    # New readers start asleep: the first message must reach their sessions.
    d.send_to_all(b"first", False)
    assert [rec.count("read") for rec in recs] == [1, 1]
    d.send_to_all(b"second", False)  # nobody took anything: no new wake-ups
    assert [rec.count("read") for rec in recs] == [1, 1]
    assert take_all(mine[0]) == [[b"first"], [b"second"]]  # and now sleeps
    d.send_to_all(b"third", False)
    assert [rec.count("read") for rec in recs] == [2, 1]


def test_the_take_that_empties_the_log_leaves_the_reader_asleep() -> None:
    """Sparse publishing: a session that took the last message is told so by
    the same take (its reader is idle), so its writer does not take again
    only to find nothing - and the next append still wakes it."""
    d, mine, recs = make(2)
    d.send_to_all(b"one", False)
    r = reader(mine[0])
    (chunk,) = r.take(1)
    assert chunk.msgs == [[b"one"]]
    assert r.asleep and r.idle()
    before = recs[0].count("read")
    d.send_to_all(b"two", False)
    assert recs[0].count("read") == before + 1
    assert not r.idle()
    assert take_all(mine[0]) == [[b"two"]]


def test_a_take_that_leaves_chunks_behind_does_not_sleep() -> None:
    d, mine, _ = make(1)
    for i in range(CHUNK_ENTRIES + 1):  # two chunks
        d.send_to_all(b"%d" % i, False)
    r = reader(mine[0])
    assert len(r.take(1)) == 1
    assert not r.asleep and not r.idle()
    assert len(r.take(1)) == 1
    assert r.idle()


def test_a_reader_passed_over_by_a_chunk_sleeps_and_is_woken_again() -> None:
    d, mine, recs = make(2)
    d.send_to([mine[1]], b"not for 0", False)
    # Reader 0's session was woken, takes, and finds nothing for it: it must
    # be asleep again (a session that wrote nothing is not called back).
    assert reader(mine[0]).take(1) == []
    assert reader(mine[0]).asleep
    before = recs[0].count("read")
    d.send_to([mine[0]], b"for 0", False)
    assert recs[0].count("read") == before + 1
    assert take_all(mine[0]) == [[b"for 0"]]


def test_hwm_drops_per_reader_and_recovery_after_draining() -> None:
    d, mine, _ = make(2, sndhwm=3)
    for i in range(10):
        d.send_to_all(b"%d" % i, False)
    # Both readers took nothing: each got its HWM's worth, the rest dropped.
    assert [p.drops for p in mine] == [7, 7]
    assert [p.outbound_size for p in mine] == [3, 3]
    assert take_all(mine[0]) == [[b"0"], [b"1"], [b"2"]]
    # Reader 0 drained: its session asked to come back (write_activated).
    assert reader(mine[0]).active and not reader(mine[1]).active
    d.send_to_all(b"after", False)
    assert take_all(mine[0]) == [[b"after"]]
    assert mine[1].drops == 8
    assert take_all(mine[1]) == [[b"0"], [b"1"], [b"2"]]
    d.send_to_all(b"again", False)
    assert take_all(mine[1]) == [[b"again"]]
    # Every message either reached a reader or was dropped for it.
    assert [p.msgs_sent + p.drops for p in mine] == [12, 12]


def test_nodrop_check_sees_a_full_reader() -> None:
    d, mine, _ = make(2, sndhwm=2)
    d.send_to_all(b"a", False)
    assert d.check_hwm(mine)
    d.send_to_all(b"b", False)
    assert not d.check_hwm(mine)
    take_all(mine[0])
    take_all(mine[1])
    assert d.check_hwm(mine)


def test_a_departing_reader_keeps_what_it_owes_until_its_session_ends() -> None:
    d, mine, _ = make(2)
    for i in range(3 * CHUNK_ENTRIES):
        d.send_to_all(b"%d" % i, False)
    log = reader(mine[0]).log
    assert len(take_all(mine[0])) == 3 * CHUNK_ENTRIES
    assert len(log._chunks) == 3  # still held for reader 1
    assert mine[1].outbound_size == 3 * CHUNK_ENTRIES
    # The socket lets the pipe go (close, LINGER): nothing new for it...
    d.terminated(mine[1])
    d.send_to_all(b"after", False)
    assert take_all(mine[0]) == [[b"after"]]
    # ...but its session still takes what was queued before.
    r1 = reader(mine[1])
    assert len(r1.take(1)[0].msgs) == CHUNK_ENTRIES
    assert mine[1].outbound_size == 2 * CHUNK_ENTRIES
    # The session ends (its end of the pipe closes): the rest is freed.
    mine[1].peer.close()
    assert len(log._chunks) == 0
    assert r1.take(1) == []
    assert mine[1].outbound_size == 0  # nothing is queued for a pipe that is gone


def test_inproc_peers_are_written_directly_beside_the_log() -> None:
    d, mine, _ = make(1)
    inproc, theirs = pipepair(Writer(), Recorder())
    d.attach(inproc)  # not a session's pipe: no log reader
    assert inproc.shared is None
    d.send_to_all(b"x", False)
    got = theirs.read()
    assert got == [b"x"]
    logged = take_all(mine[0])
    assert logged == [[b"x"]]
    assert got is not logged[0]  # an inproc reader may keep or change its list


def test_radio_queues_a_group_once_for_the_readers_that_joined() -> None:
    """RADIO reads through the log too: a group every reader joined is one
    chunk shared by all (encoded once); a group some joined is filtered per
    reader; a pipe that joined a group twice gets one copy, and keeps it
    until it left twice (libzmq's multimap, and its dist marks a pipe once)."""
    radio = Radio()
    radio.with_output_lock(threading.Lock())
    writer = Writer()
    writer.dist = radio._dist
    pipes, peers = [], []
    for joins in ([b"all", b"news"], [b"all", b"news", b"news"], [b"all"]):
        a, b = pipepair(writer, Recorder())
        a.shares_messages = True
        for group in joins:
            b.write([b"\x04JOIN" + group])
        radio.attach_pipe(a, False)
        pipes.append(a)
        peers.append(b)
    assert radio.send(Addressed(b"1", group=b"all"), False)
    taken = [reader(a).take(1) for a in pipes]
    assert all(len(t) == 1 and t[0] is taken[0][0] for t in taken)
    assert taken[0][0].only is None and taken[0][0].msgs == [[b"all", b"1"]]
    assert radio.send(Addressed(b"2", group=b"news"), False)
    assert [take_all(a) for a in pipes] == [[[b"news", b"2"]], [[b"news", b"2"]], []]
    peers[1].write([b"\x05LEAVEnews"])
    radio.read_activated(pipes[1])
    assert radio.send(Addressed(b"3", group=b"news"), False)
    assert [take_all(a) for a in pipes] == [[[b"news", b"3"]], [[b"news", b"3"]], []]
