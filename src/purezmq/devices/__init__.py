"""Devices: proxies that own their sockets and run in a background thread or process.

pyzmq's ``zmq.devices``: Device / ThreadDevice / ProcessDevice (a plain
queue), Proxy / ThreadProxy / ProcessProxy (with a monitor socket),
ProxySteerable / ThreadProxySteerable / ProcessProxySteerable (with a control
socket), MonitoredQueue / ThreadMonitoredQueue / ProcessMonitoredQueue and the
`monitored_queue` function.
"""

from __future__ import annotations

from purezmq.constants import DeviceType
from purezmq.sugar.proxy import proxy, proxy_steerable

from . import (
    basedevice,
    monitoredqueue,
    monitoredqueuedevice,
    proxydevice,
    proxysteerabledevice,
)
from .basedevice import BackgroundDevice, Device, ProcessDevice, ThreadDevice
from .monitoredqueuedevice import (
    MonitoredQueue,
    MonitoredQueueBase,
    ProcessMonitoredQueue,
    ThreadMonitoredQueue,
)
from .proxydevice import ProcessProxy, Proxy, ProxyBase, ThreadProxy
from .proxysteerabledevice import (
    ProcessProxySteerable,
    ProxySteerable,
    ProxySteerableBase,
    ThreadProxySteerable,
)

# pyzmq exposes the function under the module's name's sibling.
monitored_queue = monitoredqueue.monitored_queue

__all__ = [
    "BackgroundDevice",
    "Device",
    "DeviceType",
    "MonitoredQueue",
    "MonitoredQueueBase",
    "ProcessDevice",
    "ProcessMonitoredQueue",
    "ProcessProxy",
    "ProcessProxySteerable",
    "Proxy",
    "ProxyBase",
    "ProxySteerable",
    "ProxySteerableBase",
    "ThreadDevice",
    "ThreadMonitoredQueue",
    "ThreadProxy",
    "ThreadProxySteerable",
    "basedevice",
    "monitored_queue",
    "monitoredqueue",
    "monitoredqueuedevice",
    "proxy",
    "proxy_steerable",
    "proxydevice",
    "proxysteerabledevice",
]
