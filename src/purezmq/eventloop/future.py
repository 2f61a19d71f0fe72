"""Future-returning sockets for tornado coroutines (pyzmq's ``zmq.eventloop.future``).

``ctx = future.Context(); sock = ctx.socket(zmq.PULL)`` then, in an
``async def`` or a ``@gen.coroutine``, ``msg = await sock.recv_multipart()``
(``yield`` in a gen.coroutine). Context, Socket and Poller have the API of
`purezmq.asyncio`; what differs is the futures, which follow pyzmq's
tornado flavour:

- tornado 5+'s ``tornado.concurrent.Future`` *is* ``asyncio.Future``, so
  the futures are asyncio futures, usable by tornado (``gen.with_timeout``,
  ``IOLoop.add_future``) and asyncio alike;
- tornado futures once had no cancellation, so pyzmq's ``cancel()`` makes
  the future fail with this module's `CancelledError` (an ordinary
  Exception): ``await`` on a cancelled future raises it, and ``cancelled()``
  reports it. Same here.

Built on purezmq.asyncio, not on the FD as pyzmq is
----------------------------------------------------
Tornado 5+ runs on an asyncio loop, and `purezmq.asyncio` already runs
sockets on the caller's loop with no thread hop and with atomic
cancellation (a cancelled receive loses no message, a cancelled send sends
all of a message or none). So this Socket *is* a purezmq.asyncio Socket;
each future it returns is linked to the asyncio future underneath
(`_link`): results and errors are handed over, and cancelling the outer
future cancels the inner one at once - in the same call, so no message can
reach a receive that was already cancelled. If the inner future already had
its outcome, ``cancel()`` hands it over and returns False, as for any
future that is done. Closing the socket fails its pending futures at once,
as pyzmq's close() does. The link costs one extra future per operation and,
for an operation that had to wait, one loop iteration for the hand-over.

A Socket used on a tornado IOLoop registers itself with it (without
watching anything: purezmq.asyncio wakes the loop itself), so
``IOLoop.close(all_fds=True)`` closes it, as it closes pyzmq's.
"""

from __future__ import annotations

import asyncio
import warnings
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from tornado.ioloop import IOLoop

from purezmq import asyncio as _aio
from purezmq import constants as C
from purezmq.sugar import context as _sync_context
from purezmq.sugar import socket as _sync_socket

_FD = int(C.FD)


class CancelledError(Exception):
    """What a cancelled future of this module fails with (pyzmq's class).

    An ordinary Exception, not asyncio's CancelledError: pyzmq made it when
    tornado futures could not be cancelled, and code catches it by name."""


class _TornadoFuture(_aio._RecvFuture[Any]):
    """A future whose ``cancel()`` fails it with `CancelledError`, linked to
    the purezmq.asyncio future that does the work (see the module docstring).

    It is a ``_RecvFuture``, so a task cancelled just after this future got
    its message gives the message back to the socket."""

    _inner: asyncio.Future[Any] | None = None
    _load: Callable[[Any], Any] | None = None

    def cancel(self, msg: Any | None = None) -> bool:
        if self.done():
            return False
        inner = self._inner
        if inner is not None:
            if inner.done() and not inner.cancelled():
                self._take(inner)  # the outcome is there, only not handed over yet
                return False
            inner.cancel()  # now, so that no message reaches it any more
        self._fail_cancelled()
        return True

    def cancelled(self) -> bool:
        return super().cancelled() or (self.done() and isinstance(self.exception(), CancelledError))

    def _fail_cancelled(self) -> None:
        self.set_exception(CancelledError())
        # A cancellation is not an error somebody forgot to look at.
        self._log_traceback = False

    def _take(self, inner: asyncio.Future[Any]) -> None:
        """Hand `inner`'s outcome over (its done callback)."""
        if self.done():
            # Completed otherwise (a poll's timeout): a message `inner` took
            # goes back to the socket rather than being lost.
            if not inner.cancelled() and inner.exception() is None:
                _give_back(inner)
            return
        if inner.cancelled():
            self._fail_cancelled()
            return
        exc = inner.exception()
        if exc is not None:
            self.set_exception(exc)
            return
        result = inner.result()
        if self._load is not None:
            try:
                result = self._load(result)
            except Exception as e:
                self.set_exception(e)
                return
        self.set_result(result)
        if isinstance(inner, _aio._RecvFuture):
            self._undo, inner._undo = inner._undo, None


def _give_back(inner: asyncio.Future[Any]) -> None:
    if isinstance(inner, _aio._RecvFuture):
        undo, inner._undo = inner._undo, None
        if undo is not None:
            undo()


def _release(outer: asyncio.Future[Any]) -> None:
    """`outer` completed (a poll's timeout, a cancel): its inner future is not needed."""
    inner = getattr(outer, "_inner", None)
    if inner is not None and not inner.done():
        inner.cancel()


def _link(inner: asyncio.Future[Any], load: Callable[[Any], Any] | None = None) -> _TornadoFuture:
    """A tornado-flavoured future for `inner`'s outcome (passed through `load`)."""
    outer = _TornadoFuture(loop=inner.get_loop())
    outer._inner = inner
    outer._load = load
    if inner.done():
        outer._take(inner)
    else:
        inner.add_done_callback(outer._take)
        outer.add_done_callback(_release)
    return outer


