"""Socket: pyzmq's socket API over purezmq's SocketCore."""

from __future__ import annotations

import errno
import json
import pickle
import random
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from purezmq import constants as C
from purezmq._core.receiving import routing_error
from purezmq._core.socket_core import SocketCore
from purezmq._routing.errors import RoutingError
from purezmq._routing.patterns import Addressed
from purezmq.error import ZMQBindError, ZMQError

from ._socketbase import SocketBase, _addr, _at_endpoint, _SocketContext
from .attrsettr import AttributeSetter
from .frame import Frame, _group_bytes, _tracked_view
from .tracker import MessageTracker, _done_tracker

if TYPE_CHECKING:
    from .context import Context

# Plain ints: `flags & IntFlag` would dispatch to the enum's reflected
# operator, which costs microseconds per message on the hot path.
_NOBLOCK = int(C.NOBLOCK)
_SNDMORE = int(C.SNDMORE)
_SUBSCRIBE = int(C.SUBSCRIBE)
_UNSUBSCRIBE = int(C.UNSUBSCRIBE)
_T = TypeVar("_T")

#: Options whose value is a bytes string (the rest are ints).
_BYTES_OPTIONS = frozenset(
    o
    for o in C.SocketOption
    if getattr(o, "_opt_type", None) is not None and o._opt_type.name == "bytes"
)


