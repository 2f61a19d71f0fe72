"""CHANNEL: PAIR with single-part messages (RFC 51, libzmq src/channel.cpp).

One peer only (later pipes are closed at once); sending with no peer or a
full peer is EAGAIN; thread-safe.
"""

from __future__ import annotations

from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._draft import recv_single, single, single_msg, unwrap
from .base import Pattern


class Channel(Pattern):
    """One pipe, single-part."""

    socket_type = "CHANNEL"
    thread_safe = True

    def __init__(self) -> None:
        self._pipe: Pipe | None = None
        self._fq = FairQueue()

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._pipe is not None:
            pipe.close()  # one peer only
            return
        self._pipe = pipe
        self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        if pipe is self._pipe:
            self._pipe = None
        self._fq.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        single(self.socket_type, more)
        pipe = self._pipe
        return pipe is not None and pipe.write([unwrap(frame)[0]])

    def send_msg(self, frames: Msg) -> bool:
        return self.send(single_msg(self.socket_type, frames), False)

    def recv(self) -> Msg | None:
        return recv_single(self._fq)

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        pipe = self._pipe
        return pipe is not None and pipe.check_write()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe
