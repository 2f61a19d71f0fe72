"""Devices: a proxy between sockets that the device creates and runs in the background.

You give socket *types*, queue up the binds, connects and options for each
side, and `start()`: the sockets are created and used only in the thread (or
process) that runs the device, so no socket crosses threads.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from multiprocessing import Process
from threading import Thread
from typing import Any, ClassVar

from purezmq import constants as C
from purezmq.error import ZMQBindError, ZMQError
from purezmq.sugar.context import Context
from purezmq.sugar.proxy import proxy
from purezmq.sugar.socket import Socket


class _Plan:
    """What to do to one socket of a device before it runs: options, binds, connects."""

    __slots__ = ("binds", "connects", "sockopts")

    def __init__(self) -> None:
        self.binds: list[str] = []
        self.connects: list[str] = []
        self.sockopts: list[tuple[int, Any]] = []

    def apply(self, sock: Socket) -> None:
        # Options first: IDENTITY / ROUTING_ID must be set before connecting.
        for opt, value in self.sockopts:
            sock.setsockopt(opt, value)
        for addr in self.binds:
            sock.bind(addr)
        for addr in self.connects:
            sock.connect(addr)


class Device:
    """A device between an in-socket and an out-socket, created from their types.

    ``Device(device_type, in_type, out_type)``; an `out_type` < 0 uses the
    in-socket for both sides (a single-socket device). Queue the setup with
    ``bind_in``/``connect_in``/``setsockopt_in`` (and the ``_out`` versions),
    then ``start()``. The base class runs in the calling thread; see
    ThreadDevice and ProcessDevice.

    `context_factory` (a class attribute) makes the device's Context:
    ``Context.instance`` for devices in threads, a fresh ``Context`` for
    devices in processes.
    """

    context_factory: ClassVar[Callable[[], Context]] = Context.instance

    daemon: bool
    done: bool

    def __init__(
        self, device_type: int = C.QUEUE, in_type: int | None = None, out_type: int | None = None
    ) -> None:
        if in_type is None:
            raise TypeError("in_type must be specified")
        if out_type is None:
            raise TypeError("out_type must be specified")
        self.device_type = device_type
        self.in_type = in_type
        self.out_type = out_type
        self._in = _Plan()
        self._out = _Plan()
        self._random_addrs: list[str] = []
        self._sockets: list[Socket] = []
        self._context: Context | None = None
        self.daemon = True
        self.done = False

    # ------------------------------------------------------------ setup queues
    def bind_in(self, addr: str) -> None:
        """Bind the in-socket to `addr` when the device starts."""
        self._in.binds.append(addr)

    def bind_out(self, addr: str) -> None:
        """Bind the out-socket to `addr` when the device starts."""
        self._out.binds.append(addr)

    def connect_in(self, addr: str) -> None:
        """Connect the in-socket to `addr` when the device starts."""
        self._in.connects.append(addr)

    def connect_out(self, addr: str) -> None:
        """Connect the out-socket to `addr` when the device starts."""
        self._out.connects.append(addr)

    def setsockopt_in(self, opt: int, value: Any) -> None:
        """Set an option on the in-socket when the device starts."""
        self._in.sockopts.append((opt, value))

    def setsockopt_out(self, opt: int, value: Any) -> None:
        """Set an option on the out-socket when the device starts."""
        self._out.sockopts.append((opt, value))

    def bind_in_to_random_port(self, addr: str, *args: Any, **kwargs: Any) -> int:
        """Pick a free random port on `addr` for the in-socket; return it.

        Arguments are those of ``Socket.bind_to_random_port``."""
        port = self._reserve_random_port(addr, *args, **kwargs)
        self.bind_in(f"{addr}:{port}")
        return port

    def bind_out_to_random_port(self, addr: str, *args: Any, **kwargs: Any) -> int:
        """Pick a free random port on `addr` for the out-socket; return it."""
        port = self._reserve_random_port(addr, *args, **kwargs)
        self.bind_out(f"{addr}:{port}")
        return port

    def _reserve_random_port(self, addr: str, *args: Any, **kwargs: Any) -> int:
        """A port that is free now and not already promised to another socket of
        this device (the real bind happens later, in the device's thread)."""
        with Context() as ctx, ctx.socket(C.PUSH) as probe:
            for _ in range(5):
                port = int(probe.bind_to_random_port(addr, *args, **kwargs))
                candidate = f"{addr}:{port}"
                if candidate not in self._random_addrs:
                    self._random_addrs.append(candidate)
                    return port
        raise ZMQBindError("Could not reserve random port.")

    # ------------------------------------------------------------ running
    def _setup_sockets(self) -> tuple[Socket, Socket]:
        ctx: Context = self.context_factory()  # type: ignore[misc]
        self._context = ctx
        ins: Socket = ctx.socket(self.in_type)
        self._sockets.append(ins)
        if self.out_type < 0:
            outs = ins
        else:
            outs = ctx.socket(self.out_type)
            self._sockets.append(outs)
        for opt, value in self._in.sockopts:
            ins.setsockopt(opt, value)
        for opt, value in self._out.sockopts:
            outs.setsockopt(opt, value)
        for addr in self._in.binds:
            ins.bind(addr)
        for addr in self._out.binds:
            outs.bind(addr)
        for addr in self._in.connects:
            ins.connect(addr)
        for addr in self._out.connects:
            outs.connect(addr)
        return ins, outs

    def _make_socket(self, socket_type: int, plan: _Plan) -> Socket:
        assert self._context is not None
        sock: Socket = self._context.socket(socket_type)
        self._sockets.append(sock)
        plan.apply(sock)
        return sock

    def run_device(self) -> None:
        """Create the sockets and forward until the context terminates.

        Called by `run`; do not call it directly, call `start()`."""
        ins, outs = self._setup_sockets()
        proxy(ins, outs)

    def _close_sockets(self) -> None:
        for s in self._sockets:
            if not s.closed:
                s.close()

    def run(self) -> None:
        """`run_device`, ending quietly when the context terminates or a socket
        is closed (the normal ways to stop a device)."""
        try:
            self.run_device()
        except ZMQError as e:
            if e.errno not in (C.ETERM, errno.ENOTSOCK):
                raise
        finally:
            self.done = True
            self._close_sockets()

    def start(self) -> None:
        """Run the device (in this thread for the base class)."""
        self.run()

    def join(self, timeout: float | None = None) -> None:
        """Wait until the device has stopped (at most `timeout` seconds)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.001)


class BackgroundDevice(Device):
    """A device started in a background thread or process (`_launch_class`)."""

    launcher: Any = None
    _launch_class: Any = None

    def start(self) -> None:
        self.launcher = self._launch_class(target=self.run)
        self.launcher.daemon = self.daemon
        self.launcher.start()

    def join(self, timeout: float | None = None) -> None:
        self.launcher.join(timeout=timeout)


class ThreadDevice(BackgroundDevice):
    """A Device run in a background thread (sharing ``Context.instance()``)."""

    _launch_class = Thread


class ProcessDevice(BackgroundDevice):
    """A Device run in a background process, with its own Context."""

    _launch_class = Process
    context_factory: ClassVar[Callable[[], Context]] = Context


__all__ = ["BackgroundDevice", "Device", "ProcessDevice", "ThreadDevice"]
