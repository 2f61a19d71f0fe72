"""SERVER and PEER: peers addressed by a 32-bit routing id (RFC 41, RFC 51;
libzmq src/server.cpp, src/peer.cpp).

Every pipe gets the next id of a counter that starts at a random value and
skips 0 (libzmq ``server_t::xattach_pipe``). A received message carries the
id of the pipe it came from; a message sent goes to the pipe its routing id
names: none is EHOSTUNREACH, a full one EAGAIN (RFC 41 "SHALL return an
error" / "SHALL block"). POLLOUT is always set, since whether a send can go
depends on its routing id. Single-part, thread-safe.

PEER is SERVER that may also connect: ``connect_peer`` connects and returns
the id of the pipe that connect() attached (`last_attached`).
"""

from __future__ import annotations

import random

from purezmq._routing.errors import HostUnreachableError
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._draft import recv_single, single, single_msg, unwrap
from .base import Pattern

_ID_MASK = 0xFFFFFFFF


class Server(Pattern):
    """``fq`` in, a routing-id table out, single-part."""

    socket_type = "SERVER"
    thread_safe = True

    def __init__(self) -> None:
        self._fq = FairQueue()
        self._next_id = random.getrandbits(32)
        self._by_id: dict[int, Pipe] = {}
        self._ids: dict[Pipe, int] = {}
        self._last_in = 0
        #: The routing id of the pipe attached last (PEER's connect_peer).
        self._last_attached = 0

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        rid = self._next_id
        if rid == 0:
            rid = 1  # never routing id zero
        self._next_id = (rid + 1) & _ID_MASK
        self._by_id[rid] = pipe
        self._ids[pipe] = rid
        self._last_attached = rid
        self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        rid = self._ids.pop(pipe, None)
        if rid is not None:
            del self._by_id[rid]
        self._fq.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        single(self.socket_type, more)
        data, rid, _group = unwrap(frame)
        pipe = self._by_id.get(rid)
        if pipe is None:
            raise HostUnreachableError(f"no peer with routing id {rid}")
        return pipe.write([data])

    def send_msg(self, frames: Msg) -> bool:
        return self.send(single_msg(self.socket_type, frames), False)

    def recv(self) -> Msg | None:
        fq = self._fq
        msg = recv_single(fq)
        if msg is not None and fq.last_pipe is not None:
            self._last_in = self._ids.get(fq.last_pipe, 0)
        return msg

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        return True

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe

    def last_address(self) -> tuple[int, bytes | None]:
        return self._last_in, None

    @property
    def last_attached(self) -> int:
        return self._last_attached


class Peer(Server):
    """SERVER that also connects (``connect_peer``)."""

    socket_type = "PEER"
