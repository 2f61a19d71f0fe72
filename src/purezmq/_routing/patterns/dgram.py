"""DGRAM: raw udp datagrams (libzmq src/dgram.cpp, draft).

Every message is two frames: the peer's address (``"a.b.c.d:port"``) and
the body. Sending the first frame without MORE, or the second with it, is
EINVAL; a message goes to the socket's one pipe (its udp endpoint; later
pipes are closed, as PAIR does). Received messages come with the sender's
address first. Unlike the other draft types DGRAM is not thread-safe, and it
takes udp:// endpoints only in practice (see `purezmq._transport.udp`).
"""

from __future__ import annotations

from purezmq._routing.errors import InvalidError
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe

from .base import Pattern


class Dgram(Pattern):
    """One pipe; two-frame messages."""

    socket_type = "DGRAM"

    def __init__(self) -> None:
        self._pipe: Pipe | None = None
        self._fq = FairQueue()
        #: The address frame of the message being sent (None: none begun).
        self._address: Frame | None = None

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._pipe is not None:
            pipe.close()
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
        address = self._address
        if address is None:
            if not more:
                raise InvalidError("DGRAM messages are two frames: the address (SNDMORE), the body")
            pipe = self._pipe
            if pipe is None or not pipe.check_write():
                return False
            self._address = frame
            return True
        if more:
            raise InvalidError("DGRAM messages are two frames: the body goes without SNDMORE")
        self._address = None
        pipe = self._pipe
        if pipe is not None:
            pipe.force_write([address, frame])  # check_write() passed on the first frame
        return True

    def send_msg(self, frames: Msg) -> bool:
        if self._address is not None or len(frames) != 2:
            return super().send_msg(frames)
        pipe = self._pipe
        return pipe is not None and pipe.write(frames)

    def recv(self) -> Msg | None:
        return self._fq.recv()

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        pipe = self._pipe
        return self._address is not None or (pipe is not None and pipe.check_write())

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe
