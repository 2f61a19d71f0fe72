"""Outflow: how messages the socket queued become bytes for the wire.

The sending thread appends whole messages to the pipe; whoever writes -
the sending thread itself when the connection is idle, or the driver under
a burst - takes them out in batches and encodes them in one go, so that one
`sendmsg` carries many messages (the seed's "batch only when messages
queue up"). The batch is bounded in messages and bytes, which also bounds
what a connection that breaks mid-write can lose. A PUB/XPUB/RADIO's sessions
take their messages from the socket's shared log instead (`take_shared`),
in chunks encoded once for all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from purezmq._routing.pipe import DELIMITER
from purezmq._zmtp.connection import ZMTPConnection
from purezmq._zmtp.frames import FrameEncoder

if TYPE_CHECKING:
    from purezmq._routing.fanout_log import Chunk, LogReader
    from purezmq._routing.pipe import Msg, Pipe

    from .connections import Connection

#: Messages, and bytes (first frames), taken from the pipe per encode batch.
OUT_BATCH: Final = 1024
OUT_BATCH_BYTES: Final = 256 * 1024
#: Queued messages at which the sending thread writes them itself (Pipe.drain).
DRAIN_AT: Final = 128
#: Chunks of a fan-out log taken per collect (each up to 1024 messages).
LOG_CHUNKS: Final = 1

ChunkBytes = list[bytes | bytearray | memoryview]


def encode_batch(pipe: Pipe, conn: Connection) -> None:
    """Move up to one batch of queued messages from `pipe` into `conn`'s output.
    Call with the session lock held."""
    msgs: list[Msg] = []
    budget = OUT_BATCH_BYTES
    while len(msgs) < OUT_BATCH and budget > 0:
        got, size = pipe.read_many(OUT_BATCH - len(msgs), budget)
        if not got:
            break
        msgs += got
        budget -= size
    if msgs:
        conn.send_messages(msgs)
    reader = pipe.peer.shared
    if reader is not None:
        take_shared(reader.take(LOG_CHUNKS), reader, conn)


def take_shared(chunks: list[Chunk], reader: LogReader, conn: Connection) -> None:
    """Queue chunks of a fan-out socket's shared log on `conn`.

    A chunk whose messages are all for this reader is encoded once, by the
    first connection that takes it, and its bytes are written by every
    connection that frames messages the same way (`plain_framing`); a chunk
    filtered per reader, or a connection that encrypts or frames otherwise,
    encodes its own messages as before."""
    plain = isinstance(conn, ZMTPConnection) and conn.plain_framing
    for chunk in chunks:
        if plain and chunk.only is None:
            encoded = chunk.encoded
            if encoded is None:  # two threads may both encode it: same bytes
                encoder = FrameEncoder()
                encoder.add_messages(chunk.msgs)
                encoded = chunk.encoded = encoder.take()
            cast(ZMTPConnection, conn).send_encoded(cast(ChunkBytes, encoded))
        else:
            msgs = chunk.messages_for(reader)
            if msgs:
                conn.send_messages(msgs)


def has_queued_output(pipe: Pipe | None) -> bool:
    """Does the socket still have messages queued for this peer (before its
    closing DELIMITER, or in a fan-out log)? Decides whether a closing
    session lingers."""
    if pipe is None:
        return False
    reader = pipe.peer.shared
    if reader is not None and reader.log.backlog(reader):
        return True
    return pipe.inbound_size > 0 and not (
        pipe.inbound_size == 1 and pipe.peek_inbound() is DELIMITER
    )


def nothing_to_take(pipe: Pipe) -> bool:
    """After a collect: is the session's pipe empty, with its reader asleep
    (a message the socket queues next wakes the session), and no fan-out
    log holding anything for it?"""
    if not pipe.peer.reader_asleep or pipe.inbound_size:
        return False
    reader = pipe.peer.shared
    return reader is None or reader.idle()


class Linger:
    """LINGER for one session: how long the messages a closing socket still
    queues may be delivered. libzmq takes the value at close, not at connect,
    so the socket sets `seconds` again just before it closes its pipe."""

    __slots__ = ("closing", "deadline", "seconds")

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds  # None: forever
        self.closing = False  # the socket closed its side: flush, then end
        self.deadline: float | None = None

    def start(self, now: float) -> None:
        """The socket closed its side: the clock starts."""
        self.closing = True
        seconds = self.seconds
        self.deadline = None if seconds is None else now + seconds

    def expired(self, now: float) -> bool:
        """Closing and out of time (never with LINGER -1)."""
        deadline = self.deadline
        return self.closing and deadline is not None and now >= deadline

    @property
    def pending(self) -> float | None:
        """The deadline a timer must cover, if closing."""
        return self.deadline if self.closing else None


def unhook(pipe: Pipe) -> None:
    """The session that owns `pipe` (its end of the pair) has ended: take its
    hooks off both ends - our end's owner, the socket end's `refill` and
    `drain` - so that nothing in the pair leads back to the session. With
    them, every finished connection kept its session and socket in a
    reference cycle that only the garbage collector freed (issue 14); now
    reference counting frees them, and the collector only finds the pair
    itself (two pipes that name each other as peers)."""
    pipe.set_owner(None)
    theirs = pipe.peer
    theirs.refill = None
    theirs.set_drain(None, 0)
