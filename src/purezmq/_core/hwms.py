"""High-water marks on pipes that already exist.

libzmq 4.3 applies a new SNDHWM/RCVHWM to a socket's live pipes too, not
only to those made afterwards; an inproc pipe's bounds are both sockets'
marks added up (0, no limit, on either side wins), as at connect time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from purezmq import constants as C

if TYPE_CHECKING:
    from purezmq._routing.pipe import Pipe

    from .options import SocketOptions


def sum_hwm(a: int, b: int) -> int:
    """libzmq's inproc HWM: both marks add up; 0 (no limit) on either side wins."""
    return a + b if a and b else 0


def apply_hwms(
    pipes: Iterable[Pipe], options: SocketOptions, write_activated: Callable[[Pipe], None]
) -> None:
    """Give the socket-side ends `pipes` the marks in `options` now.

    `write_activated` is the pattern's: a pipe that has room again under the
    new mark may have been parked as full by the load balancer or dist."""
    from .socket_core import SocketCore  # the inproc peer; imported late (it imports us)

    snd: int = options.value(C.SNDHWM)
    rcv: int = options.value(C.RCVHWM)
    for pipe in pipes:
        if pipe.conflate:
            continue
        peer_end = pipe.peer
        owner = peer_end.owner
        if isinstance(owner, SocketCore):  # inproc: both sockets' marks add up
            po = owner.options
            pipe.set_hwms(sum_hwm(snd, po.value(C.RCVHWM)), sum_hwm(rcv, po.value(C.SNDHWM)))
        else:
            pipe.set_hwms(snd, rcv)
        if owner is not None:
            owner.write_activated(peer_end)  # a paused reader may have room now
        if pipe.check_write():
            write_activated(pipe)
