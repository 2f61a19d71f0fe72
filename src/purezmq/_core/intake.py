"""Intake: how received bytes become messages in a session's pipe.

The I/O thread moves bytes; the thread that wants messages parses them.
A session's receive buffer is filled by the driver, and the socket-side
pipe's `refill` hook parses buffered bytes into the pipe on the reader's
own thread, when its queue runs dry (see docs/design.md: under the GIL, two
threads that both run Python per message are slower than one).

Two rules keep that safe when the reader is away:
- read-ahead: bytes nobody parsed within READAHEAD_DELAY are parsed by the
  driver itself, so PINGs are answered, errors end the connection and data
  moves into the pipe while the application is busy (`ReadAhead`);
- back-pressure: a connection holding READAHEAD_LIMIT unparsed bytes stops
  reading, and TCP pushes back on the peer, as libzmq's full pipe does. A
  frame larger than that is read whole, and once whole it does not count:
  it is one message waiting. The bytes after it count, and so does a
  second whole frame (`pressure_bytes`).

An unbounded pipe (RCVHWM 0, not CONFLATE) over ZMTP is different
(`keeps_backlog`): libzmq never stops reading it, and neither do we, but
its backlog stays bytes in the connection's buffer and read-ahead parses
at most a batch (IN_BATCH) ahead of the reader. Parsed, a backlog is one
list and one bytes object per message, which the garbage collector's full
collections walk again and again while it waits (issue 14: a fan-out
receiver lagging behind its publisher spent 15% of its time there); as
bytes it is one object. What read-ahead did for such a backlog is done by
looking at it instead: the I/O thread's walk over received frame headers
notes commands and malformed frames (`FrameDecoder.urgent`), and read-ahead
parses up to them at once - a PING is answered, an ERROR or a bad frame
ends the connection (the messages before it delivered) - as libzmq's
engine does when it reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from purezmq._zmtp import ProtocolError, ZMTPConnection

if TYPE_CHECKING:
    from purezmq._routing.pipe import Pipe

    from .connections import Connection
    from .protocols import EngineHandle

#: How long bytes may wait unparsed before the driver parses them itself.
READAHEAD_DELAY: Final = 0.005
#: Unparsed bytes a connection may hold before reading pauses.
READAHEAD_LIMIT: Final = 256 * 1024
#: Most messages parsed per refill (fewer when the HWM leaves less room).
#: Below the garbage collector's first threshold (700 allocations net by
#: default) with room to spare: each message is a list, and a batch that lives in the pipe
#: across a young collection is promoted, and the full collections that
#: promotions bring walk the whole heap. 1,024 a batch cost a fan-out
#: receiver 900 young and 8 full collections per million messages (15% of
#: its time); 256, none (issue 14).
IN_BATCH: Final = 256


def keeps_backlog(conn: Connection, pipe: Pipe | None) -> bool:
    """Does this connection keep its unparsed backlog as bytes, reading on
    (see the module docstring)? Not under CONFLATE, whose reader wants the
    latest message only: its backlog is parsed as it comes, as before."""
    return (
        pipe is not None
        and not pipe.out_hwm
        and not pipe.conflate
        and isinstance(conn, ZMTPConnection)
    )


def buffer_has_room(conn: Connection, pipe: Pipe | None) -> bool:
    """May the driver read more? (A frame larger than the limit is read whole;
    an unbounded pipe's connection always reads.)"""
    return (
        conn.receiving_big_frame
        or conn.pressure_bytes < READAHEAD_LIMIT
        or keeps_backlog(conn, pipe)
    )


def parse_batch(conn: Connection, pipe: Pipe) -> tuple[bool, ProtocolError | None]:
    """Parse as many messages as the pipe has room for into it (IN_BATCH at most).

    Returns whether there was room (and so a parse happened) and the
    protocol error that ends the connection, if one was met. `pull` returns
    the good messages before a bad frame and keeps the error for its next
    call: it is acted on now, not later. Call with the session lock held."""
    hwm = pipe.out_hwm
    room = min(hwm - pipe.outbound_size, IN_BATCH) if hwm else IN_BATCH
    if room <= 0:
        return False, None
    failure: ProtocolError | None
    try:
        msgs = conn.pull(room)
    except ProtocolError as e:
        msgs = []
        failure = e
    else:
        failure = conn.close_reason
    if msgs:
        pipe.extend_outbound(msgs)
        if pipe.reader_asleep:  # parsed on the I/O thread (read-ahead)
            pipe.notify_reader()
    return True, failure


def read_ahead(
    conn: Connection, pipe: Pipe, nobody_parsed: bool
) -> tuple[bool, ProtocolError | None]:
    """The read-ahead timer's parse, on the driver's thread: `parse_batch`
    if nobody parsed since the timer was armed; for a connection that keeps
    its backlog (`keeps_backlog`), a batch only while the reader has less
    than one queued, and everything up to the last command or malformed
    frame its header walk found. Same results as `parse_batch`. Call with
    the session lock held."""
    if not keeps_backlog(conn, pipe):
        return parse_batch(conn, pipe) if nobody_parsed else (False, None)
    assert isinstance(conn, ZMTPConnection)
    parsed = False
    if nobody_parsed and pipe.outbound_size < IN_BATCH:
        parsed, failure = parse_batch(conn, pipe)
        if failure is not None:
            return True, failure
    while conn.urgent_input():
        before = pipe.msgs_out
        was = conn.unparsed_bytes
        parsed, failure = parse_batch(conn, pipe)
        if failure is not None:
            return True, failure
        if pipe.msgs_out == before and conn.unparsed_bytes == was:
            break  # the frame is not all here yet
    return parsed, None


def ahead_enough(conn: Connection, pipe: Pipe) -> bool:
    """Has the reader a batch parsed already (or a full pipe)? Then the
    read-ahead timer need not come back: the reader parses on, and bytes
    that arrive arm it again."""
    hwm = pipe.out_hwm
    if hwm:
        return pipe.outbound_size >= hwm
    return keeps_backlog(conn, pipe) and pipe.outbound_size >= IN_BATCH


def salvage(conn: Connection, pipe: Pipe) -> None:
    """Deliver what the peer sent before it went away.

    With lazy parsing, complete messages may still sit unparsed in the
    connection's buffer when the stream ends. They were received, so they
    are delivered (libzmq would have them in the kernel buffer and read
    them before seeing the end of the stream). They go past the HWM: the
    bytes are already in memory (bounded by READAHEAD_LIMIT, or an
    unbounded pipe's backlog), and nothing more can arrive on this
    connection. Call with the session lock held."""
    while conn.has_pending_input:
        try:
            msgs = conn.pull(IN_BATCH)
        except ProtocolError:
            break
        if not msgs:
            break  # only a partial frame is left
        pipe.extend_outbound(msgs)


def bytes_arrived(
    pipe: Pipe | None, readahead: ReadAhead, engine: EngineHandle | None, now: float
) -> None:
    """A session's bytes wait: wake a sleeping reader, arm read-ahead."""
    if pipe is None:
        return
    if pipe.reader_asleep:
        pipe.notify_reader()
    if readahead.arm(now) and engine is not None:
        engine.schedule(readahead.deadline)


class ReadAhead:
    """The read-ahead timer of one session: armed when bytes arrive, it
    fires a parse on the driver's thread only if nobody parsed meanwhile."""

    __slots__ = ("_armed_at_gen", "_gen", "deadline")

    def __init__(self) -> None:
        self._gen = 0  # parses so far
        self._armed_at_gen = -1
        #: When the driver parses by itself; None = not armed.
        self.deadline: float | None = None

    def parsed(self) -> None:
        """Someone parsed (the reader, or the driver itself)."""
        self._gen += 1

    def arm(self, now: float) -> bool:
        """Bytes arrived: arm unless armed already. True if newly armed."""
        if self.deadline is not None:
            return False
        self._armed_at_gen = self._gen
        self.deadline = now + READAHEAD_DELAY
        return True

    def fire(self, now: float) -> bool:
        """The timer ran: True if it was due (it is disarmed then)."""
        deadline = self.deadline
        if deadline is None or now < deadline:
            return False
        self.deadline = None
        return True

    @property
    def nobody_parsed(self) -> bool:
        """No parse since the timer was armed: the reader is away."""
        return self._gen == self._armed_at_gen

    def rearm(self, now: float) -> None:
        """Bytes still wait after a parse: look again later."""
        self._armed_at_gen = self._gen
        self.deadline = now + READAHEAD_DELAY

    def rearm_unless_full(self, conn: Connection, pipe: Pipe | None, now: float) -> None:
        """Bytes still wait: look again later - unless the pipe is full (or
        holds a batch, `ahead_enough`), in which case the reader's next read
        parses them (no timer spins meanwhile)."""
        if not conn.has_pending_input or pipe is None or ahead_enough(conn, pipe):
            return
        self.rearm(now)

    def cancel(self) -> None:
        self.deadline = None
