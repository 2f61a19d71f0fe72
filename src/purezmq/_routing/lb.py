"""Load balancer: round-robin of whole outgoing messages over a set of pipes.

This is libzmq's ``lb_t`` (src/lb.cpp), used by PUSH, DEALER and REQ
(RFC 30 "SHALL route outgoing messages to available peers using a
round-robin strategy"; RFC 28 for DEALER/REQ).

Invariant: a message goes whole to exactly one pipe, and consecutive messages
go to consecutive *active* pipes. A pipe is active until a write finds it
unable to take a message (at its HWM, or closed); it then leaves the rotation
until ``activated`` (the pipe's ``write_activated``) puts it back. The
decision is made on the first frame of a message; the remaining frames follow
it to the same pipe. If that pipe is terminated between two frames, the rest
of the message is silently dropped (libzmq's ``_dropping`` mode), so a peer
never sees half a message.

The rotation is a list of active pipes and a cursor, as in libzmq, with one
difference: libzmq removes a deactivated pipe by swapping the last active pipe
into its place, which can serve that last pipe twice in a row while others
wait (e.g. [X, Q, Y, P]: P sent, X found full, P moved to X's slot and sent
again). Here removal keeps the order (a list ``pop``; it happens only on
deactivation, not per message), so the rotation is strictly fair: between two
messages to a pipe, every pipe that could take a message throughout got one
(the hypothesis property in tests/unit/routing/test_properties.py). A newly
active pipe joins at the end.
"""

from __future__ import annotations

from .pipe import Frame, Msg, Pipe


class LoadBalancer:
    """Round-robin of whole messages over the active pipes (libzmq ``lb_t``)."""

    __slots__ = ("_active", "_current", "_inactive", "_out", "_pipes", "last_pipe", "more")

    def __init__(self) -> None:
        self._pipes: set[Pipe] = set()
        self._active: list[Pipe] = []
        self._inactive: set[Pipe] = set()
        self._current = 0
        #: True between the first and the last frame of a message (read-only;
        #: an attribute, not a property: it is read on every send).
        self.more = False
        #: The pipe taking the message in progress (None while dropping its rest).
        self._out: Pipe | None = None
        #: The pipe the last message (or the message in progress) went to.
        self.last_pipe: Pipe | None = None

    # ------------------------------------------------------------- pipe set
    def attach(self, pipe: Pipe) -> None:
        """A new pipe joins the rotation (at its end)."""
        if pipe in self._pipes:
            return
        self._pipes.add(pipe)
        self._active.append(pipe)

    def activated(self, pipe: Pipe) -> None:
        """A pipe found full can take messages again. Duplicates are harmless."""
        inactive = self._inactive
        if pipe in inactive:
            inactive.discard(pipe)
            self._active.append(pipe)

    def terminated(self, pipe: Pipe) -> None:
        """Forget `pipe`. If it was taking a message, drop the rest of that message."""
        if pipe not in self._pipes:
            return
        self._pipes.discard(pipe)
        if pipe in self._inactive:
            self._inactive.discard(pipe)
        else:
            self._take_out(self._active.index(pipe))
        if pipe is self._out:
            self._out = None  # `more` stays set: the remaining frames are dropped
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
        self._inactive.add(self._take_out(index))

    def __contains__(self, pipe: Pipe) -> bool:
        return pipe in self._pipes

    def __len__(self) -> int:
        return len(self._pipes)

    # ------------------------------------------------------------- sending
    def send(self, frame: Frame, more: bool) -> bool:
        """Send one frame. False (EAGAIN) only on a first frame with no pipe able to
        take a message; the frame was then not consumed."""
        if self.more:
            out = self._out
            if out is not None:
                out.write_frame(frame, more)
            if not more:
                self.more = False
                self._out = None
            return True
        active = self._active
        if not more and len(active) == 1:  # fast path: one peer (-13% measured)
            pipe = active[0]
            if pipe.write([frame]):
                self.last_pipe = pipe
                return True
            self._deactivate(0)
            return False
        while active:
            cur = self._current
            pipe = active[cur]
            if pipe.check_write() if more else pipe.write([frame]):
                cur += 1
                self._current = 0 if cur >= len(active) else cur
                self.last_pipe = pipe
                if more:
                    pipe.write_frame(frame, True)
                    self._out = pipe
                    self.more = True
                return True
            self._deactivate(cur)
        return False

    def send_msg(self, msg: Msg) -> bool:
        """Send a whole message (the list becomes the pipe's item). False = EAGAIN.

        Must not be called between the frames of a message sent with `send`.
        """
        active = self._active
        if len(active) == 1:  # fast path: one peer
            pipe = active[0]
            if pipe.write(msg):
                self.last_pipe = pipe
                return True
            self._deactivate(0)
            return False
        while active:
            cur = self._current
            pipe = active[cur]
            if pipe.write(msg):
                cur += 1
                self._current = 0 if cur >= len(active) else cur
                self.last_pipe = pipe
                return True
            self._deactivate(cur)
        return False

    def has_out(self) -> bool:
        """Could a message's first frame be sent now? (libzmq ``lb_t::has_out``)"""
        if self.more:
            return True
        active = self._active
        while active:
            cur = self._current
            if active[cur].check_write():
                return True
            self._deactivate(cur)
        return False
