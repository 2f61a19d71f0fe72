"""PAIR: exactly one peer, both directions (RFC 31, libzmq src/pair.cpp).

RFC 31: a PAIR socket "SHALL NOT accept more than one connection"; libzmq
terminates any pipe that arrives while it has one. Sending with no peer, or
with the peer's queue full, blocks (EAGAIN). If the peer goes away in the
middle of a multipart message, the rest of that message is dropped.

Inbound messages go through a ``FairQueue`` of (at most) one live pipe: it
already implements "a pipe terminated with queued messages is still read
until empty", so what the old peer sent is delivered even after a new peer
replaced it.
"""

from __future__ import annotations

from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe

from .base import Pattern


class Pair(Pattern):
    """One pipe out, ``fq`` in."""

    socket_type = "PAIR"

    def __init__(self) -> None:
        self._pipe: Pipe | None = None
        self._fq = FairQueue()
        self._more = False
        self._out: Pipe | None = None

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._pipe is not None:
            pipe.close()  # refused: one peer only
            return
        self._pipe = pipe
        self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        if pipe is self._pipe:
            self._pipe = None
        if pipe is self._out:
            self._out = None  # drop the rest of the message in progress
        self._fq.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        if self._more:
            out = self._out
            if out is not None:
                out.write_frame(frame, more)
            if not more:
                self._more = False
                self._out = None
            return True
        pipe = self._pipe
        if pipe is None:
            return False
        if not more:
            return pipe.write([frame])
        if not pipe.check_write():
            return False
        pipe.write_frame(frame, True)
        self._more = True
        self._out = pipe
        return True

    def send_msg(self, frames: Msg) -> bool:
        if self._more:
            return super().send_msg(frames)
        pipe = self._pipe
        return pipe is not None and pipe.write(frames)

    def recv(self) -> Msg | None:
        return self._fq.recv()

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        if self._more:
            return True
        pipe = self._pipe
        return pipe is not None and pipe.check_write()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe
