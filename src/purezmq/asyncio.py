"""purezmq.asyncio: sockets whose operations are awaitable, as `zmq.asyncio`.

``import purezmq.asyncio as zmq_asyncio`` (or, through a drop-in shim,
``zmq.asyncio``) gives Context, Socket and Poller with pyzmq's asyncio API:
``await sock.recv()``, ``await sock.send_multipart(...)``, ``await poller.poll()``.

Unlike pyzmq, which watches a C library's descriptor from the loop, purezmq
runs the sockets' connections on the loop itself: when a socket binds or
connects inside a running loop, its tcp/ipc connections are read and written
by that loop (`purezmq._io.aio`), with the same sessions the threaded driver
uses - no I/O thread and no thread hop on the message path. Endpoints made
outside a running loop use the context's I/O thread, and still work.

Every operation returns a Future at once (pyzmq does the same): it is tried
immediately and, if it would block, queued in order and retried when the
socket signals a change. A message read by the loop completes the waiting
future within the readiness callback that read it (`AsyncioReactor.defer`),
so a round trip costs the loop two iterations: the reply's arrival, and the
task that awaited it. Cancellation loses nothing: a cancelled receive
leaves its message for the next one (even when the cancellation lands after
the message was taken, see `_RecvFuture`), and a cancelled send has sent the
whole message or none of it.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import pickle
import threading
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from purezmq import constants as C
from purezmq._io.aio import AsyncioDriver, AsyncioReactor, LoopWaker, loop_supports_readers
from purezmq._io.aio.ops import (
    POLL,
    RECV,
    RECV_MULTIPART,
    SEND,
    SEND_MULTIPART,
    OpQueue,
    RecvFuture,
)
from purezmq.error import ZMQError
from purezmq.sugar import context as _sync_context
from purezmq.sugar import poll as _sync_poll
from purezmq.sugar import socket as _sync_socket
from purezmq.sugar.frame import Frame

_NOBLOCK = int(C.NOBLOCK)
_POLLIN = int(C.POLLIN)
_POLLOUT = int(C.POLLOUT)

#: The receive futures (pyzmq's tests and `_chain` look at them): compiled.
_RecvFuture = RecvFuture


class Socket(_sync_socket.Socket):
    """An asyncio socket (see the module docstring). Create with Context.socket()."""

    _repr_cls = "zmq.asyncio.Socket"
    _loop: asyncio.AbstractEventLoop | None
    _loop_thread: int
    _q: OpQueue
    _fd_users: bool
    _reactor: AsyncioReactor | None

    def __init__(
        self,
        context: Any = None,
        socket_type: int = -1,
        io_loop: asyncio.AbstractEventLoop | None = None,
        _from_socket: _sync_socket.Socket | None = None,
        **kwargs: Any,
    ) -> None:
        if _from_socket is not None:
            super().__init__(shadow=_from_socket, **kwargs)
        else:
            super().__init__(context, socket_type, **kwargs)
        object.__setattr__(self, "_loop", None)
        object.__setattr__(self, "_loop_thread", 0)
        object.__setattr__(
            self,
            "_q",
            OpQueue(
                self._core,
                self._get_loop,
                _sync_socket.Socket.send.__get__(self),
                _sync_socket.Socket.send_multipart.__get__(self),
                self._frames,
            ),
        )
        object.__setattr__(self, "_reactor", None)
        if type(self)._add is Socket._add:
            # Every operation calls `self._add` (a send, `self._send_op`):
            # the queue's own compiled methods, found in the instance, save
            # an interpreted call. A subclass that wraps `_add`
            # (zmq.eventloop.future) keeps its own, and its sends go there too.
            object.__setattr__(self, "_add", self._q.add)
            object.__setattr__(self, "_send_op", self._q.send)
        # A shadowed sync socket still blocks on the FD: keep signalling it.
        object.__setattr__(self, "_fd_users", _from_socket is not None)
        if io_loop is not None:
            self._attach(io_loop)
        else:
            try:
                self._attach(asyncio.get_running_loop())
            except RuntimeError:
                pass  # attached on first use inside a loop

    @classmethod
    def from_socket(cls, socket: _sync_socket.Socket, io_loop: Any = None) -> Socket:
        """An asyncio Socket sharing `socket`'s underlying socket."""
        return cls(_from_socket=socket, io_loop=io_loop)

    # ------------------------------------------------------------ the loop
    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        object.__setattr__(self, "_loop", loop)
        self._q.loop = loop
        object.__setattr__(self, "_loop_thread", threading.get_ident())
        core = self._core
        if loop_supports_readers(loop):
            driver = _driver_for(self.context, loop)
            core.driver = driver
            object.__setattr__(self, "_reactor", driver.reactor)
        else:
            object.__setattr__(self, "_reactor", None)
        self._install_waker()

    def _get_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = asyncio.get_running_loop()
            self._attach(loop)
        return loop

    def _install_waker(self) -> None:
        """Woken by the loop's own read (the usual case), the socket is
        serviced as soon as that handler returns, not an iteration later
        (`LoopWaker`, compiled); FD users need `_core_woke` every time."""
        reactor = self._reactor
        if reactor is None or self._fd_users:
            self._core.set_waker(self._core_woke)
        else:
            self._core.set_waker(LoopWaker(reactor, self._q.service, self._core_woke).wake)

    def _core_woke(self) -> None:
        """The core's owner must look (any thread; the core holds its post lock)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self._core.signal_fd()
            return
        if threading.get_ident() == self._loop_thread:
            self._q.schedule_service()
        else:
            try:
                loop.call_soon_threadsafe(self._q.service)
            except RuntimeError:
                pass
        if self._fd_users:
            self._core.signal_fd()

    def fileno(self) -> int:
        """The FD (for external event loops); readable when EVENTS may change."""
        if not self._fd_users:
            object.__setattr__(self, "_fd_users", True)
            self._install_waker()
        return super().fileno()

    # ------------------------------------------------------------ operations
    def _add(self, kind: int, args: tuple[Any, ...], nonblock: bool) -> asyncio.Future[Any]:
        """Start an operation (`OpQueue.add`): a subclass's hook."""
        return self._q.add(kind, args, nonblock)

    def _send_op(self, data: Any, flags: int, copy: object, track: object) -> Any:
        """A send, through `_add` (a subclass's hook; see `__init__`)."""
        return self._add(SEND, (data, flags, copy, track), bool(flags & _NOBLOCK))

    # The queue of operations is compiled (`purezmq._io.aio.ops`); what it
    # needs of the facade - Frames - comes from here.
    def _frames(self, data: Any, more: bool, whole: bool) -> Any:
        """A copy=False receive's Frame (or, `whole`, its list of Frames)."""
        core = self._core
        meta = core.last_metadata
        rid, group = core.pattern.last_address()
        if whole:
            last = len(data) - 1
            return [Frame._received(f, i < last, meta, rid, group) for i, f in enumerate(data)]
        return Frame._received(data, more, meta, rid, group)

    # ------------------------------------------------------------ pyzmq API
    def recv(self, flags: int = 0, copy: object = True, track: object = False) -> Any:
        """Receive a frame: a Future of bytes (or of a Frame with copy=False)."""
        return self._add(RECV, (flags, copy, track), bool(flags & _NOBLOCK))

    def recv_multipart(self, flags: int = 0, copy: bool = True, track: bool = False) -> Any:
        """Receive a whole message: a Future of its list of frames."""
        return self._add(RECV_MULTIPART, (flags, copy, track), bool(flags & _NOBLOCK))

    def send(
        self,
        data: Any,
        flags: int = 0,
        copy: object = True,
        track: object = False,
        routing_id: object = None,
        group: object = None,
    ) -> Any:
        """Send a frame: a Future, done once the socket accepted it."""
        if routing_id is not None or group is not None:  # draft types: as pyzmq does
            if not isinstance(data, Frame):
                data = Frame(data, copy=bool(copy) or None)
            if routing_id is not None:
                data.routing_id = routing_id
            if group is not None:
                data.group = group
        return self._send_op(data, flags, copy, track)

    def send_multipart(
        self,
        msg_parts: Sequence[Any],
        flags: int = 0,
        copy: bool = True,
        track: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Send a whole message: a Future; all parts go, or (cancelled) none."""
        args = (list(msg_parts), flags, copy, track, kwargs)
        return self._add(SEND_MULTIPART, args, bool(flags & _NOBLOCK))

    def recv_into(self, buffer: Any, /, *, nbytes: int = 0, flags: int = 0) -> Any:
        """Receive a frame into `buffer`: a Future of the frame's full size."""
        view = memoryview(buffer).cast("B")
        limit = len(view) if nbytes == 0 else min(nbytes, len(view))

        def fill(frame: bytes) -> int:
            n = min(len(frame), limit)
            view[:n] = frame[:n]
            return len(frame)

        return self._chain(self.recv(flags), fill)

    def recv_string(self, flags: int = 0, encoding: str = "utf-8") -> Any:
        return self._chain(self.recv(flags), lambda b: b.decode(encoding))

    recv_unicode = recv_string

    def recv_json(self, flags: int = 0, **kwargs: Any) -> Any:
        return self._chain(self.recv(flags), lambda b: json.loads(b, **kwargs))

    def recv_pyobj(self, flags: int = 0) -> Any:
        return self._chain(self.recv(flags), pickle.loads)

    def recv_serialized(
        self, deserialize: Callable[[list[Any]], Any], flags: int = 0, copy: bool = True
    ) -> Any:
        return self._chain(self.recv_multipart(flags, copy=copy), deserialize)

    def _chain(self, inner: asyncio.Future[Any], load: Callable[[Any], Any]) -> Any:
        """A future for `load(inner's result)` that keeps cancellation atomic."""
        loop = self._get_loop()
        outer: RecvFuture[Any] = RecvFuture(loop=loop)

        def done(f: asyncio.Future[Any]) -> None:
            if outer.done():
                if not f.cancelled() and f.exception() is None and isinstance(f, _RecvFuture):
                    undo = f._undo
                    if undo is not None:
                        undo()  # the caller is gone: the message stays in the socket
                return
            if f.cancelled():
                outer.cancel()
                return
            exc = f.exception()
            if exc is not None:
                outer.set_exception(exc)
                return
            try:
                outer.set_result(load(f.result()))
            except Exception as e:
                outer.set_exception(e)
            else:
                if isinstance(f, _RecvFuture):
                    outer._undo = f._undo

        def cancel_inner(o: asyncio.Future[Any]) -> None:
            if o.cancelled() and not inner.done():
                inner.cancel()

        inner.add_done_callback(done)
        outer.add_done_callback(cancel_inner)
        return outer

    def poll(self, timeout: int | None = None, flags: int = C.POLLIN) -> Any:
        """A Future of the socket's events among `flags` (0 after `timeout` ms)."""
        if self.closed:
            raise ZMQError(errno.ENOTSUP, "Socket is closed")
        loop = self._get_loop()
        fut = self._add(POLL, (int(flags),), False)
        if timeout is not None and timeout >= 0 and not fut.done():
            if timeout == 0:
                fut.set_result(0)  # nothing ready now: a zero timeout answers at once
                return fut
            handle = loop.call_later(timeout / 1000.0, _resolve, fut, 0)
            fut.add_done_callback(lambda f: handle.cancel())
        return fut

    @property
    def _recv_futures(self) -> list[asyncio.Future[Any]]:
        """Pending receives and polls (pyzmq's name; its tests look at it)."""
        return self._q.futures(1, False)

    @property
    def _send_futures(self) -> list[asyncio.Future[Any]]:
        """Pending sends (pyzmq's name)."""
        return self._q.futures(1, True)

    def close(self, linger: int | None = None) -> None:
        """Close; pending futures are cancelled (as pyzmq), saying why."""
        if not self.closed:
            ops = self._q.ops
            for op in list(ops):
                if not op.future.done():
                    try:
                        op.future.cancel(msg="purezmq: the socket was closed")
                    except RuntimeError:  # the loop is gone (interpreter teardown)
                        pass
            ops.clear()
        core = self._core
        was_open = not core.closed
        super().close(linger)
        if was_open and core.driver is not None and core.live_sessions():
            # Messages still to deliver: the loop may stop, or term() may block
            # its thread, so the context's I/O thread takes over the delivery.
            core.hand_over(core.ctx.driver())


def _resolve(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)


#: The loop driver of each (context core, loop): made on first use.
_DRIVERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, AsyncioDriver]] = (
    weakref.WeakKeyDictionary()
)


