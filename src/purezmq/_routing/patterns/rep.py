"""REP: strict receive-then-reply service side (RFC 28, libzmq src/rep.cpp).

RFC 28: for an incoming message REP "SHALL remove and store the address
envelope, including the delimiter", "SHALL pass the remaining data frames to
its calling application", "SHALL wait for a single reply message", "SHALL
prepend the address envelope and delimiter" and "SHALL deliver this message
back to the originating peer" (tests/test_spec_rep.cpp).

libzmq builds REP on ROUTER, and so do we: peers are identified the same way
(duplicate identities are ignored), input is fair-queued. The envelope is all
frames up to and including the first empty frame; a message in which no
empty frame precedes a body frame is malformed and silently dropped. Calling
send before recv, or recv before the reply was sent, is EFSM. The reply is
silently dropped if the requester's pipe is gone or cannot take it.

libzmq's REP is a ROUTER, so ROUTER's options are accepted on REP too and
act as on ROUTER where they can: ``router_handover``, ``probe_router``,
``connect_routing_id``; ``router_mandatory`` only changes ``has_out`` (as in
libzmq). libzmq *aborts* when a mandatory REP cannot write a reply envelope;
here the reply is dropped as without the option.
"""

from __future__ import annotations

from purezmq._routing.errors import FsmError
from purezmq._routing.pipe import Frame, Msg, Pipe

from .router import Router


class Rep(Router):
    """ROUTER's peer handling + the request/reply state machine."""

    socket_type = "REP"

    def __init__(self) -> None:
        super().__init__()
        self._sending_reply = False
        self._envelope: Msg = []
        self._reply_pipe: Pipe | None = None

    def pipe_terminated(self, pipe: Pipe) -> None:
        if pipe is self._reply_pipe:
            self._reply_pipe = None
        super().pipe_terminated(pipe)

    def recv(self) -> Msg | None:
        if self._sending_reply:
            raise FsmError("REP socket must send the reply before receiving again")
        fq = self._fq
        while True:
            msg = fq.recv()
            if msg is None:
                return None
            try:
                bottom = msg.index(b"")
            except ValueError:
                continue  # no delimiter: malformed, dropped
            if bottom == len(msg) - 1:
                continue  # delimiter but no body: malformed, dropped
            self._envelope = msg[: bottom + 1]
            del msg[: bottom + 1]
            self._reply_pipe = fq.last_pipe
            self._sending_reply = True
            return msg

    def send(self, frame: Frame, more: bool) -> bool:
        if not self._sending_reply:
            raise FsmError("REP socket must receive a request before sending")
        if not self._more_out:
            pipe = self._reply_pipe
            if pipe is not None and pipe.check_write():
                for part in self._envelope:
                    pipe.write_frame(part, True)
                self._out = pipe
            self._more_out = True
        out = self._out
        if out is not None:
            out.write_frame(frame, more)
        if not more:
            self._reply_done()
        return True

    def send_msg(self, frames: Msg) -> bool:
        if not self._sending_reply:
            raise FsmError("REP socket must receive a request before sending")
        if self._more_out:
            return super().send_msg(frames)
        pipe = self._reply_pipe
        if pipe is not None and pipe.check_write():
            envelope = self._envelope
            envelope.extend(frames)
            pipe.force_write(envelope)
        self._reply_done()
        return True

    def _reply_done(self) -> None:
        self._sending_reply = False
        self._more_out = False
        self._out = None
        self._reply_pipe = None
        self._envelope = []

    def has_in(self) -> bool:
        return not self._sending_reply and self._fq.has_in()

    def has_out(self) -> bool:
        return self._sending_reply and super().has_out()