def _frame_data(data: Any, copy: bool) -> Any:
    """What goes into the pipe for one frame the application sends.

    bytes are immutable, so they are always sent by reference. Other buffers
    are copied unless `copy=False`, in which case the application promises
    not to modify them until the tracker says they are sent."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, Frame):
        return data._data
    if isinstance(data, str):
        raise TypeError("unicode not allowed, use send_string")
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(
            f"Expected bytes, a buffer, or a Frame; got {type(data).__name__}: {data!r}"
        ) from None
    if not view.c_contiguous:
        raise ValueError("Message buffers must be contiguous")
    if copy:
        return view.tobytes()
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


class Socket(SocketBase, AttributeSetter):
    """A ZeroMQ socket with pyzmq's interface (create it with `Context.socket`).

    `send` and `recv` of one frame come from `SocketBase` (compiled where
    the build compiles); their general cases and everything else are here."""

    context: Context
    copy_threshold: int
    _shadow: bool
    _repr_cls = "zmq.Socket"

    def __new__(
        cls, ctx_or_socket: Any = None, socket_type: int = 0, *args: Any, **kwargs: Any
    ) -> Any:
        # libzmq's thread-safe (draft) types get a Socket that serialises
        # calls from several threads; subclasses (asyncio, user classes) are
        # left as they are.
        klass = cls
        if cls is Socket and socket_type in _THREAD_SAFE_TYPES:
            from .threadsafe import ThreadSafeSocket

            klass = ThreadSafeSocket
        return SocketBase.__new__(klass)  # not super(): a new object per socket

    def __init__(
        self,
        ctx_or_socket: Any = None,
        socket_type: int = 0,
        *,
        shadow: Any = 0,
        copy_threshold: int | None = None,
    ) -> None:
        if isinstance(ctx_or_socket, Socket) and not shadow:
            shadow, ctx_or_socket = ctx_or_socket, None
        threshold = C.COPY_THRESHOLD if copy_threshold is None else copy_threshold
        if shadow:
            # A Socket object, or the address from `underlying` (an int).
            if isinstance(shadow, Socket):
                found: tuple[SocketCore, Context] | None = (shadow._core, shadow.context)
            else:
                found = _open_at(shadow)
            if found is None:
                raise ZMQError(errno.EINVAL, f"No purezmq socket to shadow at {shadow!r}")
            self._bind_core(found[0], found[1], threshold, shadow)
        else:
            if ctx_or_socket is None:
                raise TypeError("Socket needs a Context; use ctx.socket(type)")
            core = ctx_or_socket._core.socket(socket_type)
            self._bind_core(core, ctx_or_socket, threshold, None)
            ctx_or_socket._add_socket(self)

    _core: SocketCore
    _monitor_socket: Socket | None

    def __copy__(self, memo: Any = None) -> Socket:
        """A copy of a Socket is a shadow of it (the same underlying socket)."""
        return type(self).shadow(self.underlying)

    __deepcopy__ = __copy__

    def __setattr__(self, key: str, value: Any) -> None:
        # `s.subscribe = b"topic"` sets the option although subscribe() is a method.
        if key in ("subscribe", "unsubscribe") and key not in self.__dict__:
            if isinstance(value, str):
                value = value.encode("utf-8")
            self.set(C.SUBSCRIBE if key == "subscribe" else C.UNSUBSCRIBE, value)
            return
        super().__setattr__(key, value)

    def _attr_option_names(self) -> list[str]:
        return list(C.SocketOption.__members__)

    # ------------------------------------------------------------ basics
    @property
    def underlying(self) -> int:
        """An integer identifying the underlying socket (for `shadow`)."""
        return id(self._core)

    @property
    def closed(self) -> bool:
        return self._core.closed

    @property
    def socket_type(self) -> int:
        return self._core.type

    @property
    def _type_name(self) -> str:
        return self._core.type_name

    def __repr__(self) -> str:
        cls = type(self)
        name = cls.__dict__.get("_repr_cls") or f"{cls.__module__}.{cls.__name__}"
        closed = " closed" if self.closed else ""
        return f"<{name}(zmq.{self._core.type_name}) at {hex(id(self))}{closed}>"

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            core = self._core
        except AttributeError:
            return
        if sys.is_finalizing():
            # The interpreter is shutting down: the I/O thread (a daemon) may be
            # frozen holding one of this socket's locks, so closing could hang
            # the exit. The OS reclaims the descriptors; unsent messages are
            # lost, as with libzmq when a process exits without terminating.
            return
        if not self._shadow and not core.closed:
            if warnings is not None:
                warnings.warn(f"Unclosed socket {self}", ResourceWarning, stacklevel=2, source=self)
            if threading.current_thread().name.startswith("purezmq-io"):
                # Collected by the cyclic GC on an I/O thread, which may be
                # holding this very socket's locks (posting it a command):
                # closing here would wait on itself, and Context.term behind
                # it. Another thread closes it once the I/O thread moves on.
                threading.Thread(target=self.close, name="purezmq-close", daemon=True).start()
                return
            self.close()

    @classmethod
    def shadow(cls, address: Any) -> Socket:
        """A second Socket object for the same underlying socket."""
        return cls(shadow=address)

    def fileno(self) -> int:
        """The FD option: readable when EVENTS may have changed (edge-triggered)."""
        return self._core.fileno()

    # ------------------------------------------------------------ endpoints
    def bind(self, addr: str) -> _SocketContext:
        """Bind to an endpoint (tcp://, ipc://, inproc://).

        Returns a context manager that unbinds on exit (the endpoint actually
        bound, so ``with s.bind("tcp://127.0.0.1:0"):`` works)."""
        addr = _at_endpoint(self._core.bind, addr)
        return _SocketContext(self, "bind", self._core.last_endpoint or addr)

    def unbind(self, addr: str) -> None:
        self._core.unbind(_addr(addr))

    def disconnect(self, addr: str) -> None:
        self._core.disconnect(_addr(addr))

    def bind_to_random_port(
        self, addr: str, min_port: int = 49152, max_port: int = 65536, max_tries: int = 100
    ) -> int:
        """Bind `addr` (e.g. 'tcp://127.0.0.1') to a random port; return the port."""
        if min_port == 49152 and max_port == 65536:
            # Let the OS choose, like pyzmq does for the default range.
            self.bind(f"{addr}:*")
            return int(self._core.last_endpoint.rsplit(":", 1)[-1])
        for _ in range(max_tries):
            port = random.randrange(min_port, max_port)
            try:
                self.bind(f"{addr}:{port}")
            except ZMQError as e:
                if e.errno not in (errno.EADDRINUSE, errno.EACCES):
                    raise
            else:
                return port
        raise ZMQBindError("Could not bind socket to random port.")

    # ------------------------------------------------------------ options
    def set(self, option: int, optval: Any) -> None:
        """Set a socket option (see zmq.SocketOption)."""
        self._core.setsockopt(option, optval)
        if option in (_SUBSCRIBE, _UNSUBSCRIBE):
            # The (un)subscription is on its way to the publishers. Give the
            # I/O threads a turn at the GIL now, so that a publisher in this
            # process applies it about as soon as libzmq's would, instead of
            # after the interpreter's switch interval (5 ms) if this thread
            # keeps running. Subscribing is rare: the yield costs nothing.
            time.sleep(0)

    setsockopt = set

    def get(self, option: int) -> Any:
        """Get a socket option (see zmq.SocketOption)."""
        return self._core.getsockopt(option)

    getsockopt = get

    def set_string(self, option: int, optval: str, encoding: str = "utf-8") -> None:
        if not isinstance(optval, str):
            raise TypeError(f"strings only, not {type(optval)}")
        self.set(option, optval.encode(encoding))

    setsockopt_string = setsockopt_unicode = set_string

    def get_string(self, option: int, encoding: str = "utf-8") -> str:
        if option not in _BYTES_OPTIONS:
            raise TypeError(f"option {option} will not return a string to be decoded")
        value = self.get(option)
        return value.decode(encoding) if isinstance(value, bytes) else str(value)

    getsockopt_string = getsockopt_unicode = get_string

    def _set_attr_opt(self, name: str, opt: int, value: Any) -> None:
        if name == "HWM":
            self.set_hwm(value)
        else:
            self.set(opt, value)

    def _get_attr_opt(self, name: str, opt: int) -> Any:
        if name == "HWM":
            return self.get_hwm()
        return self.get(opt)

    def set_hwm(self, value: int) -> None:
        """Set both SNDHWM and RCVHWM."""
        self.set(C.SNDHWM, value)
        self.set(C.RCVHWM, value)

    def get_hwm(self) -> int:
        """SNDHWM (pyzmq reports the send side when they differ)."""
        return int(self.get(C.SNDHWM))

    hwm = property(get_hwm, set_hwm)

    def subscribe(self, topic: str | bytes) -> None:
        """SUB: receive messages starting with `topic` ('' for everything)."""
        if isinstance(topic, str):
            topic = topic.encode("utf-8")
        self.set(C.SUBSCRIBE, topic)

    def unsubscribe(self, topic: str | bytes) -> None:
        if isinstance(topic, str):
            topic = topic.encode("utf-8")
        self.set(C.UNSUBSCRIBE, topic)

    # ------------------------------------------------------------ send
    def _send_other(
        self,
        data: Any,
        flags: int,
        copy: object,
        track: object,
        routing_id: object,
        group: object,
    ) -> MessageTracker | None:
        """`send` of anything but a plain bytes frame (SocketBase's fast path)."""
        if routing_id is not None or group is not None or _addressed(data):
            self._send_addressed(data, flags, copy, routing_id, group)
            return None
        if isinstance(data, Frame):
            if track and data.tracker is None:
                raise ValueError("Not a tracked message")
            # A Frame is sent by reference whatever `copy` says (as in pyzmq);
            # its tracker is done once the Frame is gone and every send of it
            # has been written (or dropped).
            self._core.send_frame(data._data, flags)
            return data.tracker
        if track and not copy:
            watch: list[Any] = []
            self._core.send_frame(self._tracked_data(data, watch), flags)
            return MessageTracker(*watch) if watch else _done_tracker()
        self._core.send_frame(_frame_data(data, bool(copy)), flags)
        return _done_tracker() if track else None

    def _send_addressed(
        self, data: Any, flags: int, copy: object, routing_id: object, group: object
    ) -> None:
        """A frame with a routing id (SERVER, PEER) or a group (RADIO), as
        pyzmq's ``send(..., routing_id=, group=)`` or a Frame carrying them.
        Other socket types ignore both, as libzmq does."""
        frame = data if isinstance(data, Frame) else Frame(data, copy=bool(copy) or None)
        rid = frame._routing_id if routing_id is None else _routing_id(routing_id)
        grp = frame._group if group is None else _group_bytes(group)  # type: ignore[arg-type]
        if not self._core.pattern.thread_safe:
            self._core.send_frame(frame._data, flags)
            return
        self._core.send_frame(Addressed(frame._data, rid, grp or b""), flags)

    def _tracked_data(self, data: Any, watch: list[Any]) -> Any:
        """`data` to send by reference, with an Event appended to `watch` that is
        set when purezmq has released it (written or dropped). Below
        `copy_threshold` it is copied instead and there is nothing to watch."""
        if isinstance(data, str):
            raise TypeError("unicode not allowed, use send_string")
        try:
            view = memoryview(data)
        except TypeError:
            raise TypeError(
                f"Expected bytes, a buffer, or a Frame; got {type(data).__name__}: {data!r}"
            ) from None
        if not view.c_contiguous:
            raise ValueError("Message buffers must be contiguous")
        if self.copy_threshold and view.nbytes < self.copy_threshold:
            return view.tobytes()
        event = threading.Event()
        watch.append(event)
        return _tracked_view(view, event)

    def send_multipart(
        self,
        msg_parts: Sequence[Any],
        flags: int = 0,
        copy: bool = True,
        track: bool = False,
        **kwargs: Any,
    ) -> MessageTracker | None:
        """Send a whole multipart message (atomically: all parts or none)."""
        frames = []
        tracked = track and not copy
        watch: list[Any] = []  # events and trackers of zero-copy parts (track=True)
        for i, part in enumerate(msg_parts):
            if type(part) is bytes and not tracked:
                frames.append(part)
                continue
            if isinstance(part, str) or not (isinstance(part, Frame) or _has_buffer(part)):
                raise TypeError(f"Frame {i} ({part!r}) does not support the buffer interface.")
            if isinstance(part, Frame):
                if track and part.tracker is None:
                    raise ValueError("Not a tracked message")
                frames.append(part._data)
                if part.tracker is not None:
                    watch.append(part.tracker)
            elif tracked:
                frames.append(self._tracked_data(part, watch))
            else:
                frames.append(_frame_data(part, copy))
        if not frames:
            raise ValueError("send_multipart needs at least one part")
        if flags & _SNDMORE:
            for f in frames:
                self._core.send_frame(f, _SNDMORE | (flags & _NOBLOCK))
        else:
            self._core.send_msg(frames, bool(flags & _NOBLOCK))
        if not track:
            return None
        return MessageTracker(*watch) if watch else _done_tracker()

    # The helpers below return what `send` returns: None or a MessageTracker
    # here, a Future on purezmq.asyncio sockets.
    def send_string(
        self, u: str, flags: int = 0, copy: bool = True, encoding: str = "utf-8", **kwargs: Any
    ) -> Any:
        if not isinstance(u, str):
            raise TypeError("str objects only")
        return self.send(u.encode(encoding), flags=flags, copy=copy, **kwargs)

    send_unicode = send_string

    def send_pyobj(
        self, obj: Any, flags: int = 0, protocol: int = pickle.DEFAULT_PROTOCOL, **kwargs: Any
    ) -> Any:
        return self.send(pickle.dumps(obj, protocol), flags=flags, **kwargs)

    def send_json(self, obj: Any, flags: int = 0, **kwargs: Any) -> Any:
        send_kwargs = {
            k: kwargs.pop(k) for k in ("copy", "track", "routing_id", "group") if k in kwargs
        }
        msg = json.dumps(obj, **kwargs).encode("utf-8")
        return self.send(msg, flags=flags, **send_kwargs)

    def send_serialized(
        self,
        msg: Any,
        serialize: Callable[[Any], list[Any]],
        flags: int = 0,
        copy: bool = True,
        **kwargs: Any,
    ) -> MessageTracker | None:
        frames = serialize(msg)
        return self.send_multipart(frames, flags=flags, copy=copy, **kwargs)

    # ------------------------------------------------------------ recv
    def _recv_other(self, flags: int, track: object) -> Frame:
        """`recv` with copy=False: a Frame (SocketBase has the bytes fast path)."""
        core = self._core
        frame, more = core.recv_frame(bool(flags & _NOBLOCK))
        return Frame._received(frame, more, core.last_metadata, *core.pattern.last_address())

    def recv_multipart(self, flags: int = 0, copy: bool = True, track: bool = False) -> list[Any]:
        """Receive all parts of a multipart message."""
        msg = self._core.recv_msg(bool(flags & _NOBLOCK))
        if copy:
            return [f if type(f) is bytes else bytes(f) for f in msg]
        meta = self._core.last_metadata
        rid, group = self._core.pattern.last_address()
        last = len(msg) - 1
        return [Frame._received(f, i < last, meta, rid, group) for i, f in enumerate(msg)]

    # ------------------------------------------------------------ draft API
    def join(self, group: str | bytes) -> None:
        """DISH: receive the messages of `group` (at most 255 bytes; joining a
        group twice is EINVAL). ENOTSUP on other socket types."""
        self._pattern_call(self._core.pattern.join, group)

    def leave(self, group: str | bytes) -> None:
        """DISH: stop receiving `group` (EINVAL if it was not joined)."""
        self._pattern_call(self._core.pattern.leave, group)

    def _pattern_call(self, call: Callable[[bytes], None], group: str | bytes) -> None:
        raw = _group_bytes(group)
        if raw is None:
            raise TypeError("group must be str or bytes")
        core = self._core
        if core.closed:
            raise ZMQError(errno.ENOTSOCK, "Socket operation on non-socket (the socket is closed)")
        core.process_commands()
        try:
            call(raw)
        except RoutingError as e:
            raise routing_error(e) from None

    def connect_peer(self, addr: str) -> int:
        """PEER: connect to `addr` and return the routing id of that peer, to
        send to it at once (libzmq ``zmq_connect_peer``)."""
        if self._core.type != C.PEER:
            raise ZMQError(errno.ENOTSUP, "connect_peer is for PEER sockets only")
        if self.get(C.IMMEDIATE):
            raise ZMQError(errno.EFAULT, "connect_peer cannot work with IMMEDIATE set")
        self.connect(addr)
        return self._core.pattern.last_attached

    def recv_into(self, buffer: Any, /, *, nbytes: int = 0, flags: int = 0) -> int:
        """Receive one frame into `buffer`; returns the frame's full size
        (the data is truncated to the buffer, as libzmq's zmq_recv does)."""
        view = memoryview(buffer)
        if view.readonly:
            raise BufferError("recv_into needs a writable buffer")
        if not view.c_contiguous:
            raise BufferError("recv_into needs a contiguous buffer")
        view = view.cast("B")
        if nbytes < 0:
            raise ValueError(f"nbytes={nbytes!r} must be non-negative")
        if nbytes > len(view):
            raise ValueError(f"nbytes={nbytes!r} is larger than the buffer ({len(view)} bytes)")
        limit = len(view) if nbytes == 0 else nbytes
        frame, _ = self._core.recv_frame(bool(flags & _NOBLOCK))
        size = len(frame)
        n = min(size, limit)
        view[:n] = memoryview(frame)[:n]
        return size

    def recv_string(self, flags: int = 0, encoding: str = "utf-8") -> str:
        msg = self.recv(flags=flags)
        return msg.decode(encoding)  # type: ignore[no-any-return]

    recv_unicode = recv_string

    def recv_pyobj(self, flags: int = 0) -> Any:
        return pickle.loads(self.recv(flags))

    def recv_json(self, flags: int = 0, **kwargs: Any) -> Any:
        return json.loads(self.recv(flags), **kwargs)

    def recv_serialized(
        self, deserialize: Callable[[list[Any]], Any], flags: int = 0, copy: bool = True
    ) -> Any:
        return deserialize(self.recv_multipart(flags, copy=copy))

    # ------------------------------------------------------------ polling
    def poll(self, timeout: int | None = None, flags: int = C.POLLIN) -> int:
        """Wait up to `timeout` ms (None: forever) for `flags`; return the events."""
        if self.closed:
            raise ZMQError(errno.ENOTSUP, "Socket is closed")
        t = -1 if timeout is None or timeout < 0 else int(timeout)
        if not flags:  # nothing to wait for: as a Poller with nothing registered
            from .poll import zmq_poll

            zmq_poll([], t)
            return 0
        # What a Poller of this one socket does, waited for in the core
        # (compiled): no poller, lists and poll(2) object per call.
        return self._core.poll(int(flags), t)

    # ------------------------------------------------------------ monitor
    def get_stats(self) -> dict[str, Any]:
        """Statistics of this socket and each of its connections (a purezmq
        extension: libzmq counts nothing an application can read).

        A JSON-serialisable snapshot: ``socket_type``; totals ``msgs_in``,
        ``msgs_out``, ``bytes_in``, ``bytes_out`` (on the wire, framing
        included; 0 for inproc), ``drops_hwm`` (messages dropped at a full
        peer where libzmq drops: PUB/XPUB/XSUB, ROUTER), ``queued_in``,
        ``queued_out`` (messages waiting now), ``reconnects``,
        ``handshake_failures``; and ``connections``, one record per peer with
        the same counters plus ``endpoint``, ``transport``, ``peer_address``
        and ``connected``. Totals include connections that have ended. Exact
        once traffic is quiet; see docs/statistics.md."""
        return self._core.get_stats()

    def monitor(self, addr: str | None, events: int = C.EVENT_ALL) -> None:
        """Publish socket events on a PAIR bound at `addr` (inproc://); None stops."""
        self._core.start_monitor(addr, events)

    def get_monitor_socket(self, events: int | None = None, addr: str | None = None) -> Socket:
        """A PAIR socket receiving this socket's events (see utils.monitor)."""
        if self._monitor_socket is not None:
            if self._monitor_socket.closed:
                object.__setattr__(self, "_monitor_socket", None)
            else:
                existing: Socket = self._monitor_socket
                return existing
        if addr is None:
            addr = f"inproc://monitor.s-{self._core.fileno()}.{id(self):x}"
        self.monitor(addr, C.EVENT_ALL if events is None else events)
        mon: Socket = self.context.socket(C.PAIR)
        mon.connect(addr)
        object.__setattr__(self, "_monitor_socket", mon)
        return mon

    def disable_monitor(self) -> None:
        """Stop monitoring (and close the socket from get_monitor_socket)."""
        object.__setattr__(self, "_monitor_socket", None)
        self._core.start_monitor(None, 0)


def _open_at(address: Any) -> tuple[SocketCore, Context] | None:
    """The open socket whose `underlying` is `address`, and its Context.

    Looked up through the contexts' own socket sets when a shadow is made,
    so making a socket registers it nowhere else: a weak mapping entry per
    socket was interpreted code at every socket's creation and again at its
    collection (a connection opened per request pays both)."""
    from .context import _CONTEXTS

    for ctx in list(_CONTEXTS.values()):
        for core in ctx._core.sockets():
            if id(core) == address:
                return core, ctx
    return None


#: libzmq's thread-safe socket types (its draft ones): see threadsafe.py.
_THREAD_SAFE_TYPES = frozenset(
    {C.SERVER, C.CLIENT, C.RADIO, C.DISH, C.GATHER, C.SCATTER, C.PEER, C.CHANNEL}
)


def _addressed(data: Any) -> bool:
    """Is `data` a Frame carrying a routing id or a group?"""
    return isinstance(data, Frame) and (data._routing_id != 0 or data._group is not None)


def _routing_id(value: object) -> int:
    if not isinstance(value, int) or not 0 <= value <= 0xFFFFFFFF:
        raise ZMQError(errno.EINVAL, f"routing_id must be a 32-bit unsigned integer: {value!r}")
    return value


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


SyncSocket = Socket