def _driver_for(context: Any, loop: asyncio.AbstractEventLoop) -> AsyncioDriver:
    per_loop = _DRIVERS.setdefault(loop, {})
    key = id(context._core)
    driver = per_loop.get(key)
    if driver is None:
        driver = per_loop[key] = AsyncioDriver(loop)
    return driver


class Context(_sync_context.Context):
    """A Context whose sockets are asyncio sockets."""

    _socket_class = Socket
    _repr_cls = "zmq.asyncio.Context"
    # Its own Context.instance(), not the sync one (pyzmq declares the same).
    _instance: ClassVar[_sync_context.Context | None] = None
    _instance_pid: ClassVar[int | None] = None

    def __init__(self, io_threads: Any = 1, shadow: Any = 0) -> None:
        super().__init__(io_threads, shadow)


class Poller(_sync_poll.Poller):
    """`await poller.poll(timeout_ms)` over sockets (async or not) and fds."""

    def poll(self, timeout: float | None = None) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[tuple[Any, int]]] = loop.create_future()
        ready = _sync_poll.zmq_poll(self.sockets, 0)
        if ready or (timeout is not None and timeout == 0):
            future.set_result(ready)
            return future
        watchers: list[Callable[[], None]] = []

        def check() -> None:
            if future.done():
                return
            try:
                now = _sync_poll.zmq_poll(self.sockets, 0)
            except Exception as e:
                future.set_exception(e)
                return
            if now:
                future.set_result(now)

        for obj, flags in self.sockets:
            watchers.append(_watch(loop, obj, int(flags), check))
        if timeout is not None and timeout > 0:
            handle = loop.call_later(timeout / 1000.0, _resolve, future, [])
            watchers.append(handle.cancel)

        def cleanup(_: asyncio.Future[Any]) -> None:
            for stop in watchers:
                stop()

        future.add_done_callback(cleanup)
        return future


