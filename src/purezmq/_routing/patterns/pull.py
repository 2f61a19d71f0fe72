"""PULL: fair-queues whole messages from its peers (RFC 30, libzmq src/pull.cpp).

RFC 30: "SHALL receive incoming messages from its peers using a fair-queuing
strategy". PULL never sends (ENOTSUP).
"""

from __future__ import annotations

from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Msg, Pipe

from .base import Pattern


class Pull(Pattern):
    """``fq`` only."""

    socket_type = "PULL"

    def __init__(self) -> None:
        self._fq = FairQueue()
        self.direct_fq = self._fq

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._fq.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def recv(self) -> Msg | None:
        return self._fq.recv()

    def has_in(self) -> bool:
        return self._fq.has_in()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe
