"""Pipes: the bounded queues between a socket and each of its peers.

A connection between a socket and one peer is a *pipe pair*: two `Pipe`
endpoints that share two queues, one per direction. One endpoint belongs to
the socket; the other belongs to whatever sits at the far end - a session
(tcp, ipc) or, for inproc, the peer socket itself. This is libzmq's `pipe_t`.

Threads. The two endpoints are used by different threads (the application
thread that owns the socket, the I/O thread, another application thread for
inproc). Each queue has exactly one writer and one reader. They coordinate
through `collections.deque`, whose `append`/`popleft`/`len` are atomic, and
through two flags per queue. Nobody is woken per message: a reader is told
only when a queue it found empty receives something (``read_activated``),
and a writer only when a queue it found full drains to the low-water mark
(``write_activated``). Each side re-checks after lowering its flag, so a
wake-up is never lost; a wake-up may occasionally be duplicated, which the
owners tolerate (activation is idempotent).

Messages. An item is a whole message: a list of frames (bytes-like
objects). Multipart atomicity therefore comes for free: a reader never sees
half a message. The high-water mark counts messages, as in libzmq.

Termination. Closing one side appends the ``DELIMITER`` sentinel to its
outgoing queue and tells the other side's owner (``pipe_closed``). The other
side stops writing at once, but still reads every message sent before the
close (that is what makes LINGER and "deliver what was already received"
work) and finds the pipe finished when it reaches the DELIMITER.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias

if TYPE_CHECKING:
    from .fanout_log import LogReader

#: A frame is any bytes-like object (the application's payload); a message
#: is a list of frames.
Frame: TypeAlias = Any
Msg: TypeAlias = list[Any]


class _End(enum.Enum):
    """The type of the sentinel that ends a pipe's queue (libzmq's delimiter
    message). A one-member enum, so that ``item is DELIMITER`` tells a type
    checker (and mypyc) that ``item`` is a message otherwise."""

    DELIMITER = 0

    def __repr__(self) -> str:
        return "DELIMITER"


DELIMITER: Final = _End.DELIMITER

#: What a pipe's queue holds: whole messages, and at most one DELIMITER, last.
Item: TypeAlias = Msg | _End


#: "No limit" for the fast-path length check (beyond any real queue length).
_NO_LIMIT: Final = 1 << 62


class PipeOwner(Protocol):
    """What a pipe tells the object at its end. Called from the *peer's* thread.

    Implementations must be thread-safe: they usually enqueue a command for
    their own thread and wake it. Activation calls may be duplicated.
    """

    def read_activated(self, pipe: Pipe) -> None:
        """`pipe`'s inbound queue went from empty to non-empty while we slept on it."""

    def write_activated(self, pipe: Pipe) -> None:
        """`pipe`'s outbound queue drained to the low-water mark after we found it full."""

    def pipe_closed(self, pipe: Pipe) -> None:
        """The peer closed its side of `pipe`: no more writes will succeed, and a
        DELIMITER ends the inbound queue after the messages still to be read."""

    def hiccuped(self, pipe: Pipe) -> None:
        """The peer reconnected under the same pipe (SUB resends subscriptions)."""


def lwm_for(hwm: int) -> int:
    """Low-water mark for a high-water mark, as libzmq computes it."""
    return (hwm + 1) // 2 if hwm > 0 else 0