def _watch(
    loop: asyncio.AbstractEventLoop, obj: Any, flags: int, check: Callable[[], None]
) -> Callable[[], None]:
    """Call `check` when `obj` may have become ready; returns how to stop."""
    if isinstance(obj, Socket) and obj._loop is loop:
        fut = obj.poll(None, flags or _POLLIN | _POLLOUT)
        fut.add_done_callback(lambda f: check())

        def stop_poll() -> None:
            if not fut.done():
                fut.cancel()

        return stop_poll
    fd = obj.fileno() if hasattr(obj, "fileno") else int(obj)
    if hasattr(obj, "_core"):  # another socket: its FD says "look again"
        # Watch a duplicate: the socket closes its FD when it is closed, maybe
        # while this poll is pending, and a loop must never watch a closed
        # descriptor (uvloop aborts the process; a recycled number would be
        # watched for an unrelated file). The duplicate just never fires again.
        dup = os.dup(fd)
        loop.add_reader(dup, check)

        def stop_reading() -> None:
            loop.remove_reader(dup)
            os.close(dup)

        return stop_reading
    if flags & _POLLIN:
        loop.add_reader(fd, check)
    if flags & _POLLOUT:
        loop.add_writer(fd, check)

    def stop() -> None:
        if flags & _POLLIN:
            loop.remove_reader(fd)
        if flags & _POLLOUT:
            loop.remove_writer(fd)

    return stop


class ZMQEventLoop(asyncio.SelectorEventLoop):
    """pyzmq's old event loop class: any loop works now (deprecated there too)."""

    def __init__(self, selector: Any = None) -> None:
        warnings.warn(
            "ZMQEventLoop is deprecated: purezmq.asyncio works with any selector loop",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(selector)


def install() -> None:
    """pyzmq's old loop installer: nothing to install (deprecated there too)."""
    warnings.warn(
        "purezmq.asyncio.install() is not needed: any selector event loop works",
        DeprecationWarning,
        stacklevel=2,
    )


__all__ = ["Context", "Poller", "Socket", "ZMQEventLoop", "install"]
