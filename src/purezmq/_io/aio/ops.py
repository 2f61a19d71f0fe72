"""An asyncio socket's queue of operations (`purezmq.asyncio`), compiled.

Every `await sock.send(...)` and `await sock.recv()` of a `purezmq.asyncio`
socket passes through here: the operation is tried at once and, if it would
block, queued in order and retried when the socket's core signals a change
(`service`). Interpreted, this was about a dozen Python calls per round trip
(the add, the try, the operation record, the service, the dequeue, the
receive future's ``__await__`` generator); compiled by mypyc (setup.py) the
facade keeps one interpreted call per operation - its own ``recv`` / ``send``
method, which gives pyzmq's signature and hands over.

What the queue needs from the facade it gets as callables, so `_io` never
imports `purezmq.sugar` (tests/unit/test_layering.py): the general send
paths (Frames, tracking, multipart), the copy=False receive (Frames), and
the loop look-up that may attach the socket to a new loop.

Semantics (pyzmq's `zmq.asyncio`): every operation returns a Future; an
operation waits behind earlier ones of its direction (receives, sends and
polls do not block one another); RCVTIMEO / SNDTIMEO end a waiting one with
EAGAIN; a cancelled or timed-out one leaves the queue (its done callback,
`forget`); a cancelled receive loses nothing (`RecvFuture`).
"""

from __future__ import annotations

# Not used by name: typeshed defines asyncio.Future in `_asyncio`, and mypyc
# fetches the base class of `RecvFuture` from there (the module must be known).
import _asyncio  # noqa: F401
import asyncio
import errno
from collections import deque
from collections.abc import Callable, Generator
from typing import Any, Final, TypeVar

from purezmq import constants as C
from purezmq._core.socket_core import SocketCore
from purezmq._mypyc import mypyc_attr
from purezmq.error import Again, ZMQError

_T = TypeVar("_T")

RECV: Final = 0
RECV_MULTIPART: Final = 1
SEND: Final = 2
SEND_MULTIPART: Final = 3
POLL: Final = 4

_NOBLOCK: Final = int(C.NOBLOCK)
_RCVTIMEO: Final = int(C.RCVTIMEO)
_SNDTIMEO: Final = int(C.SNDTIMEO)

#: C functions, called directly (compiled, a module attribute look-up each).
_get_running_loop: Final = asyncio._get_running_loop
_Future: Final = asyncio.Future
_future_await: Final = asyncio.Future.__await__
_CancelledError: Final = asyncio.CancelledError


def direction(kind: int) -> int:
    """Which queue an operation waits in: 0 receives, 1 sends, 2 polls."""
    if kind <= RECV_MULTIPART:
        return 0
    return 1 if kind <= SEND_MULTIPART else 2


@mypyc_attr(native_class=False)
class RecvFuture(asyncio.Future[_T]):
    """A receive's future that can give its message back.

    If the awaiting task is cancelled after the message was taken from the
    socket (the result is set) but before the task saw it, the message is
    put back, so the next receive gets it: ``__await__`` sees that
    cancellation arrive. Compiled (a non-native class: it derives from the
    C `asyncio.Future`), so that generator is not interpreted. `self` is
    typed Any: mypyc would otherwise accept only this exact class, and
    zmq.eventloop.future subclasses it."""

    _undo: Callable[[], None] | None = None

    def __await__(self: Any) -> Generator[Any, None, Any]:
        try:
            return (yield from _future_await(self))
        except _CancelledError:
            if self.done() and not self.cancelled() and self.exception() is None:
                undo, self._undo = self._undo, None
                if undo is not None:
                    undo()
            raise

    def __iter__(self: Any) -> Generator[Any, None, Any]:  # `yield from future`
        it: Generator[Any, None, Any] = self.__await__()
        return it


