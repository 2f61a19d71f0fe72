"""Proxy devices: a device with a third, monitor socket that sees every message."""

from __future__ import annotations

from typing import Any

from purezmq import constants as C
from purezmq.sugar.proxy import proxy

from .basedevice import Device, ProcessDevice, ThreadDevice, _Plan


class ProxyBase(Device):
    """Adds the monitor socket (``bind_mon``, ``connect_mon``, ``setsockopt_mon``)."""

    def __init__(self, in_type: int, out_type: int, mon_type: int = C.PUB) -> None:
        super().__init__(in_type=in_type, out_type=out_type)
        self.mon_type = mon_type
        self._mon = _Plan()

    def bind_mon(self, addr: str) -> None:
        """Bind the monitor socket to `addr` when the device starts."""
        self._mon.binds.append(addr)

    def connect_mon(self, addr: str) -> None:
        """Connect the monitor socket to `addr` when the device starts."""
        self._mon.connects.append(addr)

    def setsockopt_mon(self, opt: int, value: Any) -> None:
        """Set an option on the monitor socket when the device starts."""
        self._mon.sockopts.append((opt, value))

    def bind_mon_to_random_port(self, addr: str, *args: Any, **kwargs: Any) -> int:
        """Pick a free random port on `addr` for the monitor socket; return it."""
        port = self._reserve_random_port(addr, *args, **kwargs)
        self.bind_mon(f"{addr}:{port}")
        return port

    def _setup_sockets(self) -> tuple[Any, ...]:
        ins, outs = super()._setup_sockets()
        mons = self._make_socket(self.mon_type, self._mon)
        return ins, outs, mons

    def run_device(self) -> None:
        ins, outs, mons = self._setup_sockets()
        proxy(ins, outs, mons)


class Proxy(ProxyBase):
    """A QUEUE device whose every message is also sent to the monitor socket
    (a PUB by default). Runs in the calling thread; see ThreadProxy."""


class ThreadProxy(ProxyBase, ThreadDevice):
    """A Proxy in a background thread."""


class ProcessProxy(ProxyBase, ProcessDevice):
    """A Proxy in a background process."""


__all__ = ["ProcessProxy", "Proxy", "ProxyBase", "ThreadProxy"]
