"""ZMQStream: callbacks for a socket's messages on a tornado IOLoop (pyzmq's
``zmq.eventloop.zmqstream``).

``stream = ZMQStream(sock)`` then ``stream.on_recv(callback)``: the callback
gets every message the socket receives (a list of frames: bytes, or Frames
with ``copy=False``); ``stream.send_multipart(msg, callback=...)`` queues a
message, sent when the socket can take it, and reports it to the send
callback. This is pyzmq's public behaviour, kept exactly because programs
(ipykernel and Jupyter, many tornado servers) depend on its details: which
callback runs when, one message per handler round, flush() bypassing the
loop, a closed stream raising OSError, ``stream.socket`` becoming None.

How it is driven, and why
-------------------------
As pyzmq does with libzmq, the stream registers its socket's ``FD`` with the
IOLoop (in tornado 5+, ``add_reader`` on the IOLoop's asyncio loop) and,
when it is readable, reads ``EVENTS`` and handles at most one receive and one
send. purezmq's FD has libzmq's meaning: it becomes readable when EVENTS
*may* have changed, and reading EVENTS resets it. It is edge-triggered, so
after each round (and whenever a callback or send changes what the stream
waits for) the stream looks at EVENTS again and, while work remains,
schedules the next round itself with ``add_callback``.

Building on `purezmq.asyncio` (futures for each receive) was the other
choice; the FD is used because:

- a ZMQStream wraps a plain ``zmq.Socket`` that the program keeps using
  directly (``stream.socket``), from any thread. Making it an asyncio socket
  would move its tcp connections onto the loop and change how the program's
  own blocking calls behave. With the FD, the socket's connections stay on
  the context's I/O thread, exactly as for any other sync socket;
- ZMQStream's callbacks are synchronous: a callback runs in the handler that
  received its message, ``flush()`` runs callbacks before it returns, and
  streams take turns one message at a time. Futures would add a loop
  iteration per message and reorder callbacks against other loop work;
- it works on any IOLoop, including one running in another thread, as
  pyzmq's does (ipykernel runs its streams on a loop of their own thread).

Differences from pyzmq, none visible to a correct program:

- the IOLoop watches a duplicate of the FD (``os.dup``), not the FD itself.
  The socket closes its FD when it is closed - possibly directly or through
  a shadow, behind the stream's back - and an event loop must never watch a
  closed descriptor: uvloop (libuv) aborts the process when it meets one,
  and a recycled number would make the loop watch an unrelated file. The
  duplicate stays valid (it just never fires again) until the stream lets
  it go. It costs one descriptor per stream;
- when the context is terminated while the stream is open, the stream logs
  pyzmq's warning and then stops watching: purezmq's FD stays readable after
  a termination wake-up, and watching it would spin the loop until the
  stream is closed;
- ``on_recv`` always schedules a round (pyzmq: only when a message is
  waiting already), so that a socket closed behind the stream's back is
  noticed on the next iteration;
- the send queue is a deque (pyzmq: a thread-safe Queue, but a stream is not
  thread-safe anyway).
"""

from __future__ import annotations

import asyncio
import os
import pickle
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tornado.ioloop import IOLoop
from tornado.log import gen_log

from purezmq import asyncio as _aio
from purezmq import constants as C
from purezmq.error import Again, ContextTerminated, ZMQError
from purezmq.sugar.poll import Poller
from purezmq.sugar.socket import Socket
from purezmq.sugar.tracker import MessageTracker
from purezmq.utils import jsonapi

_POLLIN = int(C.POLLIN)
_POLLOUT = int(C.POLLOUT)
_NOBLOCK = int(C.NOBLOCK)
_EVENTS = int(C.EVENTS)
_FD = int(C.FD)

#: on_recv's callback: called with the received message (a list of frames).
_RecvCallback = Callable[[list[Any]], object]
#: on_recv_stream's callback: called with the stream and the message.
_RecvStreamCallback = Callable[["ZMQStream", list[Any]], object]
#: on_send's callback: called with the message sent and send_multipart's
#: result (None, a MessageTracker with track=True, or the ZMQError it raised).
_SendCallback = Callable[[Sequence[Any], "MessageTracker | ZMQError | None"], object]
_SendStreamCallback = Callable[
    ["ZMQStream", Sequence[Any], "MessageTracker | ZMQError | None"], object
]


def _check_callable(callback: object) -> None:
    """pyzmq checks with ``assert``; raised explicitly so ``python -O`` keeps it."""
    if callback is not None and not callable(callback):
        raise AssertionError(f"callback must be callable or None, not {callback!r}")


def _ignore(*args: object) -> None:
    """The send callback a send installs when there is none (pyzmq does the same)."""


