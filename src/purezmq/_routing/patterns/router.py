"""ROUTER: addresses peers by routing id (RFC 28, libzmq src/router.cpp).

Receiving: fair-queued from identified peers, each message prefixed with the
routing id of the pipe it came from (RFC 28 "SHALL prepend ... an address
envelope"). Sending: the first frame names the peer; the rest of the message
goes to that peer's pipe.

libzmq details kept here:

- A first frame without MORE (a lone routing id) is silently ignored.
- Unknown routing id: the whole message is silently dropped, unless
  ``router_mandatory`` -> EHOSTUNREACH (tests/test_router_mandatory.cpp).
- Known peer that cannot take a message: dropped silently; with
  ``router_mandatory`` -> EAGAIN if the pipe is at its HWM, EHOSTUNREACH if
  the pipe is closing (libzmq tells the two apart with ``check_hwm``).
- ``has_out`` (POLLOUT) is always True, except with ``router_mandatory``:
  then True iff some identified peer's pipe is below its HWM.
- ``probe_router``: an empty message to every new pipe (as DEALER).
- Peer identification, duplicates and ``router_handover``: see
  `..routing_table` (tests/test_router_handover.cpp).

Options (values are ints used as booleans): ``router_mandatory``,
``router_handover``, ``probe_router``. ``connect_routing_id`` (bytes) is
accepted and ignored: the socket layer applies it by presetting the
``routing_id`` of the pipe its next connect() makes. ``router_raw``
(deprecated in libzmq in favour of STREAM) and ``router_notify`` (DRAFT) are
not supported: setting them to a non-zero value raises InvalidError. All are
write-only, as in libzmq (reading them is EINVAL).
"""

from __future__ import annotations

from typing import Any

from purezmq._routing.errors import HostUnreachableError, InvalidError
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe
from purezmq._routing.routing_table import RoutingTable

from ._options import flag, invalid, write_only
from .base import Pattern
from .dealer import probe


class Router(Pattern):
    """``fq`` in, routing table out."""

    socket_type = "ROUTER"
    options = frozenset(
        {
            "router_mandatory",
            "router_handover",
            "probe_router",
            "connect_routing_id",
            "router_raw",
            "router_notify",
        }
    )

    def __init__(self) -> None:
        self._fq = FairQueue()
        self._table = RoutingTable(self._evict)
        self._mandatory = False
        self._probe_router = False
        #: True between the first and the last frame of an outgoing message.
        self._more_out = False
        #: The pipe taking the outgoing message (None: dropping it).
        self._out: Pipe | None = None

    # ------------------------------------------------------------ pipe events
    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._probe_router:
            probe(pipe)
        if self._table.attach(pipe, locally_initiated):
            self._fq.attach(pipe)

    def pipe_identified(self, pipe: Pipe) -> None:
        if self._table.identify(pipe):
            self._fq.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._table.terminated(pipe)
        self._fq.terminated(pipe)
        if pipe is self._out:
            self._out = None

    def _evict(self, pipe: Pipe) -> None:
        """ROUTER_HANDOVER: the pipe lost its id to a newcomer; libzmq terminates
        it and stops reading it, so what it still holds is dropped."""
        self._fq.remove(pipe)
        if pipe is self._out:
            self._out = None
        pipe.close()

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    # ------------------------------------------------------------ messages
    def send(self, frame: Frame, more: bool) -> bool:
        if self._more_out:
            out = self._out
            if out is not None:
                out.write_frame(frame, more)
            if not more:
                self._more_out = False
                self._out = None
            return True
        if not more:
            return True  # a routing id with nothing after it: ignored
        try:
            pipe = self._route(frame)
        except _Full:
            return False
        self._more_out = True
        self._out = pipe
        return True

    def _route(self, rid: Frame) -> Pipe | None:
        """The pipe for a message's first frame, or None to drop the message.
        With ROUTER_MANDATORY the failures raise instead: HostUnreachableError,
        or `_Full` which the callers turn into EAGAIN (False)."""
        pipe = self._table.lookup(rid)
        if pipe is None:
            if self._mandatory:
                raise HostUnreachableError(f"no peer with routing id {bytes(rid)!r}")
            return None
        if pipe.check_write():
            return pipe
        if self._mandatory:
            if pipe.out_closed or pipe.peer_closed:
                raise HostUnreachableError(f"peer {bytes(rid)!r} is disconnecting")
            raise _Full
        pipe.drops += 1  # libzmq drops a message to a full (or closing) peer
        return None

    def send_msg(self, frames: Msg) -> bool:
        if self._more_out:
            return super().send_msg(frames)
        if len(frames) < 2:
            return True
        try:
            pipe = self._route(frames[0])
        except _Full:
            return False
        if pipe is not None:
            del frames[0]
            pipe.force_write(frames)  # check_write() passed in _route
        return True

    def recv(self) -> Msg | None:
        fq = self._fq
        msg = fq.recv()
        if msg is not None:
            msg.insert(0, fq.last_pipe.routing_id)  # type: ignore[union-attr]
        return msg

    def has_in(self) -> bool:
        return self._fq.has_in()

    def has_out(self) -> bool:
        if not self._mandatory:
            return True
        for pipe in self._table:
            hwm = pipe.out_hwm
            if not hwm or pipe.outbound_size < hwm:
                return True
        return False

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe

    # ------------------------------------------------------------ options
    def set_option(self, name: str, value: Any) -> None:
        if name not in self.options:
            invalid(self, name)
        if name == "connect_routing_id":
            return  # the socket layer presets pipe.routing_id of its next connect
        on = flag(name, value)
        if name == "router_mandatory":
            self._mandatory = on
        elif name == "router_handover":
            self._table.handover = on
        elif name == "probe_router":
            self._probe_router = on
        elif on:  # router_raw, router_notify
            raise InvalidError(f"option {name} is not supported by purezmq")

    def get_option(self, name: str) -> Any:
        write_only(self, name)


class _Full(Exception):
    """Internal: ROUTER_MANDATORY and the peer's pipe is at its HWM (EAGAIN)."""
