"""Context: pyzmq's context API over purezmq's ContextCore."""

from __future__ import annotations

import atexit
import errno
import os
import threading
import warnings
import weakref
from typing import Any, ClassVar, TypeVar

from purezmq import constants as C
from purezmq._core.context_core import ContextCore
from purezmq._core.protocols import Driver
from purezmq._io.waiter import PollWaiter
from purezmq.error import ZMQError

from .attrsettr import AttributeSetter
from .socket import Socket

_T = TypeVar("_T", bound="Context")
_exiting = False


@atexit.register
def _notice_atexit() -> None:
    global _exiting
    _exiting = True


def _threaded_driver() -> Driver:
    from purezmq._io.threaded import ThreadedDriver

    return ThreadedDriver()


class Context(AttributeSetter):
    """A ZeroMQ context: owns sockets and the I/O thread that serves them.

    No global state: two contexts share nothing. Use one per process
    (`Context.instance()`), create sockets with `socket()`, and end with
    `term()` (waits for sockets to be closed) or `destroy()` (closes them).
    """

    _instance: ClassVar[Context | None] = None
    _instance_lock: ClassVar[threading.Lock] = threading.Lock()
    _instance_pid: ClassVar[int | None] = None
    _socket_class: ClassVar[type[Socket]] = Socket
    _repr_cls = "zmq.Context"
    _shadow: bool
    _warn_destroy_close: bool

    def __init__(self, io_threads: Any = 1, shadow: Any = 0) -> None:
        if isinstance(io_threads, Context):
            shadow, io_threads = io_threads, 1
        if shadow:
            # A Context object, or the address from `underlying` (an int).
            other = shadow if isinstance(shadow, Context) else _CONTEXTS.get(shadow)
            if other is None:
                raise ZMQError(errno.EINVAL, f"No purezmq context to shadow at {shadow!r}")
            object.__setattr__(self, "_core", other._core)
            object.__setattr__(self, "_shadow", True)
            object.__setattr__(self, "_sockets", other._sockets)
        else:
            if not isinstance(io_threads, int) or io_threads < 0:
                raise ZMQError(
                    errno.EINVAL, f"io_threads must be a non-negative int, not {io_threads!r}"
                )
            core = ContextCore(waiter_factory=PollWaiter, driver_factory=_threaded_driver)
            core.options.set(C.IO_THREADS, io_threads)
            object.__setattr__(self, "_core", core)
            object.__setattr__(self, "_shadow", False)
            object.__setattr__(self, "_sockets", weakref.WeakSet())
            _CONTEXTS[id(core)] = self
        object.__setattr__(self, "_warn_destroy_close", False)
        object.__setattr__(self, "sockopts", {})

    _core: ContextCore
    #: Socket options applied to every socket this context creates afterwards.
    sockopts: dict[int, Any]
    _sockets: weakref.WeakSet[Socket]

    # ------------------------------------------------------------ lifecycle
    @classmethod
    def instance(cls: type[_T], io_threads: int = 1) -> _T:
        """The process-wide Context (a new one in a forked child).

        As in pyzmq, a subclass shares its base class's instance unless it
        declares its own ``_instance = None`` (zmq.asyncio.Context does, so
        its instance is not the sync one); a subclass that calls instance()
        before its base gets an instance of its own class."""

        def current() -> Context | None:
            inst: Context | None = cls._instance
            if inst is None or inst.closed or cls._instance_pid != os.getpid():
                return None
            return inst

        inst = current()
        if inst is None:
            with cls._instance_lock:
                inst = current()
                if inst is None:
                    inst = cls(io_threads)
                    cls._instance = inst
                    cls._instance_pid = os.getpid()
        return inst  # type: ignore[return-value]

    def __copy__(self: _T, memo: Any = None) -> _T:
        """A copy of a Context is a shadow of it (the same underlying context)."""
        return type(self).shadow(self.underlying)

    __deepcopy__ = __copy__

    def _attr_option_names(self) -> list[str]:
        return list(C.ContextOption.__members__)

    @classmethod
    def shadow_pyczmq(cls: type[_T], ctx: Any) -> _T:
        """pyzmq shadows a pyczmq (libzmq) context here; there is no libzmq
        context inside purezmq to share, so this always raises ENOTSUP."""
        raise ZMQError(errno.ENOTSUP, "purezmq cannot shadow a pyczmq (libzmq) context")

    @classmethod
    def shadow(cls: type[_T], address: Any) -> _T:
        """Another Context object over the same underlying context."""
        return cls(shadow=address)

    @property
    def underlying(self) -> int:
        return id(self._core)

    @property
    def closed(self) -> bool:
        return self._core.terminated

    def __repr__(self) -> str:
        cls = type(self)
        name = cls.__dict__.get("_repr_cls") or f"{cls.__module__}.{cls.__name__}"
        closed = " closed" if self.closed else ""
        n = len(self._sockets)
        sockets = f" {n} socket{'s' if n != 1 else ''}" if n else ""
        return f"<{name}({sockets.strip() or ''}) at {hex(id(self))}{closed}>"

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: object) -> None:
        self._warn_destroy_close = True
        self.destroy()

    def __del__(self) -> None:
        try:
            core = self._core
        except AttributeError:
            return
        if not self._shadow and not _exiting and not core.terminated:
            self._warn_destroy_close = True
            if warnings is not None:
                warnings.warn(
                    f"Unclosed context {self}", ResourceWarning, stacklevel=2, source=self
                )
            self.destroy()

    def term(self) -> None:
        """Terminate: blocked calls raise ContextTerminated, then wait until every
        socket is closed and its queued messages are sent (or LINGER expires)."""
        self._core.term()

    def destroy(self, linger: int | None = None) -> None:
        """Close every socket of this context (with `linger` if given), then term()."""
        if self._core.terminated:
            return
        for s in list(self._sockets):
            if not s.closed:
                if self._warn_destroy_close and warnings is not None:
                    warnings.warn(
                        f"Destroying context with unclosed socket {s}",
                        ResourceWarning,
                        stacklevel=3,
                        source=s,
                    )
                if linger is not None:
                    s.setsockopt(C.LINGER, linger)
                s.close()
        self.term()

    # ------------------------------------------------------------ sockets
    def socket(self, socket_type: int, socket_class: Any = None, **kwargs: Any) -> Any:
        """Create a Socket of `socket_type` (zmq.PUSH, zmq.SUB, ...)."""
        if self.closed:
            if self._shadow:  # libzmq's answer for a terminated context's handle
                raise ZMQError(errno.EFAULT, "The shadowed context has been terminated")
            raise ZMQError(errno.ENOTSUP, "Context is closed: make a new one for new sockets")
        cls = socket_class or self._socket_class
        s = cls(self, socket_type, **kwargs)
        sockopts = self.sockopts
        if sockopts:
            for opt, value in sockopts.items():
                try:
                    s.setsockopt(opt, value)
                except ZMQError:
                    pass  # e.g. SUBSCRIBE on a non-SUB socket: pyzmq ignores these too
        return s

    def _add_socket(self, socket: Socket) -> None:
        self._sockets.add(socket)

    def _rm_socket(self, socket: Socket) -> None:
        self._sockets.discard(socket)

    # ------------------------------------------------------------ options
    def set(self, option: int, optval: int) -> None:
        """Set a context option (IO_THREADS, MAX_SOCKETS, IPV6, BLOCKY...)."""
        self._core.options.set(option, optval)

    def setsockopt(self, opt: int, value: Any) -> None:
        """Set a default socket option for sockets this context creates later
        (not a context option: pyzmq keeps the two apart)."""
        self.sockopts[opt] = value

    def get(self, option: int) -> int:
        return int(self._core.options.get(option))

    def getsockopt(self, opt: int) -> Any:
        """A default socket option set with setsockopt (KeyError if unset)."""
        return self.sockopts[opt]

    def _set_attr_opt(self, name: str, opt: int, value: Any) -> None:
        if name in C.ContextOption.__members__:
            self.set(opt, value)
        elif name in C.SocketOption.__members__:
            self.sockopts[opt] = value
        else:
            raise AttributeError(f"No such context or socket option: {name}")

    def _get_attr_opt(self, name: str, opt: int) -> Any:
        if name in C.ContextOption.__members__:
            return self.get(opt)
        if opt not in self.sockopts:
            raise AttributeError(name)
        return self.sockopts[opt]

    def __delattr__(self, key: str) -> None:
        """`del ctx.linger` forgets a default socket option."""
        if key in self.__dict__:
            object.__delattr__(self, key)
            return
        opt = getattr(C, key.upper(), None)
        if not isinstance(opt, int) or opt not in self.sockopts:
            raise AttributeError(f"no sockopt: {key}")
        del self.sockopts[opt]


#: Every Context by `underlying` address, for Context.shadow(address).
_CONTEXTS: weakref.WeakValueDictionary[int, Context] = weakref.WeakValueDictionary()

SyncContext = Context
