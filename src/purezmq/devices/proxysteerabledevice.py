"""Steerable proxy devices: a Proxy that obeys PAUSE / RESUME / TERMINATE /
STATISTICS on a fourth, control socket (see `purezmq.proxy_steerable`)."""

from __future__ import annotations

from typing import Any

from purezmq import constants as C
from purezmq.sugar.proxy import proxy_steerable

from .basedevice import ProcessDevice, ThreadDevice, _Plan
from .proxydevice import ProxyBase


class ProxySteerableBase(ProxyBase):
    """Adds the control socket (``bind_ctrl``, ``connect_ctrl``, ``setsockopt_ctrl``)."""

    def __init__(
        self, in_type: int, out_type: int, mon_type: int = C.PUB, ctrl_type: int | None = None
    ) -> None:
        super().__init__(in_type=in_type, out_type=out_type, mon_type=mon_type)
        self.ctrl_type = ctrl_type
        self._ctrl = _Plan()

    def bind_ctrl(self, addr: str) -> None:
        """Bind the control socket to `addr` when the device starts."""
        self._ctrl.binds.append(addr)

    def connect_ctrl(self, addr: str) -> None:
        """Connect the control socket to `addr` when the device starts."""
        self._ctrl.connects.append(addr)

    def setsockopt_ctrl(self, opt: int, value: Any) -> None:
        """Set an option on the control socket when the device starts."""
        self._ctrl.sockopts.append((opt, value))

    def bind_ctrl_to_random_port(self, addr: str, *args: Any, **kwargs: Any) -> int:
        """Pick a free random port on `addr` for the control socket; return it."""
        port = self._reserve_random_port(addr, *args, **kwargs)
        self.bind_ctrl(f"{addr}:{port}")
        return port

    def _setup_sockets(self) -> tuple[Any, ...]:
        ins, outs, mons = super()._setup_sockets()
        if self.ctrl_type is None:
            return ins, outs, mons, None
        ctrls = self._make_socket(self.ctrl_type, self._ctrl)
        return ins, outs, mons, ctrls

    def run_device(self) -> None:
        ins, outs, mons, ctrls = self._setup_sockets()
        proxy_steerable(ins, outs, mons, ctrls)


class ProxySteerable(ProxySteerableBase):
    """A Proxy steered through a control socket. Runs in the calling thread;
    see ThreadProxySteerable."""


class ThreadProxySteerable(ProxySteerableBase, ThreadDevice):
    """A ProxySteerable in a background thread."""


class ProcessProxySteerable(ProxySteerableBase, ProcessDevice):
    """A ProxySteerable in a background process."""


__all__ = [
    "ProcessProxySteerable",
    "ProxySteerable",
    "ProxySteerableBase",
    "ThreadProxySteerable",
]
