"""zmq.proxy and zmq.device: forward messages between two sockets.

The proxy reads a side only while the other side can take a message
(POLLOUT), so a slow or absent peer pushes back instead of filling memory or
blocking the loop; each wake-up forwards a batch before polling again. It
runs until a socket fails - typically ContextTerminated when the context is
terminated, which is how libzmq's zmq_proxy ends too.
"""

from __future__ import annotations

from typing import Any

from purezmq import constants as C
from purezmq.error import Again

from .poll import zmq_poll

_POLLIN = int(C.POLLIN)
_POLLOUT = int(C.POLLOUT)
_POLLERR = int(C.POLLERR)

#: Messages forwarded per direction before polling again (fairness).
_BATCH = 256


def _forward(src: Any, dst: Any, capture: Any | None) -> None:
    for _ in range(_BATCH):
        try:
            msg = src.recv_multipart(C.NOBLOCK, copy=True)
        except Again:
            return
        if capture is not None:
            capture.send_multipart(msg)
        dst.send_multipart(msg)
        if not (src._core.events() & _POLLIN) or not (dst._core.events() & _POLLOUT):
            return


def proxy(frontend: Any, backend: Any, capture: Any | None = None) -> None:
    """Forward frontend <-> backend (and copy to `capture`) until an error."""
    while True:
        flags: dict[Any, int] = {frontend: 0, backend: 0}
        # Read a side only when the other can take it; otherwise wait for that.
        if backend._core.events() & _POLLOUT:
            flags[frontend] |= _POLLIN
        else:
            flags[backend] |= _POLLOUT
        if frontend is not backend:
            if frontend._core.events() & _POLLOUT:
                flags[backend] |= _POLLIN
            else:
                flags[frontend] |= _POLLOUT
        ready = dict(zmq_poll([(s, f) for s, f in flags.items() if f], -1))
        if ready.get(frontend, 0) & _POLLIN:
            _forward(frontend, backend, capture)
        if frontend is not backend and ready.get(backend, 0) & _POLLIN:
            _forward(backend, frontend, capture)


def device(device_type: int, frontend: Any, backend: Any) -> None:
    """Run a QUEUE, FORWARDER or STREAMER device (all are `proxy` since libzmq 3)."""
    if device_type not in (C.QUEUE, C.FORWARDER, C.STREAMER):
        from purezmq.error import ZMQError

        raise ZMQError(22, f"Invalid device type: {device_type}")
    proxy(frontend, backend)
