"""Receiving: whole messages from the pattern, handed out frame by frame.

Patterns deliver whole messages (lists of frames); pyzmq's `recv` returns
one frame at a time and says through RCVMORE whether more follow. The
`Receiver` keeps the message being handed out and the position in it, and
offers every receive flavour the facades need: the next frame as bytes
(the hottest path), frame and more-flag, the rest of a message, and an
undoable receive for asyncio's loss-free cancellation.

It is the receiving half of `SocketCore`, kept in a module of its own. The
entry checks of every receive are inlined on the hot path (two attribute
tests: closed or terminating, commands waiting); the socket supplies what
runs when one of them fires (`_check_open`, `process_commands`) and the wait
when nothing is there (`_block_recv`).
"""

from __future__ import annotations

import errno
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from purezmq import constants as C
from purezmq._routing.errors import RoutingError
from purezmq.error import ZMQError, raise_errno

if TYPE_CHECKING:
    from purezmq._routing.patterns.base import Pattern
    from purezmq._routing.pipe import Frame, Msg

    from .commands import Command

_ERRNO = {
    "EFSM": int(C.EFSM),
    "EHOSTUNREACH": errno.EHOSTUNREACH,
    "ENOTSUP": int(C.ENOTSUP),
    "EINVAL": errno.EINVAL,
}

#: What `recv_undoable` returns to undo it: the message, where its hand-out
#: began, and the cursor right after the receive.
UndoToken = tuple["Msg", int, "Msg | None", int]


def routing_error(e: RoutingError) -> ZMQError:
    """The pyzmq exception for a pattern's refusal (EFSM, EHOSTUNREACH...)."""
    return ZMQError(_ERRNO.get(e.errno_name, errno.EINVAL), e.message)


