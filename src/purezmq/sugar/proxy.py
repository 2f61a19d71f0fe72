"""zmq.proxy, zmq.proxy_steerable and zmq.device: forward messages between two sockets.

The proxy reads a side only while the other side can take a message
(POLLOUT), so a slow or absent peer pushes back instead of filling memory or
blocking the loop; each wake-up forwards a batch before polling again. It
runs until a socket fails - typically ContextTerminated when the context is
terminated, which is how libzmq's zmq_proxy ends too.

The steerable proxy also obeys commands on a control socket, as libzmq's
zmq_proxy_steerable: ``PAUSE`` (stop forwarding), ``RESUME``, ``TERMINATE``
(return) and ``STATISTICS`` (reply with eight 8-byte native-order counters:
messages and bytes received and sent on the frontend, then on the backend;
messages count frames, as in libzmq).
"""

from __future__ import annotations

import errno
import logging
import struct
from typing import Any

from purezmq import constants as C
from purezmq.error import Again, ZMQError

from .poll import zmq_poll

_POLLIN = int(C.POLLIN)
_POLLOUT = int(C.POLLOUT)
_POLLERR = int(C.POLLERR)
_NOBLOCK = int(C.NOBLOCK)

#: Messages forwarded per direction before polling again (fairness).
_BATCH = 256

_log = logging.getLogger("purezmq")


class _Stats:
    """libzmq's proxy statistics: [msgs in, bytes in, msgs out, bytes out] per side."""

    __slots__ = ("backend", "frontend")

    def __init__(self) -> None:
        self.frontend = [0, 0, 0, 0]
        self.backend = [0, 0, 0, 0]

    def frames(self) -> list[bytes]:
        return [struct.pack("=Q", n) for n in (*self.frontend, *self.backend)]


def _forward(
    src: Any, dst: Any, capture: Any | None, src_stats: list[int], dst_stats: list[int]
) -> None:
    for _ in range(_BATCH):
        try:
            msg = src.recv_multipart(_NOBLOCK, copy=True)
        except Again:
            return
        nbytes = sum(len(f) for f in msg)
        src_stats[0] += len(msg)
        src_stats[1] += nbytes
        if capture is not None:
            capture.send_multipart(msg)
        dst.send_multipart(msg)
        dst_stats[2] += len(msg)
        dst_stats[3] += nbytes
        if not (src._core.events() & _POLLIN) or not (dst._core.events() & _POLLOUT):
            return


def _control(control: Any, stats: _Stats) -> str | None:
    """Handle the control socket's pending commands; the new state, if any."""
    state = None
    while True:
        try:
            msg = control.recv_multipart(_NOBLOCK)
        except Again:
            return state
        command = bytes(msg[0]) if msg else b""
        if command == b"STATISTICS":
            control.send_multipart(stats.frames())
            continue
        if command in (b"PAUSE", b"RESUME", b"TERMINATE"):
            state = command.decode()
        else:
            _log.warning("proxy_steerable: ignoring unknown command %r", command)
        if control.socket_type == C.REP:
            control.send(b"")  # a REP control socket must answer to take the next command


def _proxy(frontend: Any, backend: Any, capture: Any | None, control: Any | None) -> None:
    stats = _Stats()
    paused = False
    while True:
        flags: dict[Any, int] = {frontend: 0, backend: 0}
        if paused:
            pass
        elif frontend is backend:
            # A single-socket device (e.g. a REP answering itself): a REP has
            # no POLLOUT before it has read a request, so just read.
            flags[frontend] = _POLLIN
        else:
            # Read a side only when the other can take it; otherwise wait for that.
            if backend._core.events() & _POLLOUT:
                flags[frontend] |= _POLLIN
            else:
                flags[backend] |= _POLLOUT
            if frontend._core.events() & _POLLOUT:
                flags[backend] |= _POLLIN
            else:
                flags[frontend] |= _POLLOUT
        items = [(s, f) for s, f in flags.items() if f]
        if control is not None:
            items.append((control, _POLLIN))
        ready = dict(zmq_poll(items, -1))
        if control is not None and ready.get(control, 0) & _POLLIN:
            state = _control(control, stats)
            if state == "TERMINATE":
                return
            if state is not None:
                paused = state == "PAUSE"
                continue
        if paused:
            continue
        if ready.get(frontend, 0) & _POLLIN:
            _forward(frontend, backend, capture, stats.frontend, stats.backend)
        if frontend is not backend and ready.get(backend, 0) & _POLLIN:
            _forward(backend, frontend, capture, stats.backend, stats.frontend)


def proxy(frontend: Any, backend: Any, capture: Any | None = None) -> None:
    """Forward frontend <-> backend (and copy to `capture`) until an error."""
    _proxy(frontend, backend, capture, None)


def proxy_steerable(
    frontend: Any, backend: Any, capture: Any | None = None, control: Any | None = None
) -> None:
    """`proxy`, steered by PAUSE / RESUME / TERMINATE / STATISTICS on `control`.

    Returns when TERMINATE is received (or, like `proxy`, raises when a
    socket fails, e.g. ContextTerminated)."""
    _proxy(frontend, backend, capture, control)


def device(device_type: int, frontend: Any, backend: Any) -> None:
    """Run a QUEUE, FORWARDER or STREAMER device (all are `proxy` since libzmq 3)."""
    if device_type not in (C.QUEUE, C.FORWARDER, C.STREAMER):
        raise ZMQError(errno.EINVAL, f"Invalid device type: {device_type}")
    proxy(frontend, backend)
