"""The connection of a STREAM socket: raw bytes, no ZMTP at all.

STREAM sockets talk to plain TCP peers (HTTP clients, telnet, a device). A
session drives this object exactly as it drives a `ZMTPConnection` - the
same receive-buffer, pull, encode and timer calls - so one session and one
engine serve both. Each chunk read from the OS becomes a one-frame message;
each frame sent is written as is, without any framing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from .metadata import EMPTY

Buffer = Any

#: Size of the buffer a read lands in; each read becomes one message.
RAW_BUFFER = 64 * 1024


class RawConnection:
    """A "connection" that is ready at once and passes bytes through."""

    socket_type = "STREAM"
    #: There is no handshake.
    handshake_done = True
    peer_socket_type = ""
    peer_identity = b""
    peer_major = -1
    peer_minor = -1
    close_reason = None
    receiving_big_frame = False
    big_frame_remaining = 0

    def __init__(self, *, buffer_size: int = RAW_BUFFER) -> None:
        self._buf = bytearray(buffer_size)
        self._view = memoryview(self._buf)
        self._chunks: deque[bytes] = deque()
        self._queued = 0
        self._out: list[Buffer] = []
        self.peer_metadata = EMPTY

    @property
    def state(self) -> str:
        return "ready"

    # ------------------------------------------------------------ input
    def get_buffer(self, sizehint: int = -1) -> memoryview:
        return self._view

    def buffer_updated(self, nbytes: int, now: float) -> None:
        chunk = bytes(self._view[:nbytes])
        self._chunks.append(chunk)
        self._queued += nbytes

    def receive_data(self, data: Buffer, now: float) -> None:
        chunk = bytes(data)
        if chunk:
            self._chunks.append(chunk)
            self._queued += len(chunk)

    @property
    def has_pending_input(self) -> bool:
        return bool(self._chunks)

    @property
    def unparsed_bytes(self) -> int:
        return self._queued

    @property
    def pressure_bytes(self) -> int:
        """Every byte counts: a raw stream has no frames to leave out."""
        return self._queued

    def pull(self, max_msgs: int) -> list[list[bytes]]:
        """Up to `max_msgs` received chunks, one message each."""
        chunks = self._chunks
        out: list[list[bytes]] = []
        while chunks and len(out) < max_msgs:
            chunk = chunks.popleft()
            self._queued -= len(chunk)
            out.append([chunk])
        return out

    # ------------------------------------------------------------ output
    def send_messages(self, msgs: Iterable[Sequence[Buffer]]) -> None:
        out = self._out
        for msg in msgs:
            out.extend(f for f in msg if len(f))

    def data_to_send(self) -> list[Buffer]:
        out, self._out = self._out, []
        return out

    @property
    def has_output(self) -> bool:
        return bool(self._out)

    # ------------------------------------------------------------ time
    def next_deadline(self) -> float | None:
        return None

    def on_timer(self, now: float) -> None:
        """No handshake, no heartbeats: nothing is ever due."""