class Receiver:
    """The receive side of a socket: the pattern and the message being handed out."""

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern
        #: The fair queue that is the pattern's whole `recv` (PULL, DEALER).
        self._fq = pattern.direct_fq
        #: The message whose frames are being handed out, and the next index.
        self._rcv: Msg | None = None
        self._rcv_i = 0
        #: Closed or its context terminating: one check on the hot path.
        self._dead = False
        #: Commands from other threads for the owning thread (see SocketCore).
        self._mailbox: deque[Command] = deque()

    # Hooks the socket provides.
    def _check_open(self) -> None:
        """Raise ENOTSOCK or ETERM (called when `_dead` is set)."""
        raise NotImplementedError

    def process_commands(self) -> None:
        """Run the commands waiting in `_mailbox`."""
        raise NotImplementedError

    def _block_recv(self, attempt: Callable[[], bool]) -> None:
        """Wait until `attempt()` succeeds (RCVTIMEO, ETERM)."""
        raise NotImplementedError

    # ------------------------------------------------------------ receiving
    def _next_msg(self, nonblock: bool) -> Msg:
        if self._dead:
            self._check_open()
        if self._mailbox:
            self.process_commands()
        fq = self._fq
        try:
            msg = fq.recv() if fq is not None else self.pattern.recv()
        except RoutingError as e:
            raise routing_error(e) from None
        if msg is None:
            msg = self._wait_msg(nonblock)
        return msg

    def _wait_msg(self, nonblock: bool) -> Msg:
        """No message now: EAGAIN, or block until one comes (RCVTIMEO)."""
        if nonblock:
            raise_errno(errno.EAGAIN)
        # The pattern, not its bound `recv`: compiled, the closure then calls
        # the method natively, and no bound method is made per wait.
        pattern = self.pattern
        box: list[Msg] = []

        def attempt() -> bool:
            m = pattern.recv()
            if m is None:
                return False
            box.append(m)
            return True

        try:
            self._block_recv(attempt)
        except RoutingError as e:
            raise routing_error(e) from None
        return box[0]

    def recv_bytes(self, flags: int) -> Frame:
        """The next frame only (recv with copy=True): the hottest receive path,
        with `_next_msg` written out (one Python call less in the pure build)."""
        msg = self._rcv
        if msg is None:
            if self._dead:
                self._check_open()
            if self._mailbox:
                self.process_commands()
            fq = self._fq
            try:
                msg = fq.recv() if fq is not None else self.pattern.recv()
            except RoutingError as e:
                raise routing_error(e) from None
            if msg is None:
                msg = self._wait_msg((flags & 1) != 0)
            if len(msg) == 1:
                return msg[0]
            self._rcv = msg
            self._rcv_i = 1
            return msg[0]
        i = self._rcv_i
        frame = msg[i]
        i += 1
        if i == len(msg):
            self._rcv = None
        else:
            self._rcv_i = i
        return frame

    def recv_frame(self, nonblock: bool) -> tuple[Frame, bool]:
        """The next frame and whether more frames of its message follow."""
        msg = self._rcv
        if msg is not None:
            i = self._rcv_i
            frame = msg[i]
            i += 1
            if i == len(msg):
                self._rcv = None
                return frame, False
            self._rcv_i = i
            return frame, True
        msg = self._next_msg(nonblock)
        if len(msg) == 1:
            return msg[0], False
        self._rcv = msg
        self._rcv_i = 1
        return msg[0], True

    def recv_msg(self, nonblock: bool) -> Msg:
        """The rest of the current message, or the next whole message."""
        msg = self._rcv
        if msg is not None:
            self._rcv = None
            return msg[self._rcv_i :]
        return self._next_msg(nonblock)

    @property
    def rcvmore(self) -> bool:
        return self._rcv is not None

    def recv_undoable(self, whole: bool, nonblock: bool) -> tuple[Msg | Frame, bool, UndoToken]:
        """`recv_msg` (whole) or `recv_frame`, plus a token for `undo_recv`.

        For cancellation that loses nothing (purezmq.asyncio): if the caller is
        cancelled after the message left the socket but before it reached the
        caller, `undo_recv` puts it back exactly where it was."""
        msg = self._rcv
        start = self._rcv_i if msg is not None else 0
        if whole:
            frames = self.recv_msg(nonblock)
            full = msg if msg is not None else frames
            return frames, False, (full, start, self._rcv, self._rcv_i)
        frame, more = self.recv_frame(nonblock)
        rcv = self._rcv
        full = rcv if rcv is not None else (msg if msg is not None else [frame])
        return frame, more, (full, start, rcv, self._rcv_i)

    def try_recv_undoable(self, whole: bool) -> tuple[Msg | Frame, bool, UndoToken] | None:
        """`recv_undoable` without blocking that returns None, not EAGAIN,
        when no message is there (purezmq.asyncio tries before it waits).

        A request/reply loop on asyncio tries once per reply before the reply
        has come: raising EAGAIN there cost an exception object, its errno
        message and a traceback entry per compiled frame it crossed, on
        every round trip. The message taken is handed out from `_rcv` as if
        it had been there already, so `undo_recv` and RCVMORE are the same."""
        if self._rcv is None:
            if self._dead:
                self._check_open()
            if self._mailbox:
                self.process_commands()
            fq = self._fq
            try:
                msg = fq.recv() if fq is not None else self.pattern.recv()
            except RoutingError as e:
                raise routing_error(e) from None
            if msg is None:
                return None
            self._rcv = msg
            self._rcv_i = 0
        return self.recv_undoable(whole, True)

    def undo_recv(self, token: UndoToken) -> bool:
        """Undo a `recv_undoable` if nothing was received since. True on success."""
        full, start, rcv_after, i_after = token
        if self._rcv is not rcv_after or self._rcv_i != i_after:
            return False
        self._rcv = full
        self._rcv_i = start
        return True

    @property
    def last_metadata(self) -> dict[str, str]:
        """Properties of the connection the last message came from."""
        pipe = self.pattern.last_pipe
        meta = dict(pipe.metadata) if pipe is not None else {}
        meta.setdefault("Socket-Type", "")
        return meta