class Pipe:
    """One endpoint of a pipe pair: reads its inbound queue, writes its outbound one."""

    __slots__ = (
        "_in",
        "_in_active",
        "_limit",
        "_lwm",
        "_out",
        "_out_active",
        "_out_hwm",
        "_owner",
        "_pending",
        "_pop",
        "_push",
        "_push_many",
        "_writable",
        "all_groups",
        "conflate",
        "discarded",
        "drain",
        "drain_at",
        "drops",
        "in_closed",
        "label",
        "metadata",
        "msgs_out",
        "out_closed",
        "peer",
        "peer_identity",
        "refill",
        "routing_id",
        "shared",
        "shares_messages",
    )

    def __init__(
        self, owner: PipeOwner | None, inbound: deque[Item], outbound: deque[Item]
    ) -> None:
        self._owner = owner
        self._in = inbound
        # `_in.popleft`, bound once: compiled, ``q.popleft()`` on a deque is a
        # method lookup by name per message (a third of `read`'s own cost).
        self._pop: Callable[[], Item] = inbound.popleft
        self._out = outbound
        # Bound once, as `_pop`: the writer's calls per message, per batch.
        self._push: Callable[[Item], None] = outbound.append
        self._push_many: Callable[[list[Msg]], None] = outbound.extend
        # Lowered by the reader when it finds `_in` empty; the peer's writer raises
        # it again (and notifies us) when it appends. A new pipe starts lowered:
        # its reader has not looked yet, so the first message must wake it.
        self._in_active = False
        # Lowered by us when `_out` is full; the peer's reader raises it at the LWM.
        self._out_active = True
        self._out_hwm = 0
        self._lwm = 0  # low-water mark of *our inbound* queue (peer's out HWM)
        # write()'s fast path holds while the queue is shorter than `_limit`
        # (the HWM or the drain threshold, whichever comes first) and
        # `_writable` (neither side closed): two checks per message.
        self._limit = _NO_LIMIT
        self._writable = True
        self._pending: Msg | None = None
        self.peer: Pipe = self  # replaced by pipepair()
        #: Keep only the newest message (CONFLATE): set on the *reading* endpoint.
        self.conflate = False
        #: We read the DELIMITER: the peer has closed its side.
        self.in_closed = False
        #: We appended our DELIMITER: no more writes.
        self.out_closed = False
        #: Called by `read` when the inbound queue is empty, before giving up: lets
        #: a session parse bytes it already holds (lazy decoding on the reader's
        #: thread). Must append to our inbound queue only. The argument says
        #: whether it may also read the OS connection (see Session.refill).
        self.refill: Callable[[bool], None] | None = None
        #: Called on the *writer's* thread to ask the reader to empty our outbound
        #: queue now: when the queue reaches `drain_at` messages, and once more
        #: before a write is refused at the HWM. A session sets it so that a
        #: burst is written in batches by the sending thread itself instead of
        #: waiting for an I/O thread that the GIL may hold off for milliseconds.
        self.drain: Callable[[], None] | None = None
        self.drain_at = 0  # set both with set_drain()
        #: Connection properties for Frame.get(): Socket-Type, Identity, Peer-Address...
        self.metadata: dict[str, str] = {}
        #: The Identity the peer announced in its handshake (b"" if none or not yet known).
        self.peer_identity: bytes = b""
        #: The routing id a ROUTER knows this peer by. Preset by the socket for
        #: CONNECT_ROUTING_ID; otherwise assigned by the ROUTER itself.
        self.routing_id: bytes = b""
        #: The peer reads messages without keeping or changing them (a session
        #: encodes them for the wire): a distributor may give this pipe the
        #: same list as other such pipes.
        self.shares_messages = False
        #: Set on the socket's endpoint when its messages go through a fan-out
        #: socket's shared log instead of this pipe (`fanout_log`): the
        #: session takes them from there, and this pipe carries only the end.
        self.shared: LogReader | None = None
        #: The peer takes every RADIO group and never sends JOIN (a udp
        #: connect), or every XPUB topic and never subscribes (pgm/epgm):
        #: libzmq's ``subscribe_to_all``. Set before attaching.
        self.all_groups = False
        #: Where the peer is, as the socket's endpoints name it ("tcp://...",
        #: "inproc://name"): for statistics and for people reading reprs.
        self.label = ""
        #: Statistics (Socket.get_stats). Only writes are counted - one integer
        #: add per message on the sending side, none on the receiving side:
        #: what an endpoint read is what its peer wrote less what is still
        #: queued (`msgs_read`). `drops`: messages a pattern dropped because
        #: this pipe was full (PUB, ROUTER: where libzmq drops); `discarded`:
        #: inbound messages never read (CONFLATE replaced them, or we ended
        #: the pipe with them queued).
        self.msgs_out = 0
        self.drops = 0
        self.discarded = 0

    def __repr__(self) -> str:
        return f"<Pipe in={len(self._in)} out={len(self._out)} rid={self.routing_id!r}>"

    # ----------------------------------------------------------------- owner
    @property
    def owner(self) -> PipeOwner | None:
        return self._owner

    def set_owner(self, owner: PipeOwner | None) -> None:
        """Hand this endpoint to another object (e.g. a session that takes over)."""
        self._owner = owner

    # ----------------------------------------------------------------- hwm
    def set_hwms(self, out_hwm: int, in_hwm: int) -> None:
        """Set the outbound HWM we enforce and the inbound HWM the peer enforces.

        0 means unbounded. The inbound value is only used for our low-water
        mark: when we drain to it we wake a peer that found the queue full.
        """
        self._out_hwm = out_hwm
        self._lwm = lwm_for(in_hwm)
        self.peer._lwm = lwm_for(out_hwm)
        self.peer._out_hwm = in_hwm
        self._update_limit()
        self.peer._update_limit()

    def set_drain(self, drain: Callable[[], None] | None, at: int) -> None:
        """Ask `drain()` to empty our outbound queue whenever it holds a multiple
        of `at` messages (see the `drain` attribute)."""
        self.drain = drain
        self.drain_at = at if drain is not None else 0
        self._update_limit()

    def _update_limit(self) -> None:
        """The smaller of the two bounds that are set (plain compares: the list
        and `min` of before cost about 2,600 instructions a call compiled,
        three calls per connection)."""
        hwm = self._out_hwm
        at = self.drain_at
        if hwm <= 0:
            self._limit = at if at > 0 else _NO_LIMIT
        else:
            self._limit = hwm if at <= 0 or hwm < at else at

    @property
    def out_hwm(self) -> int:
        return self._out_hwm

    # ----------------------------------------------------------------- writing
    def check_write(self) -> bool:
        """Could a new message be written now? Marks us as waiting if not."""
        if self.out_closed or self.peer.out_closed:
            return False
        hwm = self._out_hwm
        if hwm and len(self._out) >= hwm:
            drain = self.drain
            if drain is not None:
                drain()
                if len(self._out) < hwm:
                    return True
            self._out_active = False
            # Re-check: the reader may have drained between the test and the flag.
            if len(self._out) >= hwm:
                return False
            self._out_active = True
        return True

    def write(self, msg: Msg) -> bool:
        """Append a whole message unless the queue is at its HWM. Returns success."""
        out = self._out
        if len(out) >= self._limit or not self._writable:
            return self._write_slow(msg)
        self.msgs_out += 1  # before the append: a reader never sees more than counted
        self._push(msg)
        peer = self.peer
        if not peer._in_active:
            peer._in_active = True
            owner = peer._owner
            if owner is not None:
                owner.read_activated(peer)
        return True

    def _write_slow(self, msg: Msg) -> bool:
        """write() near a limit: drain first, then the HWM decides."""
        if not self._writable:
            return False
        out = self._out
        at = self.drain_at
        drain = self.drain
        if at and drain is not None and len(out) % at == 0 and len(out):
            drain()
        hwm = self._out_hwm
        if hwm and len(out) >= hwm and not self.check_write():
            return False
        self.msgs_out += 1  # before the append: a reader never sees more than counted
        self._push(msg)
        peer = self.peer
        if not peer._in_active:
            peer._in_active = True
            owner = peer._owner
            if owner is not None:
                owner.read_activated(peer)
        return True

    def force_write(self, msg: Msg) -> None:
        """Append regardless of the HWM (subscriptions, commands that must not drop)."""
        if self.out_closed:
            return
        out = self._out
        self.msgs_out += 1  # before the append: a reader never sees more than counted
        self._push(msg)
        peer = self.peer
        if not peer._in_active:
            peer._in_active = True
            owner = peer._owner
            if owner is not None:
                owner.read_activated(peer)
        elif (at := self.drain_at) and len(out) % at == 0 and (drain := self.drain) is not None:
            drain()  # each read once: a finished session clears them (outflow.unhook)

    def extend_outbound(self, msgs: list[Msg]) -> None:
        """Append many messages at once, without waking the reader.

        For the lazy-parsing path only: the *reader's* thread calls this from
        its own `refill` hook, so the reader is awake by definition, and the
        caller already limited `msgs` to the room below the HWM.
        """
        self.msgs_out += len(msgs)
        self._push_many(msgs)

    def write_frame(self, frame: Frame, more: bool) -> None:
        """Add one frame of a message whose first frame passed `check_write`.

        Frames collect in a pending list and the message becomes visible to
        the reader, whole, with its last frame (libzmq's "flush").
        """
        pending = self._pending
        if pending is None:
            pending = self._pending = []
        pending.append(frame)
        if not more:
            self._pending = None
            self.force_write(pending)

    def rollback(self) -> None:
        """Forget a partly written message (the socket dropped it)."""
        self._pending = None

    @property
    def writing_message(self) -> bool:
        """True between the first and the last frame of a message."""
        return self._pending is not None

    # ----------------------------------------------------------------- reading
    def read(self, look: bool = True) -> Msg | None:
        """Pop the next message, or None if there is none (we then sleep on it).

        `look=False`: only what the session already took in, without asking
        the OS (REQ discarding stale replies - libzmq looks at its pipes only)."""
        q = self._in
        if not q:
            refill = self.refill
            if refill is not None:
                refill(look)
            if not q:
                self._in_active = False
                # Refill again *after* lowering the flag: bytes a session took in
                # meanwhile are either parsed now or the session sees us asleep
                # and wakes us. (A deque re-check alone would miss unparsed bytes.)
                # Only bytes already taken in: the first call looked at the OS.
                if refill is not None:
                    refill(False)
                if not q:
                    return None
                self._in_active = True
        if self.conflate:
            while len(q) > 1 and q[1] is not DELIMITER:
                q.popleft()
                self.discarded += 1
        msg = self._pop()
        if msg is DELIMITER:
            self.in_closed = True
            self._in_active = True
            return None
        peer = self.peer
        if not peer._out_active and len(q) <= self._lwm:
            peer._out_active = True
            owner = peer._owner
            if owner is not None:
                owner.write_activated(peer)
        return msg

    def read_many(self, limit: int, max_bytes: int) -> tuple[list[Msg], int]:
        """Up to `limit` whole messages in one call, and the size of their
        first frames: what repeated calls of `read` would return, for a
        session encoding a batch (the calls were the largest part of encoding
        small messages). At least one message when there is one; more only
        while their first frames fit in `max_bytes`.

        Takes the plain path - `read` itself - whenever it has anything to
        decide: a queue of one or none (the reader may go to sleep),
        CONFLATE, a refill hook, or the end-of-pipe DELIMITER among the
        messages. The caller reads until it gets nothing, so the last call
        always goes through `read`."""
        q = self._in
        n = min(len(q), limit)
        if n > 1 and not self.conflate and self.refill is None:
            head = q[0]
            if head is not DELIMITER:
                # As many as fit if the others are the size of the first:
                # large messages go one by one, as `read` would give them,
                # instead of being taken out and handed back.
                first = len(head[0])
                if first:
                    n = min(n, max_bytes // first + 1)
        if n <= 1 or self.conflate or self.refill is not None:
            msg = self.read()
            return ([], 0) if msg is None else ([msg], len(msg[0]))
        # One pass, each item tested by identity and sized as it comes
        # (compiled, `DELIMITER in items` was a rich comparison per message).
        pop = self._pop
        out: list[Msg] = []
        size = 0
        for _ in range(n):
            item = pop()
            if item is DELIMITER:
                q.appendleft(item)  # read() handles the end of the pipe
                break
            first = len(item[0])
            if size + first > max_bytes and out:
                q.appendleft(item)  # over the budget: give it back, in order
                break
            size += first
            out.append(item)
        peer = self.peer
        if not peer._out_active and len(q) <= self._lwm:
            peer._out_active = True
            owner = peer._owner
            if owner is not None:
                owner.write_activated(peer)
        return out, size

    def check_read(self) -> bool:
        """Is a message waiting (without consuming it)? Marks us as waiting if not."""
        q = self._in
        if not q:
            refill = self.refill
            if refill is not None:
                refill(True)
            if not q:
                self._in_active = False
                if refill is not None:
                    refill(False)  # see read()
                if not q:
                    return False
                self._in_active = True
        if q[0] is DELIMITER:
            q.popleft()
            self.in_closed = True
            return False
        return True

    def peek_inbound(self) -> Item | None:
        """The next inbound item without removing it (None if empty)."""
        q = self._in
        return q[0] if q else None

    @property
    def reader_asleep(self) -> bool:
        """The peer found its inbound queue (our outbound) empty and waits on it."""
        return not self.peer._in_active

    def claim_reader(self) -> bool:
        """Raise the peer's active flag if it was down; True if it was.

        For a reader that fills its own queue (the direct read path): it must
        tell its pattern the pipe has input again, but needs no wake-up."""
        peer = self.peer
        if peer._in_active:
            return False
        peer._in_active = True
        return True

    def notify_reader(self) -> None:
        """Wake the peer if it sleeps on this pipe, though we wrote nothing yet.

        A session calls this when bytes arrived that the reader's `refill`
        will parse: the reader must come and look.
        """
        peer = self.peer
        if not peer._in_active:
            peer._in_active = True
            owner = peer._owner
            if owner is not None:
                owner.read_activated(peer)

    def abandon(self) -> None:
        """We end this pipe ourselves (disconnect, close): nothing more is read.

        Unlike a peer's close, what is queued or still on its way in is not
        delivered (libzmq's fq forgets such a pipe at once). The inbound queue
        is swapped for a fresh one: the peer may still append to the old one
        for a moment, and nobody reads it any more."""
        self.drain_inbound()
        fresh: deque[Item] = deque()
        self._in = fresh
        self._pop = fresh.popleft
        self.in_closed = True

    def drain_inbound(self) -> int:
        """Drop every queued inbound message (pipe teardown). Returns how many."""
        n = 0
        q = self._in
        while q:
            if q.popleft() is not DELIMITER:
                n += 1
            else:
                self.in_closed = True
        self.discarded += n
        return n

    # ----------------------------------------------------------------- state
    @property
    def msgs_read(self) -> int:
        """Messages read from this endpoint: what the peer wrote, less what is
        still queued and what was discarded unread (a snapshot: exact once
        the peer stops writing, never more than was written)."""
        return self.peer.msgs_out - self.queued_in - self.discarded

    @property
    def queued_in(self) -> int:
        """Messages waiting in the inbound queue (the end-of-pipe mark aside)."""
        q = self._in
        n = len(q)
        if n and q[-1] is DELIMITER:
            n -= 1
        return n

    @property
    def inbound_size(self) -> int:
        return len(self._in)

    @property
    def outbound_size(self) -> int:
        """Messages queued toward the peer (in a shared log too)."""
        shared = self.shared
        if shared is not None:
            return len(self._out) + shared.owed()
        return len(self._out)

    @property
    def msgs_sent(self) -> int:
        """Messages written to this endpoint, including those still queued in
        a shared log (whose reader adds to `msgs_out` as it takes them)."""
        shared = self.shared
        if shared is not None:
            return self.msgs_out + shared.owed()
        return self.msgs_out

    def activate_writer(self) -> None:
        """Tell our owner it may write again (what the peer's `read` does at
        the low-water mark): a shared-log reader that drained after a drop."""
        self._out_active = True
        owner = self._owner
        if owner is not None:
            owner.write_activated(self)

    def close(self) -> None:
        """Stop writing: the peer reads what we sent, then sees the pipe end."""
        shared = self.peer.shared
        if shared is not None:  # a session ends: what a fan-out log held for it goes
            shared.log.release(shared)
        if not self.out_closed:
            self._pending = None
            self.out_closed = True
            self._writable = self.peer._writable = False
            self._out.append(DELIMITER)
            peer = self.peer
            peer._in_active = True
            owner = peer._owner
            if owner is not None:
                owner.pipe_closed(peer)

    @property
    def peer_closed(self) -> bool:
        """The peer closed its side (its DELIMITER is queued or already read)."""
        return self.peer.out_closed

    def hiccup(self) -> None:
        """Tell the peer's owner we reconnected (see `PipeOwner.hiccuped`)."""
        owner = self.peer._owner
        if owner is not None:
            owner.hiccuped(self.peer)

    @property
    def finished(self) -> bool:
        """Both directions are over: we closed ours and read the peer's DELIMITER."""
        return self.out_closed and self.in_closed


def pipepair(owner_a: PipeOwner | None, owner_b: PipeOwner | None) -> tuple[Pipe, Pipe]:
    """Create two connected endpoints; `a`'s outbound queue is `b`'s inbound one."""
    a_to_b: deque[Item] = deque()
    b_to_a: deque[Item] = deque()
    a = Pipe(owner_a, inbound=b_to_a, outbound=a_to_b)
    b = Pipe(owner_b, inbound=a_to_b, outbound=b_to_a)
    a.peer = b
    b.peer = a
    return a, b
