"""PUSH: load-balances whole messages over its peers (RFC 30, libzmq src/push.cpp).

RFC 30: "SHALL route outgoing messages to connected peers using a
round-robin strategy" and "SHALL NOT discard messages that it cannot queue":
a send finds no pipe with room -> EAGAIN (the socket blocks). PUSH never
receives; what a peer sends it is ignored (libzmq never reads those pipes).
"""

from __future__ import annotations

from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Frame, Msg, Pipe

from .base import Pattern


class Push(Pattern):
    """``lb`` only."""

    socket_type = "PUSH"

    def __init__(self) -> None:
        self._lb = LoadBalancer()
        self.direct_lb = self._lb

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._lb.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._lb.terminated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._lb.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        return self._lb.send(frame, more)

    def send_msg(self, frames: Msg) -> bool:
        lb = self._lb
        if lb.more:  # finishing a message begun frame by frame
            return super().send_msg(frames)
        return lb.send_msg(frames)

    def has_out(self) -> bool:
        return self._lb.has_out()
