"""DEALER: round-robin out, fair-queue in (RFC 28, libzmq src/dealer.cpp).

RFC 28: "SHALL route outgoing messages to available peers using a
round-robin strategy", "SHALL receive incoming messages from its peers using
a fair-queuing strategy", and block (EAGAIN) when no peer can take a message.

Option ``probe_router`` (int, as bool): on every new pipe send an empty
message first, so a ROUTER peer learns our routing id before we say anything
(libzmq ZMQ_PROBE_ROUTER, tests/test_probe_router.cpp).
"""

from __future__ import annotations

from typing import Any

from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._options import flag, invalid, write_only
from .base import Pattern


def probe(pipe: Pipe) -> None:
    """Send the PROBE_ROUTER empty message (dropped if the pipe cannot take it,
    as libzmq ignores that write's result)."""
    pipe.write([b""])


class Dealer(Pattern):
    """``lb`` + ``fq``."""

    socket_type = "DEALER"
    options = frozenset({"probe_router"})

    def __init__(self) -> None:
        self._lb = LoadBalancer()
        self._fq = FairQueue()
        self._probe_router = False
        self.direct_lb = self._lb
        self.direct_fq = self._fq

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._probe_router:
            probe(pipe)
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
        return self._lb.send(frame, more)

    def send_msg(self, frames: Msg) -> bool:
        lb = self._lb
        if lb.more:
            return super().send_msg(frames)
        return lb.send_msg(frames)

    def recv(self) -> Msg | None:
        return self._fq.recv()

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        return self._lb.has_out()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe

    def set_option(self, name: str, value: Any) -> None:
        if name != "probe_router":
            invalid(self, name)
        self._probe_router = flag(name, value)

    def get_option(self, name: str) -> Any:
        write_only(self, name)
