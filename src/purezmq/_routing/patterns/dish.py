"""DISH: receives the messages of the groups it joined (RFC 48, libzmq
src/dish.cpp).

``join``/``leave`` keep a set of groups (joining a group twice, or leaving
one not joined, is EINVAL, as libzmq) and send ``[b"\\x04JOIN" + group]`` /
``[b"\\x05LEAVE" + group]`` to every peer; the ZMTP layer sends them as
JOIN/LEAVE commands. A new or reconnected peer gets a JOIN per group.

Messages arrive as ``[group, body]`` (see `.radio`). DISH checks the group
itself as well (libzmq ``dish_t::xxrecv``): a udp RADIO sends every group,
and a message of a group left meanwhile is not delivered. Malformed
messages (not two frames, or a group over 255 bytes) are dropped. Like SUB,
``has_in`` reads ahead one matching message for the next ``recv``.
Thread-safe; DISH never sends data.
"""

from __future__ import annotations

from purezmq._routing.dist import Distributor
from purezmq._routing.errors import InvalidError
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Msg, Pipe

from ._draft import GROUP_MAX_LENGTH, check_group
from .base import Pattern
from .radio import JOIN, LEAVE


class Dish(Pattern):
    """``fq`` in with a group filter; joins out through ``dist``."""

    socket_type = "DISH"
    thread_safe = True

    def __init__(self) -> None:
        self._fq = FairQueue()
        self._dist = Distributor()
        self._joined: set[bytes] = set()
        self._prefetched: Msg | None = None
        self._prefetched_pipe: Pipe | None = None
        self._last_in: Pipe | None = None
        self._last_group: bytes | None = None

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._fq.attach(pipe)
        self._dist.attach(pipe)
        self._send_joins(pipe)

    def hiccuped(self, pipe: Pipe) -> None:
        self._send_joins(pipe)

    def _send_joins(self, pipe: Pipe) -> None:
        for group in self._joined:
            pipe.write([JOIN + group])  # dropped if full, as libzmq

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._fq.terminated(pipe)
        self._dist.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._dist.activated(pipe)

    def join(self, group: bytes) -> None:
        check_group(group)
        if group in self._joined:
            raise InvalidError(f"already joined group {group!r}")
        self._joined.add(group)
        self._dist.send_msg_to(list(self._dist.eligible), [JOIN + group])

    def leave(self, group: bytes) -> None:
        check_group(group)
        if group not in self._joined:
            raise InvalidError(f"not a member of group {group!r}")
        self._joined.discard(group)
        self._dist.send_msg_to(list(self._dist.eligible), [LEAVE + group])

    def has_out(self) -> bool:
        return True  # joins and leaves can be sent at any time

    def _next(self) -> Msg | None:
        fq = self._fq
        joined = self._joined
        while True:
            msg = fq.recv()
            if msg is None:
                return None
            if len(msg) == 2 and len(msg[0]) <= GROUP_MAX_LENGTH and bytes(msg[0]) in joined:
                return msg

    def recv(self) -> Msg | None:
        msg = self._prefetched
        if msg is not None:
            self._prefetched = None
            self._last_in = self._prefetched_pipe
        else:
            msg = self._next()
            if msg is None:
                return None
            self._last_in = self._fq.last_pipe
        self._last_group = bytes(msg[0])
        return [msg[1]]

    def has_in(self) -> bool:
        if self._prefetched is not None:
            return True
        msg = self._next()
        if msg is None:
            return False
        self._prefetched = msg
        self._prefetched_pipe = self._fq.last_pipe
        return True

    @property
    def last_pipe(self) -> Pipe | None:
        return self._last_in

    def last_address(self) -> tuple[int, bytes | None]:
        return 0, self._last_group
