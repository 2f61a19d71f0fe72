"""The calls every message makes - pyzmq's Socket.send and Socket.recv of one
frame - and those every connection makes: connect and close.

In pyzmq these entry points live in the compiled backend (Cython), under the
pure-Python "sugar" class. purezmq mirrors that split: `SocketBase` holds
the socket core and the fast paths - a bytes frame sent, a frame received
as bytes, `connect` and `close` (a client that opens a connection per
request runs them as often as a message) - and `purezmq.sugar.socket.Socket`
derives from it and adds the rest of pyzmq's API, in plain Python, including
the general cases of send and receive (`_send_other`, `_recv_other`).

Where mypyc compiles this module (see docs/design.md), an application's
``sock.send(b"...")`` reaches the socket core in one native call: the
interpreted method, its default arguments and the attribute look-ups cost
more than the core's whole send did. In the pure build it is an ordinary
base class. Interpreted classes may derive from it (pyzmq programs subclass
Socket; purezmq.asyncio does too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from purezmq._mypyc import mypyc_attr
from purezmq.error import ZMQError

if TYPE_CHECKING:
    from purezmq._core.socket_core import SocketCore


def _at_endpoint(op: Callable[[str], None], addr: Any) -> str:
    """Run a bind or connect on `addr` (str or bytes); its error names the
    endpoint, as pyzmq's do. Returns the endpoint as str."""
    endpoint = _addr(addr)
    try:
        op(endpoint)
    except ZMQError as e:
        if endpoint not in e.strerror:
            e.strerror = f"{e.strerror} (addr={endpoint!r})"
        raise
    return endpoint


def _addr(addr: Any) -> str:
    if isinstance(addr, bytes):
        return addr.decode("utf-8")
    if not isinstance(addr, str):
        raise TypeError(f"expected str, got: {addr!r}")
    return addr


class _SocketContext:
    """Returned by bind/connect: `with s.bind(url):` unbinds on exit."""

    def __init__(self, socket: Any, kind: str, addr: str) -> None:
        self.socket = socket
        self.kind = kind
        self.addr = addr

    def __enter__(self) -> Any:
        return self.socket

    def __exit__(self, *exc: object) -> None:
        if self.socket.closed:
            return
        if self.kind == "bind":
            self.socket.unbind(self.addr)
        else:
            self.socket.disconnect(self.addr)

    def __repr__(self) -> str:
        return f"<SocketContext({self.kind}={self.addr!r})>"


@mypyc_attr(allow_interpreted_subclasses=True)
class SocketBase:
    """The socket core and the per-message fast paths (see module doc)."""

    _core: SocketCore
    # The rest of a Socket's per-instance state, here so that `_bind_core`
    # stores it natively where this module is compiled (see _bind_core).
    context: Any
    copy_threshold: Any
    _shadow: bool
    _shadow_obj: Any
    _monitor_socket: Any

    def _bind_core(
        self, core: SocketCore, context: Any, copy_threshold: Any, shadow_obj: Any
    ) -> None:
        """Set a new Socket's state in one call. The sugar class overrides
        ``__setattr__`` (pyzmq's option attributes), so it stored each field
        through ``object.__setattr__``: six interpreted calls, about 4,500
        instructions of every ``ctx.socket()``."""
        self._core = core
        self.context = context
        self.copy_threshold = copy_threshold
        self._shadow_obj = shadow_obj
        self._shadow = shadow_obj is not None
        self._monitor_socket = None

    def connect(self, addr: Any) -> _SocketContext:
        """Connect to an endpoint; the connection is made in the background."""
        return _SocketContext(self, "connect", _at_endpoint(self._core.connect, addr))

    def close(self, linger: int | None = None) -> None:
        """Close the socket. Queued messages are still delivered in the background
        for up to `linger` ms (or the LINGER option), and `Context.term` waits."""
        core = self._core
        if core.closed:
            return
        if self._monitor_socket is not None:
            self.disable_monitor()
        core.close(linger)
        if not self._shadow:
            self.context._rm_socket(self)

    def disable_monitor(self) -> None:
        raise NotImplementedError  # the sugar class's

    def send(
        self,
        data: Any,
        flags: int = 0,
        copy: object = True,
        track: object = False,
        routing_id: object = None,
        group: object = None,
    ) -> Any:
        """Send one frame. flags: NOBLOCK (raise Again instead of waiting), SNDMORE.

        `copy=False` sends the buffer by reference (do not modify it until it
        is sent); `track=True` returns a MessageTracker that says when."""
        if type(data) is bytes and not track and routing_id is None and group is None:
            self._core.send_frame(data, flags)  # the common case, kept short
            return None
        return self._send_other(data, flags, copy, track, routing_id, group)

    def recv(self, flags: int = 0, copy: object = True, track: object = False) -> Any:
        """Receive one frame: bytes, or a Frame when copy=False."""
        if copy:
            frame = self._core.recv_bytes(flags)
            return frame if type(frame) is bytes else bytes(frame)
        return self._recv_other(flags, track)

    # The general cases, in the sugar class.
    def _send_other(
        self,
        data: Any,
        flags: int,
        copy: object,
        track: object,
        routing_id: object,
        group: object,
    ) -> Any:
        raise NotImplementedError

    def _recv_other(self, flags: int, track: object) -> Any:
        raise NotImplementedError
