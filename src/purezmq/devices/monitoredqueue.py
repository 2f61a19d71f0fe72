"""monitored_queue: a queue between two sockets that reports every message on a third.

Unlike `proxy`, it supports ROUTER-ROUTER queues: when both sides are
ROUTERs, the first two frames (the sender's and the addressee's identities)
are swapped, so a message addressed ``[to, ...]`` arrives ``[from, ...]``.
Each forwarded message is also sent to the monitor socket, prefixed with
`in_prefix` (frontend to backend) or `out_prefix` (backend to frontend).
"""

from __future__ import annotations

from purezmq import constants as C
from purezmq.sugar.poll import zmq_poll
from purezmq.sugar.socket import Socket

_POLLIN = int(C.POLLIN)


def _relay(src: Socket, dst: Socket, mon: Socket, prefix: bytes, swap_ids: bool) -> None:
    msg = src.recv_multipart()
    if swap_ids and len(msg) >= 2:
        msg[0], msg[1] = msg[1], msg[0]
    dst.send_multipart(msg)
    mon.send_multipart([prefix, *msg])


def monitored_queue(
    in_socket: Socket,
    out_socket: Socket,
    mon_socket: Socket,
    in_prefix: bytes = b"in",
    out_prefix: bytes = b"out",
) -> None:
    """Forward between `in_socket` and `out_socket` until a socket fails
    (ContextTerminated when the context is terminated), copying every message
    to `mon_socket` behind its direction's prefix."""
    if not isinstance(in_prefix, bytes):
        raise TypeError(f"in_prefix must be bytes, not {type(in_prefix).__name__}")
    if not isinstance(out_prefix, bytes):
        raise TypeError(f"out_prefix must be bytes, not {type(out_prefix).__name__}")
    swap_ids = in_socket.socket_type == C.ROUTER and out_socket.socket_type == C.ROUTER
    items = [(in_socket, _POLLIN), (out_socket, _POLLIN)]
    while True:
        ready = dict(zmq_poll(items, -1))
        if ready.get(in_socket, 0) & _POLLIN:
            _relay(in_socket, out_socket, mon_socket, in_prefix, swap_ids)
        if ready.get(out_socket, 0) & _POLLIN:
            _relay(out_socket, in_socket, mon_socket, out_prefix, swap_ids)


__all__ = ["monitored_queue"]
