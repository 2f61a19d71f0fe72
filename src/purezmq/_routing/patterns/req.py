"""REQ: strict request-then-reply client side (RFC 28, libzmq src/req.cpp).

RFC 28: REQ "SHALL prefix the outgoing message with an empty delimiter
frame", sends round-robin, "SHALL accept an incoming message only from the
last peer that it sent a request to" and "SHALL discard silently any
messages received from other peers". Sending twice or receiving before
sending is EFSM.

libzmq details kept here (tests/test_spec_req.cpp, test_req_correlate.cpp,
test_req_relaxed.cpp):

- When a request begins, every message already queued from any peer is
  discarded ("REQ sends request to A, A replies, B replies too ... an hour
  later B's old reply is used" - req.cpp).
- A reply is accepted if it comes from the pipe of the last request (from any
  pipe if that one has gone: libzmq forgets the pipe and then accepts the next
  well-formed reply) and is well-formed: ``[request id,] b"", body...``.
  Anything else is silently discarded.
- ``req_correlate``: a 4-byte request id frame precedes the delimiter. It is
  a counter starting at a random value, incremented per request, written in
  native byte order (libzmq memcpy's a uint32); only a reply carrying the
  current id is accepted.
- ``req_relaxed``: a new send is allowed while waiting; the old reply will be
  ignored (with correlate, by its id; otherwise because the next request may
  go to another pipe and input is drained). The previous reply pipe is *not*
  terminated (libzmq issue #1690, test_req_relaxed case 3).
- ``probe_router`` as DEALER (libzmq REQ inherits it).
- ``has_in`` is DEALER's while waiting for a reply (it may report a message
  that will be discarded, as libzmq's "TODO: Duplicates should be removed
  here"), False otherwise; ``has_out`` is False while waiting unless relaxed.

Options (ints used as booleans, write-only): ``req_correlate``,
``req_relaxed``, ``probe_router``.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from purezmq._routing.errors import FsmError
from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._options import flag, invalid, write_only
from .base import Pattern
from .dealer import probe


class Req(Pattern):
    """``lb`` + ``fq`` + the request/reply state machine."""

    socket_type = "REQ"
    options = frozenset({"req_correlate", "req_relaxed", "probe_router"})

    def __init__(self) -> None:
        self._lb = LoadBalancer()
        self._fq = FairQueue()
        self._receiving_reply = False
        self._message_begins = True
        self._reply_pipe: Pipe | None = None
        self._request_id = random.getrandbits(32)
        self._request_id_frame = b""
        self._correlate = False
        self._strict = True
        self._probe_router = False

    # ------------------------------------------------------------ pipe events
    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._probe_router:
            probe(pipe)
        self._fq.attach(pipe)
        self._lb.attach(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        if pipe is self._reply_pipe:
            self._reply_pipe = None
        self._fq.terminated(pipe)
        self._lb.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._lb.activated(pipe)

    # ------------------------------------------------------------ sending
    def _check_can_send(self) -> None:
        if self._receiving_reply:
            if self._strict:
                raise FsmError("REQ socket must receive the reply before sending again")
            self._receiving_reply = False
            self._message_begins = True

    def _next_request_id(self) -> bytes:
        self._request_id = rid = (self._request_id + 1) & 0xFFFFFFFF
        self._request_id_frame = frame = rid.to_bytes(4, sys.byteorder)
        return frame

    def _discard_input(self) -> None:
        """Drop every queued message before a new request becomes visible.

        Queued means taken in already: like libzmq, which drops what its I/O
        thread put in the pipes, it does not ask the OS. A reply still on the
        wire is dropped on receipt when it comes from another pipe than the
        new request's, or carries a stale request id (REQ_CORRELATE); with
        REQ_RELAXED alone, a late reply from the same peer can pass for the
        new one - libzmq has the same window, which is what REQ_CORRELATE is
        for."""
        fq = self._fq
        while fq.recv(False) is not None:
            pass

    def send(self, frame: Frame, more: bool) -> bool:
        self._check_can_send()
        lb = self._lb
        if self._message_begins:
            self._reply_pipe = None
            if self._correlate:
                if not lb.send(self._next_request_id(), True):
                    return False
                lb.send(b"", True)
            elif not lb.send(b"", True):
                return False
            self._reply_pipe = lb.last_pipe
            self._message_begins = False
            self._discard_input()
        lb.send(frame, more)
        if not more:
            self._receiving_reply = True
            self._message_begins = True
        return True

    def send_msg(self, frames: Msg) -> bool:
        self._check_can_send()
        if not self._message_begins:
            return super().send_msg(frames)
        lb = self._lb
        if not lb.has_out():
            return False
        envelope = 2 if self._correlate else 1
        if self._correlate:
            frames[0:0] = (self._next_request_id(), b"")
        else:
            frames.insert(0, b"")
        # libzmq discards input after the delimiter is written but before the
        # request is complete (visible); with whole messages: before writing.
        self._discard_input()
        if not lb.send_msg(frames):  # only if the peer vanished since has_out()
            del frames[:envelope]
            return False
        self._reply_pipe = lb.last_pipe
        self._receiving_reply = True
        return True

    # ------------------------------------------------------------ receiving
    def recv(self) -> Msg | None:
        if not self._receiving_reply:
            raise FsmError("REQ socket must send a request before receiving")
        fq = self._fq
        while True:
            msg = fq.recv()
            if msg is None:
                return None
            reply_pipe = self._reply_pipe
            if reply_pipe is not None and fq.last_pipe is not reply_pipe:
                continue
            if self._correlate:
                if len(msg) < 3 or msg[0] != self._request_id_frame or len(msg[1]):
                    continue
                del msg[:2]
            else:
                if len(msg) < 2 or len(msg[0]):
                    continue
                del msg[0]
            self._receiving_reply = False
            self._message_begins = True
            return msg

    def has_in(self) -> bool:
        return self._receiving_reply and self._fq.has_in()

    def has_out(self) -> bool:
        if self._receiving_reply and self._strict:
            return False
        return self._lb.has_out()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe

    # ------------------------------------------------------------ options
    def set_option(self, name: str, value: Any) -> None:
        if name not in self.options:
            invalid(self, name)
        on = flag(name, value)
        if name == "req_correlate":
            self._correlate = on
        elif name == "req_relaxed":
            self._strict = not on
        else:
            self._probe_router = on

    def get_option(self, name: str) -> Any:
        write_only(self, name)