class _IOLoopHold:
    """What a tornado IOLoop holds for a Socket: ``close()`` closes the socket.

    Registered with no events, so the IOLoop watches nothing; it only lets
    ``IOLoop.close(all_fds=True)`` close the socket. A weak reference: the
    IOLoop must not keep a forgotten socket alive."""

    __slots__ = ("_socket", "fd")

    def __init__(self, socket: Socket, fd: int) -> None:
        self._socket = weakref.ref(socket)
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        socket = self._socket()
        if socket is not None:
            socket.close()

    def stale(self) -> bool:
        """Its socket is gone or closed (through another object, e.g. a shadow)."""
        socket = self._socket()
        return socket is None or socket.closed


def _evict_stale_hold(io_loop: IOLoop, fd: int) -> bool:
    """Drop a stale `_IOLoopHold` registered under `fd`; True if there was one.

    A Socket closed through another object (a shadow) cannot unregister its
    hold, and its FD's number is then free for the next descriptor; whoever
    registers that number next calls this first."""
    handlers = getattr(io_loop, "handlers", None)
    entry = handlers.get(fd) if isinstance(handlers, dict) else None
    if entry is None or not isinstance(entry[0], _IOLoopHold) or not entry[0].stale():
        return False
    io_loop.remove_handler(fd)
    return True


def _ignore_events(fd: object, events: int) -> None:
    """The handler of an `_IOLoopHold` (registered for no events: never called)."""


class Socket(_aio.Socket):
    """A socket whose operations return tornado-compatible futures.

    Create with ``future.Context().socket(type)``; see the module docstring."""

    _repr_cls = "zmq.eventloop.future.Socket"
    _ioloop_hold: tuple[IOLoop, _IOLoopHold] | None
    #: The futures returned and not done yet: close() fails them at once.
    _pending: set[_TornadoFuture]

    def __init__(
        self,
        context: Any = None,
        socket_type: int = -1,
        io_loop: Any = None,
        _from_socket: _sync_socket.Socket | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(context, _sync_socket.Socket):
            context, _from_socket = None, context
        if io_loop is not None:
            warnings.warn(
                f"{type(self).__name__}(io_loop) argument is deprecated in pyzmq 22.2. "
                "The currently active loop will always be used.",
                DeprecationWarning,
                stacklevel=3,
            )
        self._ioloop_hold = None
        self._pending = set()
        super().__init__(context, socket_type, None, _from_socket, **kwargs)

    # The two places purezmq.asyncio.Socket makes the futures it returns:
    # operations (recv, send, poll...) and their decoding (recv_string, ...).
    def _add(self, kind: int, args: tuple[Any, ...], nonblock: bool) -> asyncio.Future[Any]:
        return self._track(_link(super()._add(kind, args, nonblock)))

    def _chain(self, inner: asyncio.Future[Any], load: Callable[[Any], Any]) -> Any:
        return self._track(_link(inner, load))

    def _track(self, outer: _TornadoFuture) -> _TornadoFuture:
        if not outer.done():
            self._pending.add(outer)
            outer.add_done_callback(self._pending.discard)
        return outer

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        fresh = self._loop is not loop
        super()._attach(loop)
        if fresh:
            self._hold_on(loop)

    def _hold_on(self, loop: asyncio.AbstractEventLoop) -> None:
        """Register with the tornado IOLoop of `loop` (if it is the running one)."""
        self._let_go()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return
        if running is not loop or self.closed:
            return
        io_loop = IOLoop.current()
        hold = _IOLoopHold(self, int(self.get(_FD)))
        try:
            io_loop.add_handler(hold, _ignore_events, 0)
        except ValueError:
            if not _evict_stale_hold(io_loop, hold.fd):
                return  # registered already by someone else: leave theirs alone
            io_loop.add_handler(hold, _ignore_events, 0)
        self._ioloop_hold = (io_loop, hold)

    def _let_go(self) -> None:
        held, self._ioloop_hold = self._ioloop_hold, None
        if held is None:
            return
        io_loop, hold = held
        handlers = getattr(io_loop, "handlers", {})
        entry = handlers.get(hold.fd)
        if entry is not None and entry[0] is hold:
            io_loop.remove_handler(hold.fd)

    def close(self, linger: int | None = None) -> None:
        """Close; pending futures fail with CancelledError at once (as pyzmq's do)."""
        self._let_go()
        if not self.closed:
            for outer in list(self._pending):
                try:
                    outer.cancel()
                except RuntimeError:  # the loop is gone (interpreter teardown)
                    pass
            self._pending.clear()
        super().close(linger)


class Poller(_aio.Poller):
    """``await poller.poll(timeout_ms)``: a tornado-compatible future of the events."""

    def poll(self, timeout: float | None = -1) -> Any:
        return _link(super().poll(timeout))


class Context(_sync_context.Context):
    """A Context whose sockets are this module's Sockets."""

    _socket_class = Socket
    _repr_cls = "zmq.eventloop.future.Context"
    # Its own Context.instance(), not the sync one (pyzmq declares the same).
    _instance: ClassVar[_sync_context.Context | None] = None
    _instance_pid: ClassVar[int | None] = None
    #: pyzmq's class attribute (deprecated there): the current loop is always used.
    io_loop: ClassVar[Any] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        io_loop = kwargs.pop("io_loop", None)
        if io_loop is not None:
            warnings.warn(
                f"{type(self).__name__}(io_loop) argument is deprecated in pyzmq 22.2. "
                "The currently active loop will always be used.",
                DeprecationWarning,
                stacklevel=2,
            )
        super().__init__(*args, **kwargs)


__all__ = ["CancelledError", "Context", "Poller", "Socket"]
