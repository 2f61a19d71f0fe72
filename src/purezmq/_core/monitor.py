"""Socket monitor events (`zmq_socket_monitor`), in libzmq's format.

A monitored socket binds an inproc PAIR and publishes two-frame events on
it: ``struct.pack("=HI", event, value)`` and the endpoint. The application
connects its own PAIR (pyzmq's `get_monitor_socket`). Events come from any
thread - the socket's own (bind, listen) and the driver's (connect, accept,
handshake, disconnect) - so sending is guarded by a lock and never blocks:
an event the monitor's queue cannot take is dropped, as in libzmq, rather
than stall the I/O thread.
"""

from __future__ import annotations

import errno
import struct
import threading
from typing import TYPE_CHECKING

from purezmq import constants as C
from purezmq.error import ZMQError

if TYPE_CHECKING:
    from .context_core import ContextCore
    from .socket_core import SocketCore

_EVENT_ALL = int(C.EVENT_ALL)
_MONITOR_STOPPED = int(C.EVENT_MONITOR_STOPPED)


class Monitor:
    """The monitor of one socket: which events, and the PAIR they go to."""

    __slots__ = ("_events", "_lock", "_pair")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pair: SocketCore | None = None
        #: Bit mask of the events asked for; 0 = no monitor (one test per event).
        self._events = 0

    def event(self, event: int, value: int, endpoint: str) -> None:
        """Publish `event` if the monitor listens for it. Any thread."""
        if not self._events & event:
            return
        with self._lock:
            pair = self._pair
            if pair is None or pair.closed:
                return
            frames = [struct.pack("=HI", event, value & 0xFFFFFFFF), endpoint.encode()]
            try:
                pair.send_msg(frames, nonblock=True)
            except ZMQError:
                pass  # the monitor's queue is full or it is closing: drop, never block

    def start(self, ctx: ContextCore, addr: str | None, events: int) -> None:
        """Bind a PAIR at inproc `addr` and publish `events` (0 = all) on it;
        None only stops. As in libzmq, the monitored socket binds the
        endpoint and the application connects its own PAIR to it."""
        if addr is not None:
            from .endpoints import parse

            parse(addr)  # a malformed endpoint is EINVAL, as for bind(): nothing stops
        self.stop()
        if addr is None:
            return
        if not addr.startswith("inproc://"):
            raise ZMQError(errno.EPROTONOSUPPORT, "monitor endpoints must be inproc://")
        pair = ctx.socket(C.PAIR)
        try:
            pair.options.store(C.LINGER, 0)
            pair.bind(addr)
        except ZMQError:
            pair.close()
            raise
        with self._lock:
            self._pair = pair
            self._events = events if events else _EVENT_ALL

    def stop(self) -> None:
        """Send EVENT_MONITOR_STOPPED (if asked for) and close the PAIR."""
        # No lock to read it: only the socket's thread sets `_pair` (start and
        # stop), and this is it. Every close() asks, and most find none.
        pair = self._pair
        if pair is None:
            return
        self.event(_MONITOR_STOPPED, 0, "")
        with self._lock:
            self._pair = None
            self._events = 0
        pair.close()
