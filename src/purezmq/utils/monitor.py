"""Decode socket-monitor events (libzmq's two-frame format).

Frame 1 is 6 bytes: the event number (uint16) and a value (uint32), in
native byte order; frame 2 is the endpoint. `Socket.get_monitor_socket()`
returns a PAIR that receives them.
"""

from __future__ import annotations

import inspect
import struct
from collections.abc import Awaitable
from typing import Any, TypedDict

from purezmq import constants as C


class _MonitorMessage(TypedDict):
    event: int
    value: int
    endpoint: bytes


def parse_monitor_message(msg: list[bytes]) -> _MonitorMessage:
    """{'event': Event, 'value': int, 'endpoint': bytes} from the two frames."""
    if len(msg) != 2 or len(msg[0]) != 6:
        raise RuntimeError(f"Invalid event message format: {msg!r}")
    event_id, value = struct.unpack("=hi", bytes(msg[0]))
    event: int = event_id & 0xFFFF
    try:
        event = C.Event(event)
    except ValueError:
        pass
    return {"event": event, "value": value, "endpoint": bytes(msg[1])}


def recv_monitor_message(socket: Any, flags: int = 0) -> Any:
    """Receive one event from a monitor socket and decode it.

    With an asyncio socket, returns an awaitable of the decoded event (as
    pyzmq does)."""
    msg = socket.recv_multipart(flags)
    if inspect.isawaitable(msg):
        return _parse_later(msg)
    return parse_monitor_message(msg)


async def _parse_later(msg: Awaitable[list[bytes]]) -> _MonitorMessage:
    return parse_monitor_message(await msg)


__all__ = ["parse_monitor_message", "recv_monitor_message"]