class Op:
    """A queued operation. While queued, its future has `forget` as a done
    callback (a cancelled or timed-out operation leaves the queue); the
    queue completes it only after taking it out and removing that callback,
    so a completion schedules nothing but the awaiting task."""

    def __init__(self, kind: int, future: asyncio.Future[Any], args: tuple[Any, ...]) -> None:
        self.kind = kind
        self.future = future
        self.args = args
        self.timer: asyncio.TimerHandle | None = None
        self.forget: Callable[[asyncio.Future[Any]], None] | None = None


class _GiveBack:
    """A received message's undo (see `RecvFuture`)."""

    def __init__(self, queue: OpQueue, token: Any) -> None:
        self.queue = queue
        self.token = token

    def __call__(self) -> None:
        self.queue.give_back(self.token)


class OpQueue:
    """The operations of one asyncio socket (see the module docstring)."""

    def __init__(
        self,
        core: SocketCore,
        get_loop: Callable[[], asyncio.AbstractEventLoop],
        send_other: Callable[[Any, int, object, object], Any],
        send_multipart: Callable[..., Any],
        frames: Callable[[Any, bool, bool], Any],
    ) -> None:
        self.core = core
        #: The socket's loop (set by the facade when it attaches to one).
        self.loop: asyncio.AbstractEventLoop | None = None
        self._get_loop = get_loop
        self._send_other = send_other
        self._send_multipart = send_multipart
        self._frames = frames
        self.ops: deque[Op] = deque()
        #: A `service` is scheduled with `call_soon` and has not run yet.
        self.wake_pending = False

    # ------------------------------------------------------------ entry points
    def send(self, data: Any, flags: int, copy: object, track: object) -> asyncio.Future[Any]:
        """A send: the usual one (nothing queued, on the socket's loop) is
        tried here at once; anything else goes through `add`."""
        loop = self.loop
        if not self.ops and loop is not None and loop is _get_running_loop():
            fut: asyncio.Future[Any] = _Future(loop=loop)
            if self.core.closed:
                fut.set_exception(_closed())
                return fut
            try:
                if type(data) is bytes and not track:
                    self.core.send_frame(data, flags | _NOBLOCK)
                    result: Any = None
                else:
                    result = self._send_other(data, flags | _NOBLOCK, copy, track)
            except Again:
                pass  # it must wait (or fail, NOBLOCK): `add` tries once more, then queues
            except Exception as exc:
                fut.set_exception(exc)
                return fut
            else:
                fut.set_result(result)
                return fut
        return self.add(SEND, (data, flags, copy, track), bool(flags & _NOBLOCK))

    def add(self, kind: int, args: tuple[Any, ...], nonblock: bool) -> asyncio.Future[Any]:
        """Start an operation: its Future, done at once if it could be."""
        loop = self.loop
        if loop is None or loop is not _get_running_loop():
            loop = self._get_loop()
        fut: asyncio.Future[Any] = (
            RecvFuture(loop=loop) if kind <= RECV_MULTIPART else _Future(loop=loop)
        )
        core = self.core
        if core.closed:
            fut.set_exception(_closed())
            return fut
        # Keep order: try at once only if nothing of the same direction waits.
        ops = self.ops
        if ops:
            d = direction(kind)
            for o in ops:
                if direction(o.kind) == d:
                    break
            else:
                if self._try(kind, args, fut, None):
                    return fut
        elif self._try(kind, args, fut, None):
            return fut
        if nonblock:
            fut.set_exception(Again())
            return fut
        op = Op(kind, fut, args)
        ops.append(op)
        if kind != POLL:
            timeout = int(core.options.value(_RCVTIMEO if kind <= RECV_MULTIPART else _SNDTIMEO))
            if timeout >= 0:
                op.timer = loop.call_later(timeout / 1000.0, self._expire, op)
        forget = _Forget(self, op)
        op.forget = forget
        fut.add_done_callback(forget)
        return fut

    def service(self) -> None:
        """Run queued operations in order while they can complete."""
        self.wake_pending = False
        core = self.core
        if core.closed:
            return
        core.process_commands()
        ops = self.ops
        if not ops:
            return
        blocked = 0
        for op in list(ops):
            if op.future.done():
                continue
            bit = 1 << direction(op.kind)
            if blocked & bit:
                continue
            if not self._try(op.kind, op.args, op.future, op):
                blocked |= bit

    def schedule_service(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed() and not self.wake_pending:
            self.wake_pending = True
            loop.call_soon(self.service)

    def give_back(self, token: Any) -> None:
        """Put a received message back (its receiver was cancelled)."""
        if not self.core.closed and self.core.undo_recv(token):
            self.schedule_service()

    def forget(self, op: Op) -> None:
        """`op` is done from outside (cancelled, timed out): out of the queue."""
        if op.timer is not None:
            op.timer.cancel()
        ops = self.ops
        if ops and ops[0] is op:
            ops.popleft()
            return
        try:
            ops.remove(op)
        except ValueError:
            pass

    def futures(self, of_direction: int, same: bool) -> list[asyncio.Future[Any]]:
        """The queued futures of one direction (`same`) or of the others."""
        return [op.future for op in self.ops if (direction(op.kind) == of_direction) == same]

    # ------------------------------------------------------------ internals
    def _try(
        self, kind: int, args: tuple[Any, ...], fut: asyncio.Future[Any], op: Op | None
    ) -> bool:
        """Attempt an operation without blocking; True when `fut` got an
        outcome (a queued one, `op`, has then left the queue)."""
        core = self.core
        try:
            if kind <= RECV_MULTIPART:
                whole = kind == RECV_MULTIPART
                got = core.try_recv_undoable(whole)
                if got is None:
                    return False  # not EAGAIN: no exception per receive that waits
                data, more, token = got
                receiving: Any = fut  # a RecvFuture (made by `add`)
                receiving._undo = _GiveBack(self, token)
                if args[1]:  # copy
                    if whole:
                        assert isinstance(data, list)
                        result: Any = [f if type(f) is bytes else bytes(f) for f in data]
                    else:
                        result = data if type(data) is bytes else bytes(data)
                else:
                    result = self._frames(data, more, whole)
            elif kind == SEND:
                data, flags, copy, track = args
                flags |= _NOBLOCK
                if type(data) is bytes and not track:
                    core.send_frame(data, flags)
                    result = None
                else:
                    result = self._send_other(data, flags, copy, track)
            elif kind == SEND_MULTIPART:
                parts, flags, copy, track, kwargs = args
                result = self._send_multipart(parts, flags | _NOBLOCK, copy, track, **kwargs)
            else:
                result = core.events() & args[0]
                if not result:
                    return False
        except Again:
            return False
        except Exception as exc:
            if op is not None:
                self._dequeue(op)
            fut.set_exception(exc)
            return True
        if op is not None:
            self._dequeue(op)
        fut.set_result(result)
        return True

    def _dequeue(self, op: Op) -> None:
        """Take the queued `op` out before completing it (see `Op`)."""
        forget, op.forget = op.forget, None
        if forget is not None:
            op.future.remove_done_callback(forget)
        if op.timer is not None:
            op.timer.cancel()
        ops = self.ops
        if ops and ops[0] is op:
            ops.popleft()
        else:
            self.forget(op)

    def _expire(self, op: Op) -> None:
        if not op.future.done():
            op.future.set_exception(Again())


class _Forget:
    """A queued operation's done callback: a future completed from outside
    (cancelled, timed out) takes its operation out of the queue."""

    def __init__(self, queue: OpQueue, op: Op) -> None:
        self.queue = queue
        self.op = op

    def __call__(self, fut: asyncio.Future[Any]) -> None:
        self.queue.forget(self.op)


def _closed() -> Exception:
    return ZMQError(errno.ENOTSOCK, "Socket is closed")