def _log_async_error(future: asyncio.Future[Any]) -> None:
    """Log what a coroutine callback raised: nobody awaits its task."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None:
        gen_log.error(
            "Uncaught exception in ZMQStream callback",
            exc_info=(type(exc), exc, exc.__traceback__),
        )


class _WatchedFD:
    """What the IOLoop watches for a stream: a duplicate of the socket's FD
    (see the module docstring for why).

    ``close()`` is what ``IOLoop.close(all_fds=True)`` calls: it closes the
    socket, as pyzmq's registration of the socket object itself does, and
    lets the duplicate go. Where descriptors cannot be duplicated (sockets on
    Windows), the FD itself is watched, as pyzmq does."""

    __slots__ = ("_owned", "_socket", "fd")

    def __init__(self, socket: Socket) -> None:
        self._socket = socket
        fd = int(socket.get(_FD))
        try:
            self.fd = os.dup(fd)
            self._owned = True
        except OSError:  # pragma: no cover - Windows socket handles
            self.fd = fd
            self._owned = False

    def fileno(self) -> int:
        return self.fd

    def release(self) -> None:
        """Let the duplicate go (once); the stream has stopped watching it."""
        fd, self.fd = self.fd, -1
        if fd >= 0 and self._owned:
            os.close(fd)

    def close(self) -> None:
        if not self._socket.closed:
            self._socket.close()
        self.release()

    def __del__(self) -> None:
        # A stream dropped without close() after its IOLoop was closed: nobody
        # watches the duplicate any more, so give the descriptor back.
        self.release()


class ZMQStream:
    """Callbacks for what a socket receives and sends, run by a tornado IOLoop.

    - ``on_recv(callback, copy=True)``: call ``callback(msg)`` for every
      message received (``on_recv_stream``: ``callback(stream, msg)``);
      ``on_recv(None)`` / ``stop_on_recv()`` stop receiving, leaving further
      messages in the socket.
    - ``send_multipart(msg, ..., callback=None)`` (and ``send``,
      ``send_string``, ``send_json``, ``send_pyobj``): queue a message; it is
      sent when the socket can take it, then the send callback gets
      ``(msg, status)``. A callback given here replaces the stream's
      ``on_send`` callback.
    - ``flush(flag, limit)``: handle what is pending now, without the loop.
    - ``close(linger)``, ``closed()``, ``set_close_callback(callback)``.

    Callbacks may be coroutine functions (their errors are logged).
    ``bind``, ``connect``, ``bind_to_random_port`` and the get/setsockopt
    methods are the socket's own methods; use ``stream.socket`` for the rest.
    Receive methods are deliberately absent: the stream receives.
    """

    io_loop: IOLoop
    poller: Poller
    bind: Callable[..., Any]
    bind_to_random_port: Callable[..., int]
    connect: Callable[..., Any]
    setsockopt: Callable[..., None]
    getsockopt: Callable[..., Any]
    setsockopt_string: Callable[..., None]
    getsockopt_string: Callable[..., str]
    setsockopt_unicode: Callable[..., None]
    getsockopt_unicode: Callable[..., str]

    def __init__(self, socket: Socket, io_loop: IOLoop | None = None) -> None:
        if isinstance(socket, _aio.Socket):
            warnings.warn(
                "ZMQStream only supports the base zmq.Socket class. Use "
                "zmq.Socket(shadow=other_socket) or ctx.socket(zmq."
                f"{socket._type_name}, socket_class=zmq.Socket) to create a base "
                "zmq.Socket object, no matter what other kind of socket your "
                "Context creates.",
                RuntimeWarning,
                stacklevel=2,
            )
            # An asyncio socket wakes its loop with callbacks, and signals its
            # FD only once somebody has asked for it: ask, since the stream
            # waits on the FD. Then shadow it as a plain socket, so callbacks
            # get lists of frames, not futures (pyzmq does the same).
            socket.fileno()
            socket = Socket(shadow=socket)
        self._socket: Socket | None = socket
        self.io_loop = io_loop or IOLoop.current()
        self.poller = Poller()
        #: The socket's FD number (pyzmq's attribute; named in close()'s warning).
        self._fd: int = int(socket.get(_FD))
        self._send_queue: deque[tuple[Sequence[Any], dict[str, Any]]] = deque()
        self._recv_callback: Callable[[list[Any]], object] | None = None
        self._send_callback: Callable[..., object] | None = None
        self._close_callback: Callable[[], object] | None = None
        self._recv_copy = False
        #: True for the rest of a loop iteration in which flush() handled
        #: something: the loop's own handlers then skip (pyzmq's rule).
        self._flushed = False
        #: What the stream waits for: POLLIN while receiving, POLLOUT while
        #: messages are queued.
        self._state = 0
        self._watched = _WatchedFD(socket)
        self._init_io_state()
        # pyzmq links these socket methods onto the stream.
        self.bind = socket.bind
        self.bind_to_random_port = socket.bind_to_random_port
        self.connect = socket.connect
        self.setsockopt = socket.setsockopt
        self.getsockopt = socket.getsockopt
        self.setsockopt_string = socket.setsockopt_string
        self.getsockopt_string = socket.getsockopt_string
        self.setsockopt_unicode = socket.setsockopt_unicode
        self.getsockopt_unicode = socket.getsockopt_unicode

    # ------------------------------------------------------------ the socket
    @property
    def socket(self) -> Socket:
        """The stream's socket; None once the stream is closed.

        Typed as a Socket, as in pyzmq, so that code using an open stream
        needs no None checks; a closed stream's methods raise OSError."""
        return self._socket  # type: ignore[return-value]

    @socket.setter
    def socket(self, value: Socket | None) -> None:
        self._socket = value

    # ------------------------------------------------------------ callbacks
    def on_recv(self, callback: _RecvCallback | None, copy: bool = True) -> None:
        """Call ``callback(msg)`` with each message received; None stops receiving.

        One callback at a time: a new one replaces the old. With
        ``copy=False`` the message's frames are `zmq.Frame` objects.
        """
        self._check_closed()
        _check_callable(callback)
        self._recv_callback = callback
        self._recv_copy = copy
        if callback is None:
            self._drop_io_state(_POLLIN)
        else:
            # pyzmq schedules a round only if EVENTS shows a message already;
            # this always does. The difference is one empty round when nothing
            # is pending, and it makes sure a socket closed behind the stream's
            # back (through a shadow) is noticed on the next loop iteration:
            # its FD, closed with it, will never fire.
            self._state |= _POLLIN
            self.io_loop.add_callback(self._handle_events_later)

    def on_recv_stream(self, callback: _RecvStreamCallback | None, copy: bool = True) -> None:
        """As on_recv, but the callback is called as ``callback(stream, msg)``,
        so one callback can serve several streams."""
        if callback is None:
            self.stop_on_recv()
            return
        _check_callable(callback)

        def stream_callback(msg: list[Any]) -> object:
            return callback(self, msg)

        self.on_recv(stream_callback, copy=copy)

    def on_send(self, callback: _SendCallback | None) -> None:
        """Call ``callback(msg, status)`` after each queued message is sent.

        `status` is what ``socket.send_multipart`` returned (None, or a
        MessageTracker with ``track=True``), or the ZMQError it raised.
        """
        self._check_closed()
        _check_callable(callback)
        self._send_callback = callback

    def on_send_stream(self, callback: _SendStreamCallback | None) -> None:
        """As on_send, but called as ``callback(stream, msg, status)``."""
        if callback is None:
            self.stop_on_send()
            return
        _check_callable(callback)

        def stream_callback(msg: Sequence[Any], status: MessageTracker | ZMQError | None) -> object:
            return callback(self, msg, status)

        self.on_send(stream_callback)

    def stop_on_recv(self) -> None:
        """Stop receiving (and calling the receive callback)."""
        self.on_recv(None)

    def stop_on_send(self) -> None:
        """Stop calling the send callback (queued messages are still sent)."""
        self.on_send(None)

    def on_err(self, callback: Callable[..., object] | None) -> None:
        """Deprecated in pyzmq and does nothing there either (it logs a warning)."""
        gen_log.warning("on_err does nothing, and will be removed")

    def stop_on_err(self) -> None:
        """Deprecated in pyzmq and does nothing there either (it logs a warning)."""
        gen_log.warning("on_err does nothing, and will be removed")

    def set_close_callback(self, callback: Callable[[], object] | None) -> None:
        """Call ``callback()`` when the stream is closed."""
        self._close_callback = callback

    # ------------------------------------------------------------ sending
    def send(
        self,
        msg: Any,
        flags: int = 0,
        copy: bool = True,
        track: bool = False,
        callback: _SendCallback | None = None,
        **kwargs: Any,
    ) -> None:
        """Queue a one-frame message (see send_multipart)."""
        self.send_multipart([msg], flags=flags, copy=copy, track=track, callback=callback, **kwargs)

    def send_multipart(
        self,
        msg: Sequence[Any],
        flags: int = 0,
        copy: bool = True,
        track: bool = False,
        callback: _SendCallback | None = None,
        **kwargs: Any,
    ) -> None:
        """Queue a message, sent in order when the socket can take it.

        `callback`, if given, becomes the stream's send callback (as if
        passed to on_send) and is called with ``(msg, status)`` once the
        message is sent. Nothing is sent before the loop runs (or flush()).
        """
        self._check_closed()
        kwargs.update(flags=flags, copy=copy, track=track)
        self._send_queue.append((msg, kwargs))
        callback = callback or self._send_callback
        self.on_send(callback if callback is not None else _ignore)
        self._add_io_state(_POLLOUT)

    def send_string(
        self,
        u: str,
        flags: int = 0,
        encoding: str = "utf-8",
        callback: _SendCallback | None = None,
        **kwargs: Any,
    ) -> None:
        """Queue `u` encoded with `encoding` (TypeError if it is not a str)."""
        if not isinstance(u, str):
            raise TypeError("unicode/str objects only")
        self.send(u.encode(encoding), flags=flags, callback=callback, **kwargs)

    send_unicode = send_string

    def send_json(
        self, obj: Any, flags: int = 0, callback: _SendCallback | None = None, **kwargs: Any
    ) -> None:
        """Queue `obj` as JSON (UTF-8)."""
        self.send(jsonapi.dumps(obj), flags=flags, callback=callback, **kwargs)

    def send_pyobj(
        self,
        obj: Any,
        flags: int = 0,
        protocol: int = -1,
        callback: _SendCallback | None = None,
        **kwargs: Any,
    ) -> None:
        """Queue `obj` pickled with `protocol`."""
        self.send(pickle.dumps(obj, protocol), flags, callback=callback, **kwargs)

    # ------------------------------------------------------------ flush
    def flush(self, flag: int = _POLLIN | _POLLOUT, limit: int | None = None) -> int:
        """Handle pending messages now, without waiting for the loop; return how many.

        With POLLIN in `flag`, messages waiting in the socket are received and
        given to the receive callback - and received and dropped if there is
        none, so flush(POLLIN) also discards. With POLLOUT, queued messages
        are sent. It stops when nothing matching `flag` is pending or when
        `limit` messages (received and sent together) have been handled.
        The stream's own loop handlers then skip the rest of this loop
        iteration, so nothing is handled twice.
        """
        self._check_closed()
        was_flushed = self._flushed
        self._flushed = False  # the handlers must run inside this flush
        count = 0
        events = self._flush_events(flag)
        while events and (not limit or count < limit):
            if events & _POLLIN:
                self._handle_recv()
                count += 1
                if self._socket is None:
                    break  # a callback closed the stream
            if events & _POLLOUT and self.sending():
                self._handle_send()
                count += 1
                if self._socket is None:
                    break
            events = self._flush_events(flag)
        if count:
            self._flushed = True
            if not was_flushed:
                self.io_loop.add_callback(self._finish_flush)
        elif was_flushed:
            self._flushed = True
        self._rebuild_io_state()
        return count

    def _flush_events(self, flag: int) -> int:
        """The events flush() may handle now (POLLOUT only with messages queued)."""
        socket = self._socket
        if socket is None:
            return 0
        want = flag & _POLLIN
        if flag & _POLLOUT and self.sending():
            want |= _POLLOUT
        if not want:
            return 0
        self.poller.register(socket, want)
        ready = dict(self.poller.poll(0))
        return int(ready.get(socket, 0))

    def _finish_flush(self) -> None:
        """Next loop iteration: the handlers may run again."""
        self._flushed = False

    # ------------------------------------------------------------ state
    def receiving(self) -> bool:
        """Whether the stream receives (a receive callback is set)."""
        return self._recv_callback is not None

    def sending(self) -> bool:
        """Whether messages are queued to send."""
        return bool(self._send_queue)

    def closed(self) -> bool:
        """Whether the stream is closed; closes it if its socket was closed elsewhere."""
        socket = self._socket
        if socket is None:
            return True
        if socket.closed:
            self.close()  # the socket was closed directly, not through the stream
            return True
        return False

    def close(self, linger: int | None = None) -> None:
        """Stop watching the socket, close it (with `linger`) and call the close callback."""
        socket = self._socket
        if socket is None:
            return
        self._unwatch()
        if socket.closed:
            warnings.warn(
                f"Unregistering FD {self._fd} after closing socket. "
                "Please use stream.close() instead of closing the socket directly.",
                stacklevel=2,
            )
        else:
            socket.close(linger)
        self._socket = None
        if self._close_callback is not None:
            self._run_callback(self._close_callback)

    def _check_closed(self) -> None:
        if self._socket is None:
            raise OSError("Stream is closed")

    # ------------------------------------------------------------ callbacks
    def _run_callback(self, callback: Callable[..., object], *args: Any) -> None:
        """Run a user callback: log its exception (and re-raise it, so that the
        loop reports it too); a coroutine's task gets its errors logged."""
        try:
            result = callback(*args)
        except Exception:
            gen_log.error("Uncaught exception in ZMQStream callback", exc_info=True)
            raise
        if isinstance(result, Awaitable):
            loop = getattr(self.io_loop, "asyncio_loop", None)
            task = asyncio.ensure_future(result, loop=loop)
            task.add_done_callback(_log_async_error)

    # ------------------------------------------------------------ the loop's handler
    def _handle_events(self, fd: object = None, events: int = 0) -> None:
        """The IOLoop's handler for the FD: one receive and one send per round."""
        socket = self._socket
        if socket is None:
            gen_log.warning("Got events for closed stream %s", self)
            return
        try:
            zmq_events = int(socket.get(_EVENTS))
        except ContextTerminated:
            gen_log.warning("Got events for stream %s after terminating context", self)
            if not self.closed():
                # Closing the socket is the application's job; stop watching a
                # descriptor that stays readable until it does.
                self._unwatch()
            return
        except ZMQError as e:
            # A shadow socket may have been closed elsewhere (ENOTSOCK).
            if self.closed():
                gen_log.warning("Got events for stream %s attached to closed socket: %s", self, e)
            else:
                gen_log.error("Error getting events for %s: %s", self, e)
            return
        try:
            if zmq_events & _POLLIN and self.receiving():
                self._handle_recv()
                if self._socket is None:
                    return
            if zmq_events & _POLLOUT and self.sending():
                self._handle_send()
                if self._socket is None:
                    return
            self._rebuild_io_state()
        except Exception:
            gen_log.error("Uncaught exception in zmqstream callback", exc_info=True)
            raise

    def _handle_events_later(self) -> None:
        self._handle_events(self._socket, 0)

    def _handle_recv(self) -> None:
        if self._flushed:
            return
        socket = self._socket
        assert socket is not None
        try:
            msg = socket.recv_multipart(_NOBLOCK, copy=self._recv_copy)
        except Again:
            return  # taken meanwhile (the events were a hint)
        callback = self._recv_callback
        if callback is not None:
            self._run_callback(callback, msg)

    def _handle_send(self) -> None:
        if self._flushed:
            return
        if not self._send_queue:
            gen_log.error("Shouldn't have handled a send event")
            return
        socket = self._socket
        assert socket is not None
        msg, kwargs = self._send_queue.popleft()
        status: MessageTracker | ZMQError | None
        try:
            status = socket.send_multipart(msg, **kwargs)
        except ZMQError as e:
            gen_log.error("SEND Error: %s", e)
            status = e
        callback = self._send_callback
        if callback is not None:
            self._run_callback(callback, msg, status)

    # ------------------------------------------------------------ watching
    def _init_io_state(self) -> None:
        """Watch the FD (its duplicate: see `_WatchedFD`)."""
        watched = self._watched
        try:
            self.io_loop.add_handler(watched, self._handle_events, IOLoop.READ)
        except ValueError:
            # Its number is registered already: a future Socket closed through
            # a shadow may have left its registration behind; drop it, retry.
            from .future import _evict_stale_hold

            if not _evict_stale_hold(self.io_loop, watched.fd):
                watched.release()
                raise
            self.io_loop.add_handler(watched, self._handle_events, IOLoop.READ)

    def _unwatch(self) -> None:
        """Stop watching the FD and let the duplicate go (once)."""
        watched = self._watched
        if watched.fd >= 0:
            try:
                self.io_loop.remove_handler(watched.fd)
            except RuntimeError:  # its asyncio loop was closed under it
                pass
            watched.release()

    def _rebuild_io_state(self) -> None:
        """Recompute what the stream waits for (after a round or a flush)."""
        if self._socket is None:
            return
        state = 0
        if self.receiving():
            state |= _POLLIN
        if self.sending():
            state |= _POLLOUT
        self._state = state
        self._update_handler(state)

    def _add_io_state(self, state: int) -> None:
        self._state |= state
        self._update_handler(self._state)

    def _drop_io_state(self, state: int) -> None:
        self._state &= ~state
        self._update_handler(self._state)

    def _update_handler(self, state: int) -> None:
        """The FD is edge-triggered: if what we wait for is ready already, it
        will not fire for it, so schedule a round now."""
        socket = self._socket
        if socket is None:
            return
        if state & int(socket.get(_EVENTS)):
            self.io_loop.add_callback(self._handle_events_later)


__all__ = ["ZMQStream"]
