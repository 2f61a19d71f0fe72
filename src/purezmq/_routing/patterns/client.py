"""CLIENT: round-robin out, fair-queue in, one frame per message (RFC 41,
libzmq src/client.cpp).

A DEALER without multipart: RFC 41 "SHALL route outgoing messages to
available peers using a round-robin strategy" and "SHALL receive incoming
messages from its peers using a fair-queuing strategy". Thread-safe.
"""

from __future__ import annotations

from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._draft import recv_single, single, single_msg, unwrap
from .base import Pattern


class Client(Pattern):
    """``lb`` + ``fq``, single-part."""

    socket_type = "CLIENT"
    thread_safe = True

    def __init__(self) -> None:
        self._lb = LoadBalancer()
        self._fq = FairQueue()

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._fq.attach(pipe)
        self._lb.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._fq.terminated(pipe)
        self._lb.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._lb.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        single(self.socket_type, more)
        return self._lb.send_msg([unwrap(frame)[0]])

    def send_msg(self, frames: Msg) -> bool:
        return self.send(single_msg(self.socket_type, frames), False)

    def recv(self) -> Msg | None:
        return recv_single(self._fq)

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        return self._lb.has_out()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe
