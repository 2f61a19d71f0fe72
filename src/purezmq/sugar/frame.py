"""Frame (alias Message): one message part with its flags and connection metadata."""

from __future__ import annotations

import builtins
import threading
from typing import Any

from purezmq import constants as C
from purezmq.error import ZMQError

from .attrsettr import AttributeSetter
from .tracker import MessageTracker, _done_tracker

_BUFFER_TYPES = (bytes, bytearray, memoryview)


class Frame(AttributeSetter):
    """A message part, as pyzmq's `zmq.Frame`.

    Received frames (``recv(copy=False)``) carry `more` and the properties of
    the connection they came from, readable with `get("Socket-Type")`,
    `get("Identity")`, `get("Peer-Address")` or any X- property. Frames to
    send wrap any buffer; with ``copy=False`` the buffer itself is sent.
    """

    more: bool
    tracker: MessageTracker | None
    tracker_event: threading.Event | None

    def __init__(
        self,
        data: Any = None,
        track: bool = False,
        copy: bool | None = None,
        copy_threshold: int | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(data, str):
            raise TypeError("Str objects not allowed. Only: bytes, buffer interfaces.")
        if data is None:
            data = b""
        elif not isinstance(data, _BUFFER_TYPES):
            data = memoryview(data)
        if copy and not isinstance(data, bytes):
            data = bytes(data)
        self._data: Any = data
        self._bytes: bytes | None = data if isinstance(data, bytes) else None
        self._metadata: dict[str, str] = {}
        self.more = False
        if track:
            self.tracker_event = threading.Event()
            self.tracker = MessageTracker(self.tracker_event)
        else:
            self.tracker_event = None
            self.tracker = None

    @classmethod
    def _received(cls, data: Any, more: bool, metadata: dict[str, str]) -> Frame:
        """A frame handed to the application by recv(copy=False)."""
        f = cls.__new__(cls)
        object.__setattr__(f, "_data", data)
        object.__setattr__(f, "_bytes", data if isinstance(data, bytes) else None)
        object.__setattr__(f, "_metadata", metadata)
        object.__setattr__(f, "more", more)
        object.__setattr__(f, "tracker", None)
        object.__setattr__(f, "tracker_event", None)
        return f

    @property
    def bytes(self) -> bytes:
        """The content as bytes (copied once, then cached)."""
        b = self._bytes
        if b is None:
            b = self._bytes = bytes(self._data)
        return b

    @property
    def buffer(self) -> memoryview:
        """A memoryview of the content, without copying."""
        return memoryview(self._data)

    def __buffer__(self, flags: int) -> memoryview:  # Python 3.12+ buffer protocol
        return memoryview(self._data)

    def __len__(self) -> int:
        d = self._data
        return d.nbytes if isinstance(d, memoryview) else len(d)

    def __bytes__(self) -> builtins.bytes:
        return self.bytes

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Frame):
            return self.bytes == other.bytes
        if isinstance(other, _BUFFER_TYPES):
            return self.bytes == bytes(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        nbytes = len(self)
        preview = self.bytes[:32]
        suffix = "..." if nbytes > 32 else ""
        return f"<{type(self).__name__}({preview!r}{suffix}): {nbytes}B>"

    def __copy__(self) -> Frame:
        new = Frame(self._data, copy=False)
        new.more = self.more
        return new

    def get(self, option: int | str) -> Any:
        """A frame option (MORE) or a connection property by name."""
        if isinstance(option, str):
            for key, value in self._metadata.items():
                if key.lower() == option.lower():
                    return value
            raise ZMQError(22, f"No such property: {option!r}")
        if option == C.MORE:
            return int(self.more)
        raise ZMQError(22, f"Frame option {option} is not supported")

    def set(self, option: int, value: Any) -> None:
        if option == C.MORE:
            self.more = bool(value)
            return
        raise ZMQError(22, f"Frame option {option} is not supported")

    @property
    def routing_id(self) -> int | None:
        return None

    @property
    def group(self) -> str | None:
        return None

    def _tracker_done(self) -> MessageTracker:
        return self.tracker if self.tracker is not None else _done_tracker()


Message = Frame
