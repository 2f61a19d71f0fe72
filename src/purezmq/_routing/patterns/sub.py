"""SUB: receives the messages matching its subscriptions (RFC 29, libzmq src/sub.cpp).

SUB is XSUB with filtering on and sending off. ``subscribe`` / ``unsubscribe``
(bytes topics, counted) go through XSUB's send path: a subscribe is sent as
``b"\\x01" + topic`` to every publisher, a cancel ``b"\\x00" + topic`` when the
count falls to zero; new and reconnected pipes get all topics.

Receiving checks the *first frame* of each message against the subscriptions
(RFC 29 "SHALL filter ... using a prefix match"; XOR ``invert_matching``) and
delivers or drops the whole multipart message. ``has_in`` must know whether a
matching message exists, so, like libzmq's ``xsub_t::xhas_in``, it reads ahead
and keeps one matching message for the next ``recv``; that message is
delivered even if the subscriptions change in between, as in libzmq.

Options: ``subscribe``, ``unsubscribe`` (bytes), ``invert_matching`` (int used
as boolean, readable); ``topics_count`` (read-only int, DRAFT).
"""

from __future__ import annotations

from typing import Any

from purezmq._routing.errors import NotSupportedError
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._options import blob, invalid
from .xsub import XSub


class Sub(XSub):
    """XSUB + filtering, without sending."""

    socket_type = "SUB"
    options = frozenset({"subscribe", "unsubscribe", "invert_matching", "topics_count"})

    def __init__(self) -> None:
        super().__init__()
        self._prefetched: Msg | None = None
        self._prefetched_pipe: Pipe | None = None
        self._last_in: Pipe | None = None

    def send(self, frame: Frame, more: bool) -> bool:
        raise NotSupportedError("SUB sockets cannot send; use subscribe/unsubscribe")

    def send_msg(self, frames: Msg) -> bool:
        raise NotSupportedError("SUB sockets cannot send; use subscribe/unsubscribe")

    def has_out(self) -> bool:
        return False

    def set_option(self, name: str, value: Any) -> None:
        if name == "subscribe":
            topic = blob(name, value)
            self._subs.add(topic)
            self._dist.send_to_all(b"\x01" + topic, False)
        elif name == "unsubscribe":
            topic = blob(name, value)
            if self._subs.rm(topic):
                self._dist.send_to_all(b"\x00" + topic, False)
        elif name == "invert_matching":
            super().set_option(name, value)
        else:
            invalid(self, name)

    def _next_matching(self) -> Msg | None:
        fq = self._fq
        subs = self._subs
        invert = self._invert
        while True:
            msg = fq.recv()
            if msg is None or subs.check(msg[0]) is not invert:
                return msg

    def recv(self) -> Msg | None:
        msg = self._prefetched
        if msg is not None:
            self._prefetched = None
            self._last_in = self._prefetched_pipe
            return msg
        # _next_matching, inlined: this is SUB's critical path.
        fq = self._fq
        subs = self._subs
        invert = self._invert
        if subs.matches_all and not invert:
            msg = fq.recv()
            if msg is not None:
                self._last_in = fq.last_pipe
            return msg
        while True:
            msg = fq.recv()
            if msg is None:
                return None
            if subs.check(msg[0]) is not invert:
                self._last_in = fq.last_pipe
                return msg

    def has_in(self) -> bool:
        if self._prefetched is not None:
            return True
        msg = self._next_matching()
        if msg is None:
            return False
        self._prefetched = msg
        self._prefetched_pipe = self._fq.last_pipe
        return True

    @property
    def last_pipe(self) -> Pipe | None:
        return self._last_in
