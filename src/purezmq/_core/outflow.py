"""Outflow: how messages the socket queued become bytes for the wire.

The sending thread appends whole messages to the pipe; whoever writes -
the sending thread itself when the connection is idle, or the driver under
a burst - takes them out in batches and encodes them in one go, so that one
`sendmsg` carries many messages (the seed's "batch only when messages
queue up"). The batch is bounded in messages and bytes, which also bounds
what a connection that breaks mid-write can lose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from purezmq._routing.pipe import DELIMITER

if TYPE_CHECKING:
    from purezmq._routing.pipe import Msg, Pipe

    from .connections import Connection

#: Messages, and bytes (first frames), taken from the pipe per encode batch.
OUT_BATCH: Final = 1024
OUT_BATCH_BYTES: Final = 256 * 1024
#: Queued messages at which the sending thread writes them itself (Pipe.drain).
DRAIN_AT: Final = 128


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


def has_queued_output(pipe: Pipe | None) -> bool:
    """Does the socket still have messages queued for this peer (before its
    closing DELIMITER)? Decides whether a closing session lingers."""
    return (
        pipe is not None
        and pipe.inbound_size > 0
        and not (pipe.inbound_size == 1 and pipe.peek_inbound() is DELIMITER)
    )


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
