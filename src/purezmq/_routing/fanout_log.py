"""Encode once for fan-out: one shared output log for a publisher's connections.

Why. A PUB with K subscribers over tcp used to append every message to K
pipes, and each of the K sessions read it back, encoded it and wrote it on
its own: per message, K pipe writes, K wake-ups of a sleeping reader, K
encodes and, when the writer was not far ahead, K system calls. Profiled
(compiled, 10 subscribers) that was about 12,000 instructions per
subscriber per message, nearly all of it bookkeeping around the bytes.

What this does instead. The publisher appends a message once, to a
`SharedLog` (a deque append, no lock). A subscriber's session takes what
the log holds for it in *chunks*: whoever takes first seals what is
pending into a chunk of up to `CHUNK_ENTRIES` messages, and the chunk is
shared by every reader, so the session layer encodes it once (the
encoded bytes are cached on the chunk: `Chunk.encoded`) and each
connection writes the same bytes with one ``sendmsg`` per chunk. Each
reader has a cursor (the next chunk it takes); a chunk is freed once every
reader it was sealed for took it.

What stays as libzmq has it:

- Subscription filtering happens before the log, in the socket (XPUB's
  trie). A message for some readers only is appended with their set and
  the others skip it when they take its chunk (such a chunk is filtered per
  reader and encoded per connection, as before).
- The high-water mark counts, per reader, the messages addressed to it
  that its session has not taken yet (`LogReader.owed`). A reader at its
  HWM is *deactivated* - it gets nothing more, and the distributor counts
  its drops, until it has taken everything sealed for it; then it asks to
  be reactivated (the pipe's ``write_activated``), as libzmq's pipe does at
  its low-water mark after a drop. Checking K counters per message would
  cost what the log saves, so the log computes when the first reader could
  reach its HWM (`_check_at`) and looks only then.

Threads. `join`, `leave`, `append*`, `deactivate` and `reactivate` run on
the socket's thread; `take` on whichever thread writes a connection (its
I/O thread, or the socket's own thread writing directly). Appends are
lock-free; everything that moves chunks holds the lock the socket layer
gives the log (this layer has no threads of its own: `Mutex`). A reader
that finds nothing registers as a sleeper and is woken (its session's
``read_activated``) by the next append.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from types import TracebackType
from typing import Final, Protocol

from .pipe import Msg, Pipe

#: Messages per chunk: a session takes whole chunks, so this also bounds the
#: batch one ``sendmsg`` carries (outflow's OUT_BATCH).
CHUNK_ENTRIES: Final = 1024
#: "Never": no reader has a high-water mark.
_NEVER: Final = 1 << 62


class Mutex(Protocol):
    """A lock (``threading.Lock``), given by the layer that knows threads."""

    def __enter__(self) -> object: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
        /,
    ) -> object: ...


class Targeted:
    """A pending message for some readers only (a topic that not all match)."""

    __slots__ = ("msg", "readers")

    def __init__(self, msg: Msg, readers: frozenset[LogReader]) -> None:
        self.msg = msg
        self.readers = readers


class Chunk:
    """Messages sealed together, shared by the readers active at sealing.

    `only` is None when every message is for every one of them (the case
    whose encoding can be shared); otherwise it holds, per message, the set
    of readers it is for (None: all). `encoded` is the session layer's
    cache of the encoded bytes (the log does not know the wire format).
    """

    __slots__ = ("encoded", "left", "msgs", "only")

    def __init__(
        self, msgs: list[Msg], only: list[frozenset[LogReader] | None] | None, left: int
    ) -> None:
        self.msgs = msgs
        self.only = only
        self.left = left  # readers that have not taken it yet
        self.encoded: object | None = None

    def has_any_for(self, reader: LogReader) -> bool:
        """Is at least one message of this chunk addressed to `reader`?"""
        only = self.only
        if only is None:
            return True
        return any(o is None or reader in o for o in only)

    def messages_for(self, reader: LogReader) -> list[Msg]:
        """The messages of this chunk addressed to `reader`."""
        only = self.only
        if only is None:
            return self.msgs
        msgs = self.msgs
        return [msgs[i] for i, o in enumerate(only) if o is None or reader in o]


class LogReader:
    """One connection's cursor in a `SharedLog` (set as `Pipe.shared` on the
    socket's endpoint of that connection's pipe)."""

    __slots__ = (
        "active",
        "asked_back",
        "asleep",
        "base_all",
        "gone",
        "log",
        "n_sub",
        "n_taken",
        "next",
        "pipe",
        "retired",
        "stop",
    )

    def __init__(self, log: SharedLog, pipe: Pipe, first: int) -> None:
        self.log = log
        self.pipe = pipe  # the socket's endpoint
        self.next = first  # sequence number of the next chunk to take
        #: While inactive: the first chunk sealed without us (we take up to it).
        self.stop = -1
        self.active = True
        self.asked_back = False  # inactive and drained: asked to come back
        self.asleep = False
        self.retired = False  # the socket let its pipe go: no new messages
        self.gone = False  # its session ended too: nothing held for it
        # Messages addressed to us = (log.n_all - base_all) + n_sub.
        self.base_all = log.n_all
        self.n_sub = 0
        self.n_taken = 0

    def owed(self) -> int:
        """Messages addressed to us that our session has not taken (our queue)."""
        if not self.active:
            return 0 if self.gone else max(self.log.pending_for(self), 0)
        return self.log.n_all - self.base_all + self.n_sub - self.n_taken

    def take(self, max_chunks: int) -> list[Chunk]:
        return self.log.take(self, max_chunks)

    def idle(self) -> bool:
        """Nothing to take, and the next append wakes us (the writer may stop)."""
        return self.gone or (self.asleep and not self.log.backlog(self))


class SharedLog:
    """Append once, read by many: the fan-out queue of a PUB/XPUB/RADIO (see module)."""

    __slots__ = (
        "_check_at",
        "_chunks",
        "_first",
        "_lock",
        "_pending",
        "_readers",
        "_sleepers",
        "active",
        "n_all",
    )

    def __init__(self, lock: Mutex) -> None:
        self._pending: deque[Msg | Targeted] = deque()
        self._chunks: deque[Chunk] = deque()
        self._first = 0  # sequence number of _chunks[0]
        self._lock = lock
        self._readers: list[LogReader] = []
        self._sleepers: set[LogReader] = set()
        #: Readers that receive messages now.
        self.active = 0
        #: Messages appended for every active reader (each reader's share of
        #: them starts at its `base_all`).
        self.n_all = 0
        self._check_at = _NEVER

    # ------------------------------------------------------------ readers
    def join(self, pipe: Pipe) -> LogReader:
        """`pipe` (a session's, on the socket's side) receives from now on."""
        with self._lock:
            self._seal_locked()
            reader = LogReader(self, pipe, self._first + len(self._chunks))
            self._readers.append(reader)
            self.active += 1
            # Its session has not looked yet: the first message must wake it.
            reader.asleep = True
            self._sleepers.add(reader)
        self._check_at = self.n_all  # look at the HWMs on the next append
        pipe.shared = reader
        return reader

    def retire(self, reader: LogReader) -> None:
        """The socket let the reader's pipe go (closed, terminated): it gets
        nothing more, but its session may still take what was queued for it
        (LINGER), as from a pipe. `release` frees the rest."""
        with self._lock:
            if reader.gone or reader.retired:
                return
            reader.retired = True
            reader.asked_back = True  # a retired reader never comes back
            if reader.active:
                self._seal_locked()  # what was appended so far is still its
                reader.active = False
                reader.stop = self._first + len(self._chunks)
                self.active -= 1
            self._sleepers.discard(reader)
            reader.asleep = False
            if reader in self._readers:
                self._readers.remove(reader)

    def release(self, reader: LogReader) -> None:
        """The reader's session ended: free what it had not taken."""
        with self._lock:
            if reader.gone:
                return
            reader.gone = True
            self._sleepers.discard(reader)
            end = self._end_of(reader)
            first = self._first
            for seq in range(max(reader.next, first), end):
                self._chunks[seq - first].left -= 1
            reader.next = end
            if reader.active:
                self.active -= 1
                reader.active = False  # it owes nothing any more (owed() is 0)
            if reader in self._readers:
                self._readers.remove(reader)
            self._trim_locked()

    def deactivate(self, reader: LogReader) -> None:
        """The reader reached its HWM: nothing more for it until it drained."""
        if not reader.active:
            return
        with self._lock:
            self._seal_locked()  # what was appended so far is still its
            reader.active = False
            reader.asked_back = False
            reader.stop = self._first + len(self._chunks)
            self.active -= 1
        # Its session must come for the rest (and then ask to come back)
        # even if nothing else wakes it.
        self._notify(reader)

    def reactivate(self, reader: LogReader) -> bool:
        """Receive again, from the next message on, if the reader took all that
        was sealed for it (libzmq's pipe comes back at its low-water mark after
        a drop; ours at zero, where its chunks are free). True if it did."""
        if reader.active or reader.gone or reader.retired:
            return reader.active
        with self._lock:
            if reader.next < reader.stop:
                return False  # its session has not caught up yet: it will ask again
            self._seal_locked()  # pending messages were appended without it
            reader.active = True
            reader.next = self._first + len(self._chunks)
            reader.stop = -1
            reader.base_all = self.n_all
            reader.n_sub = reader.n_taken = 0
            self.active += 1
            # Like a new reader: the next message must wake its session.
            reader.asleep = True
            self._sleepers.add(reader)
        self._check_at = self.n_all
        return True

    # ------------------------------------------------------------ writing
    def full(self) -> list[LogReader]:
        """The active readers at their HWM, if the next append could find one.

        O(1) per message while every reader is far from its HWM; otherwise a
        walk over the readers that also computes when to look next."""
        if self.n_all < self._check_at:
            return []
        full: list[LogReader] = []
        room = _NEVER
        n_all = self.n_all
        for reader in self._readers:
            if not reader.active:
                continue
            hwm = reader.pipe.out_hwm
            if not hwm:
                continue
            left = hwm - (n_all - reader.base_all + reader.n_sub - reader.n_taken)
            if left <= 0:
                full.append(reader)
            elif left < room:
                room = left
        self._check_at = n_all + room if room < _NEVER else _NEVER
        return full

    def has_room(self, reader: LogReader) -> bool:
        """Can `reader` take one more message (XPUB_NODROP asks first)?"""
        hwm = reader.pipe.out_hwm
        return reader.active and (not hwm or reader.owed() < hwm)

    def append(self, msg: Msg) -> None:
        """A message for every active reader (call `full` first)."""
        if not self.active:
            return
        self.n_all += 1
        self._pending.append(msg)
        if self._sleepers:
            self._wake()

    def append_to(self, msg: Msg, readers: Iterable[LogReader]) -> None:
        """A message for `readers` only (active ones with room: the caller checked)."""
        chosen = frozenset(readers)
        if not chosen:
            return
        for reader in chosen:
            reader.n_sub += 1
        self._pending.append(Targeted(msg, chosen))
        if self._sleepers:
            self._wake()

    def _wake(self) -> None:
        # Take them all out first: a woken session may take, find nothing
        # more and go back to sleep before we are done.
        sleepers = self._sleepers
        woken: list[LogReader] = []
        while sleepers:
            try:
                woken.append(sleepers.pop())
            except KeyError:  # emptied by another thread meanwhile
                break
        for reader in woken:
            self._notify(reader)

    @staticmethod
    def _notify(reader: LogReader) -> None:
        """Have the reader's session come and take (its ``read_activated``)."""
        reader.asleep = False
        session_end = reader.pipe.peer
        owner = session_end.owner
        if owner is not None:
            owner.read_activated(session_end)

    # ------------------------------------------------------------ reading
    def take(self, reader: LogReader, max_chunks: int) -> list[Chunk]:
        """Up to `max_chunks` chunks for `reader`, in order. A reader left with
        nothing sealed for it is asleep on return - also when it took the last
        chunks: its session's writer sees that (`idle`) and does not come back
        to find nothing (one take per write, not two, when publishing is sparse)."""
        with self._lock:
            got = self._take_locked(reader, max_chunks)
            if reader.active and not reader.gone and reader.next >= self._first + len(self._chunks):
                # Sleep, then look once more: an append that missed the flag
                # is in _pending now, and one that saw it will wake us.
                reader.asleep = True
                self._sleepers.add(reader)
                if self._pending:
                    self._sleepers.discard(reader)
                    reader.asleep = False
                    if not got:
                        got = self._take_locked(reader, max_chunks)
            elif got:
                reader.asleep = False
        if got:
            n = 0
            for chunk in got:
                n += len(chunk.messages_for(reader)) if chunk.only is not None else len(chunk.msgs)
            reader.n_taken += n
            reader.pipe.msgs_out += n
        if not reader.active and not reader.asked_back and reader.next >= reader.stop:
            reader.asked_back = True  # once: write_activated may not be duplicated cheaply
            reader.pipe.activate_writer()  # drained after a drop: may come back
        return got

    def _take_locked(self, reader: LogReader, max_chunks: int) -> list[Chunk]:
        if reader.gone:
            return []
        if self._pending:
            self._seal_locked()
        end = self._end_of(reader)
        got: list[Chunk] = []
        first = self._first
        chunks = self._chunks
        while reader.next < end and len(got) < max_chunks:
            chunk = chunks[reader.next - first]
            chunk.left -= 1
            reader.next += 1
            # A chunk with nothing for us is passed over here: taking it would
            # leave the session with nothing to write and nobody to wake it.
            if chunk.only is None or chunk.has_any_for(reader):
                got.append(chunk)
        self._trim_locked()
        return got

    def _end_of(self, reader: LogReader) -> int:
        """The chunk after the last one sealed for `reader`."""
        return reader.stop if not reader.active else self._first + len(self._chunks)

    def _seal_locked(self) -> None:
        """Move what is pending into chunks, for the readers active now."""
        pending = self._pending
        n = len(pending)  # appends after this count wait for the next seal
        while n > 0:
            count = min(n, CHUNK_ENTRIES)
            n -= count
            msgs: list[Msg] = []
            only: list[frozenset[LogReader] | None] | None = None
            for i in range(count):
                item = pending.popleft()
                if isinstance(item, Targeted):
                    if only is None:
                        only = [None] * i
                    only.append(item.readers)
                    msgs.append(item.msg)
                else:
                    if only is not None:
                        only.append(None)
                    msgs.append(item)
            if self.active:
                self._chunks.append(Chunk(msgs, only, self.active))

    def _trim_locked(self) -> None:
        chunks = self._chunks
        while chunks and chunks[0].left <= 0:
            chunks.popleft()
            self._first += 1

    # ------------------------------------------------------------ state
    def pending_for(self, reader: LogReader) -> int:
        """Messages sealed for an inactive `reader` and not taken (a snapshot)."""
        with self._lock:
            first = self._first
            n = 0
            for seq in range(max(reader.next, first), self._end_of(reader)):
                chunk = self._chunks[seq - first]
                n += len(chunk.messages_for(reader))
            return n

    def backlog(self, reader: LogReader) -> bool:
        """Is anything waiting for `reader` (sealed or pending)?"""
        if reader.gone:
            return False
        if reader.active and self._pending:
            return True
        return reader.next < self._end_of(reader)
