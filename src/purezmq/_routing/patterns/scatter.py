"""SCATTER and GATHER: PUSH and PULL with single-part messages (RFC 49,
libzmq src/scatter.cpp, src/gather.cpp). Thread-safe."""

from __future__ import annotations

from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._draft import recv_single, single, single_msg, unwrap
from .base import Pattern


class Scatter(Pattern):
    """``lb`` out, single-part; never receives."""

    socket_type = "SCATTER"
    thread_safe = True

    def __init__(self) -> None:
        self._lb = LoadBalancer()

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._lb.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._lb.terminated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._lb.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        single(self.socket_type, more)
        return self._lb.send_msg([unwrap(frame)[0]])

    def send_msg(self, frames: Msg) -> bool:
        return self.send(single_msg(self.socket_type, frames), False)

    def has_out(self) -> bool:
        return self._lb.has_out()


class Gather(Pattern):
    """``fq`` in, single-part; never sends."""

    socket_type = "GATHER"
    thread_safe = True

    def __init__(self) -> None:
        self._fq = FairQueue()

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._fq.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def recv(self) -> Msg | None:
        return recv_single(self._fq)

    def has_in(self) -> bool:
        return self._fq.has_in()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe
