"""Routing ids of a ROUTER (and REP): which pipe answers to which id.

This is the identity half of libzmq's ``router_t`` (``identify_peer``,
``_anonymous_pipes``, ``_out_pipes``; RFC 28: "SHALL create a double queue
when a peer connects" and address messages by the peer's identity).

A pipe's routing id is, in order of preference (libzmq ``identify_peer``):

1. ``pipe.routing_id`` when the socket preset it (CONNECT_ROUTING_ID);
2. the Identity the peer announced (``pipe.peer_identity``) if non-empty.
   If another pipe already has it: without ROUTER_HANDOVER the new pipe is
   ignored (stays anonymous: never read, never routed to); with handover the
   old pipe is evicted (the owner closes it) and the new one takes the id;
3. otherwise a generated id: ``b"\\x00"`` + a 4-byte big-endian counter that
   starts at a random value, as libzmq does. Ids in use are skipped (libzmq
   would assert on such a collision).

Until its identity is known a pipe is *anonymous*. Pipes made by bind() are
attached after their handshake, so they are identified at once; pipes made by
connect() are attached before it and wait for ``identify`` (the socket
layer's ``pipe_identified``), unless their routing id was preset.

Invariant: ``lookup(pipe.routing_id) is pipe`` for every identified pipe;
anonymous pipes are in no table.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from .pipe import Frame, Pipe


class RoutingTable:
    """routing id -> pipe, plus the pipes whose identity is not settled yet."""

    __slots__ = ("_anonymous", "_by_id", "_evict", "_next_id", "handover")

    def __init__(self, evict: Callable[[Pipe], None]) -> None:
        self._by_id: dict[bytes, Pipe] = {}
        self._anonymous: set[Pipe] = set()
        #: Called with a pipe that lost its id to a newcomer (ROUTER_HANDOVER).
        self._evict = evict
        self._next_id = random.getrandbits(32)
        #: ROUTER_HANDOVER: a newcomer with a used identity takes it over.
        self.handover = False

    def attach(self, pipe: Pipe, locally_initiated: bool) -> bool:
        """Register a new pipe; True if it is identified (routable) now."""
        if pipe.routing_id or not locally_initiated:
            return self._identify(pipe)
        self._anonymous.add(pipe)
        return False

    def identify(self, pipe: Pipe) -> bool:
        """An anonymous pipe's handshake is done; True if it became routable.

        A pipe that is not anonymous (already identified, refused as a
        duplicate, unknown) is left as it is and False is returned: libzmq
        keeps the id a pipe got first, even across reconnections.
        """
        if pipe not in self._anonymous:
            return False
        self._anonymous.discard(pipe)
        return self._identify(pipe)

    def _identify(self, pipe: Pipe) -> bool:
        rid = bytes(pipe.routing_id or pipe.peer_identity)
        if not rid:
            rid = self._generate()
        elif rid in self._by_id:
            if not self.handover:
                self._anonymous.add(pipe)
                return False
            old = self._by_id.pop(rid)
            old.routing_id = b""
            self._evict(old)
        pipe.routing_id = rid
        self._by_id[rid] = pipe
        return True

    def _generate(self) -> bytes:
        by_id = self._by_id
        while True:
            rid = b"\x00" + self._next_id.to_bytes(4, "big")
            self._next_id = (self._next_id + 1) & 0xFFFFFFFF
            if rid not in by_id:
                return rid

    def terminated(self, pipe: Pipe) -> bool:
        """Forget `pipe`; True if it was an identified (routable) pipe."""
        if pipe in self._anonymous:
            self._anonymous.discard(pipe)
            return False
        rid = pipe.routing_id
        if rid and self._by_id.get(rid) is pipe:
            del self._by_id[rid]
            return True
        return False

    def lookup(self, rid: Frame) -> Pipe | None:
        """The pipe known by `rid` (any bytes-like), or None."""
        try:
            return self._by_id.get(rid)
        except (TypeError, ValueError):  # unhashable: bytearray, writable view
            return self._by_id.get(bytes(rid))

    def is_anonymous(self, pipe: Pipe) -> bool:
        return pipe in self._anonymous

    def __iter__(self) -> Iterator[Pipe]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)
