"""MonitoredQueue devices: `monitored_queue` run as a device."""

from __future__ import annotations

from purezmq import constants as C

from .basedevice import ProcessDevice, ThreadDevice
from .monitoredqueue import monitored_queue
from .proxydevice import ProxyBase


class MonitoredQueueBase(ProxyBase):
    """A proxy device running `monitored_queue` (ROUTER-ROUTER capable, with prefixes)."""

    def __init__(
        self,
        in_type: int,
        out_type: int,
        mon_type: int = C.PUB,
        in_prefix: bytes = b"in",
        out_prefix: bytes = b"out",
    ) -> None:
        super().__init__(in_type=in_type, out_type=out_type, mon_type=mon_type)
        self._in_prefix = in_prefix
        self._out_prefix = out_prefix

    def run_device(self) -> None:
        ins, outs, mons = self._setup_sockets()
        monitored_queue(ins, outs, mons, self._in_prefix, self._out_prefix)


class MonitoredQueue(MonitoredQueueBase):
    """A monitored queue in the calling thread; see ThreadMonitoredQueue."""


class ThreadMonitoredQueue(MonitoredQueueBase, ThreadDevice):
    """A MonitoredQueue in a background thread."""


class ProcessMonitoredQueue(MonitoredQueueBase, ProcessDevice):
    """A MonitoredQueue in a background process."""


__all__ = [
    "MonitoredQueue",
    "MonitoredQueueBase",
    "ProcessMonitoredQueue",
    "ThreadMonitoredQueue",
]
