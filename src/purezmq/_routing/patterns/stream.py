"""STREAM: raw TCP peers addressed by routing id (libzmq src/stream.cpp).

No ZMTP on the wire: each connection carries plain bytes, and the session
under a STREAM socket hands each chunk it reads to the pipe as a one-frame
message. This pattern adds the envelope:

- receiving: ``[routing id, bytes]``; a connection that opens or closes is
  announced as ``[routing id, b""]`` (the session writes that empty message,
  when STREAM_NOTIFY is on - libzmq's default);
- sending: ``[routing id, bytes]`` writes the bytes to that peer;
  ``[routing id, b""]`` closes the connection. An unknown routing id is
  EHOSTUNREACH; a peer whose queue is full is EAGAIN (libzmq ``xsend``).

Every connection is a new peer with a new routing id (CONNECT_ROUTING_ID
names the next outgoing one); a raw peer has no Identity to offer.
"""

from __future__ import annotations

from typing import Any

from purezmq._routing.errors import HostUnreachableError, InvalidError
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe
from purezmq._routing.routing_table import RoutingTable

from ._options import blob, flag, invalid, write_only
from .base import Pattern


def _close(pipe: Pipe) -> None:
    pipe.close()


class Stream(Pattern):
    """``fq`` in with the routing id prepended; the routing table out."""

    socket_type = "STREAM"
    options = frozenset({"connect_routing_id", "stream_notify"})

    def __init__(self) -> None:
        self._fq = FairQueue()
        self._table = RoutingTable(evict=_close)
        self._current: Pipe | None = None  # target of the message being sent
        self._more_out = False  # the routing id frame was sent; data comes next

    # ----------------------------------------------------------- pipe events
    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        # A raw peer announces no identity: it is routable at once.
        pipe.peer_identity = b""
        self._table.attach(pipe, locally_initiated=False)
        self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._table.terminated(pipe)
        self._fq.terminated(pipe)
        if self._current is pipe:
            self._current = None

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        """Nothing to track: writability is checked per message."""

    # ----------------------------------------------------------- messages
    def send(self, frame: Frame, more: bool) -> bool:
        if not self._more_out:
            if not more:
                raise InvalidError(
                    "STREAM messages are [routing id, data]: send the id with SNDMORE"
                )
            pipe = self._table.lookup(frame)
            if pipe is None:
                raise HostUnreachableError(f"no peer with routing id {bytes(frame)!r}")
            if not pipe.check_write():
                return False
            self._current = pipe
            self._more_out = True
            return True
        # The data frame. STREAM has no multipart: further frames are data too.
        self._more_out = more
        pipe = self._current
        if pipe is None:  # the peer vanished between the two frames
            return True
        if not more:
            self._current = None
        if len(frame) == 0:
            pipe.close()  # an empty frame closes the connection
        else:
            pipe.force_write([frame])
        return True

    def recv(self) -> Msg | None:
        msg = self._fq.recv()
        if msg is None:
            return None
        pipe = self._fq.last_pipe
        rid = pipe.routing_id if pipe is not None else b""
        return [rid, *msg]

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        return True

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe

    # ----------------------------------------------------------- options
    def set_option(self, name: str, value: Any) -> None:
        # Both are applied by the socket layer (pipe routing ids, session
        # notices); here they are only checked, as every pattern checks its own.
        if name == "stream_notify":
            flag(name, value)
        elif name == "connect_routing_id":
            blob(name, value)
        else:
            invalid(self, name)

    def get_option(self, name: str) -> Any:
        write_only(self, name)
