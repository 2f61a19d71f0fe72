"""What the draft socket types share: single-part messages and addressed frames.

libzmq's draft types (CLIENT, SERVER, RADIO, DISH, SCATTER, GATHER, PEER,
CHANNEL) are thread-safe, and a thread-safe socket cannot hold half a
message between two calls: every message is one frame. Sending with MORE
is EINVAL (``xsend``: "sockets do not allow multipart data"); a multipart
message that arrives from a peer is dropped whole (``xrecv``: "drop any
messages with more flag").

A frame may carry a routing id (SERVER and PEER route on it) or a group
(RADIO and DISH), as libzmq's ``msg_t`` does. The facade wraps such a frame
in `Addressed` and hands it to the socket's ordinary send path; the draft
patterns unwrap it, and every other pattern never sees one.
"""

from __future__ import annotations

from typing import Final

from purezmq._routing.errors import InvalidError
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg

#: libzmq's ZMQ_GROUP_MAX_LENGTH (4.3.x).
GROUP_MAX_LENGTH: Final = 255


class Addressed:
    """A frame with the routing id and group libzmq keeps in its ``msg_t``."""

    __slots__ = ("data", "group", "routing_id")

    def __init__(self, data: Frame, routing_id: int = 0, group: bytes = b"") -> None:
        self.data = data
        #: The peer a SERVER or PEER sends to (0: none, never a valid id).
        self.routing_id = routing_id
        #: The group a RADIO publishes to.
        self.group = group


def unwrap(frame: Frame) -> tuple[Frame, int, bytes]:
    """(data, routing id, group) of a frame handed to `send`."""
    if isinstance(frame, Addressed):
        return frame.data, frame.routing_id, frame.group
    return frame, 0, b""


def single(socket_type: str, more: bool) -> None:
    """Draft types send one-frame messages only: MORE is EINVAL, as libzmq."""
    if more:
        raise InvalidError(f"{socket_type} sockets do not allow multipart data (SNDMORE)")


def single_msg(socket_type: str, frames: Msg) -> Frame:
    """The one frame of a whole message to send (unwrapped), or EINVAL."""
    single(socket_type, len(frames) != 1)
    return frames[0]


def check_group(group: bytes) -> bytes:
    """A group name as libzmq's ``msg_t::set_group`` takes it: up to 255 bytes."""
    if len(group) > GROUP_MAX_LENGTH:
        raise InvalidError(f"group names are at most {GROUP_MAX_LENGTH} bytes, not {len(group)}")
    return group


def recv_single(fq: FairQueue) -> Msg | None:
    """The next one-frame message; multipart messages from peers are dropped."""
    while True:
        msg = fq.recv()
        if msg is None or len(msg) == 1:
            return msg
