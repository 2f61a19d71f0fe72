"""Fair queue: round-robin of whole incoming messages over a set of pipes.

This is libzmq's ``fq_t`` (src/fq.cpp), used by PULL, DEALER, ROUTER, REQ,
REP, SUB, XSUB and PAIR (RFC 30 "SHALL receive incoming messages from its
peers using a fair-queuing strategy"; RFC 28 for ROUTER/DEALER/REP).

Invariant: each turn takes one *whole* message from the next active pipe, so
one busy peer cannot starve the others and a multipart message is never
interleaved with another (pipes hold whole messages). As in `.lb`, a
deactivated pipe leaves the rotation without reordering the others (libzmq
swaps the last pipe into its slot), so between two messages from a pipe,
every pipe that held messages throughout gave one. A pipe whose ``read()``
comes back empty leaves the rotation until ``activated`` (the pipe's
``read_activated``). ``last_pipe`` names the pipe the last message came from
(ROUTER prepends its routing id, REQ/REP check it, metadata uses it).

Termination: when the socket layer reports a pipe terminated while messages
are still queued in it, those messages were already received and are still
delivered (``Pipe.close`` guarantees they precede the DELIMITER). The pipe
stays in the rotation until a read finds it empty, and is then forgotten.
``remove`` forgets a pipe at once, unread messages included (ROUTER handover,
as libzmq's ``terminate`` stops reading a pipe it closes itself).
"""

from __future__ import annotations

from .pipe import Msg, Pipe


class FairQueue:
    """Round-robin of whole messages over the active pipes (libzmq ``fq_t``)."""

    __slots__ = ("_active", "_current", "_dying", "_inactive", "_pipes", "last_pipe")

    def __init__(self) -> None:
        self._pipes: set[Pipe] = set()
        self._active: list[Pipe] = []
        self._inactive: set[Pipe] = set()
        #: Terminated pipes still holding messages: dropped when found empty.
        self._dying: set[Pipe] = set()
        self._current = 0
        #: The pipe the last message returned by `recv` came from.
        self.last_pipe: Pipe | None = None

    # ------------------------------------------------------------- pipe set
    def attach(self, pipe: Pipe) -> None:
        """A new pipe joins the rotation (at its end), active: it may hold messages."""
        if pipe in self._pipes:
            return
        self._pipes.add(pipe)
        self._active.append(pipe)

    def activated(self, pipe: Pipe) -> None:
        """`pipe` has messages again. Duplicates and unknown pipes are ignored."""
        inactive = self._inactive
        if pipe in inactive:
            inactive.discard(pipe)
            self._active.append(pipe)

    def terminated(self, pipe: Pipe) -> None:
        """The peer is gone: keep reading what it queued, then forget the pipe."""
        if pipe not in self._pipes or pipe in self._dying:
            return
        if pipe.in_closed:  # its DELIMITER was read: nothing is left
            self.remove(pipe)
            return
        self._dying.add(pipe)
        self.activated(pipe)

    def remove(self, pipe: Pipe) -> None:
        """Forget `pipe` now, dropping whatever it still holds."""
        if pipe not in self._pipes:
            return
        self._pipes.discard(pipe)
        self._dying.discard(pipe)
        if pipe in self._inactive:
            self._inactive.discard(pipe)
        else:
            self._take_out(self._active.index(pipe))
        if pipe is self.last_pipe:
            self.last_pipe = None

    def _take_out(self, index: int) -> Pipe:
        """Remove the active pipe at `index`, keeping the others' rotation order."""
        active = self._active
        pipe = active.pop(index)
        if index < self._current:
            self._current -= 1
        if self._current >= len(active):
            self._current = 0
        return pipe

    def _deactivate(self, index: int) -> None:
        pipe = self._take_out(index)
        if self._dying and pipe in self._dying:
            self._dying.discard(pipe)
            self._pipes.discard(pipe)
        else:
            self._inactive.add(pipe)

    def __contains__(self, pipe: Pipe) -> bool:
        return pipe in self._pipes

    def __len__(self) -> int:
        return len(self._pipes)

    # ------------------------------------------------------------- receiving
    def recv(self, look: bool = True) -> Msg | None:
        """The next whole message in fair order, or None (EAGAIN). Sets `last_pipe`.
        `look` as in `Pipe.read`."""
        active = self._active
        if len(active) == 1:  # fast path: one peer
            pipe = active[0]
            msg = pipe.read(look)
            if msg is not None:
                self.last_pipe = pipe
                return msg
            self._deactivate(0)
            return None
        while active:
            cur = self._current
            pipe = active[cur]
            msg = pipe.read(look)
            if msg is not None:
                cur += 1
                self._current = 0 if cur >= len(active) else cur
                self.last_pipe = pipe
                return msg
            self._deactivate(cur)
        return None

    def has_in(self) -> bool:
        """Is a message waiting? Skips (deactivates) empty pipes, like ``fq_t::has_in``:
        the cursor then points at the first pipe holding a message, so fairness holds."""
        active = self._active
        while active:
            cur = self._current
            if active[cur].check_read():
                return True
            self._deactivate(cur)
        return False
