"""Frame (alias Message): one message part with its flags and connection metadata."""

from __future__ import annotations

import builtins
import sys
import threading
import weakref
from typing import Any

from purezmq import constants as C
from purezmq.error import ZMQError

from .attrsettr import AttributeSetter
from .tracker import _FINISHED_TRACKER, MessageTracker, _done_tracker

_BUFFER_TYPES = (bytes, bytearray, memoryview)


def _tracked_view(data: Any, event: threading.Event) -> memoryview:
    """A memoryview of `data` that sets `event` when the last reference to it is gone.

    This memoryview object is what travels through purezmq's pipes for a
    tracked zero-copy send; the pipe and the engine drop it once it has been
    written (or the message is dropped), and the Frame drops it when it is
    deleted: then nobody can read `data` any more and the tracker is done.
    This is CPython's reference counting doing what pyzmq's zero-copy
    garbage-collector thread does for libzmq."""
    view = memoryview(data)
    # cast() or a full slice: a fresh object, never one the caller holds
    view = view.cast("B") if view.format != "B" or view.ndim != 1 else view[:]
    weakref.finalize(view, event.set)
    return view


if sys.version_info >= (3, 12):

    class _FrameBase(AttributeSetter):
        __slots__ = ()

else:
    # Before Python 3.12 a class can export the buffer protocol only by
    # inheriting it from a built-in type; bytearray gives pyzmq's writable
    # buffers. The bytearray holds a copy of the data, used only for the
    # buffer protocol (memoryview(frame), numpy.frombuffer(frame)): sends use
    # `_data`, so zero-copy sending and tracking are unchanged.
    class _FrameBase(bytearray, AttributeSetter):
        __slots__ = ()


_MIRROR = sys.version_info < (3, 12)


class Frame(_FrameBase):
    """A message part, as pyzmq's `zmq.Frame`.

    Received frames (``recv(copy=False)``) carry `more` and the properties of
    the connection they came from, readable with `get("Socket-Type")`,
    `get("Identity")`, `get("Peer-Address")` or any X- property. Frames to
    send wrap any contiguous buffer: with ``copy=False`` the buffer itself is
    sent (by reference), and with ``track=True`` the Frame's `tracker` says
    when purezmq no longer holds it (sent, or dropped, and the Frame deleted).

    A Frame exports the buffer protocol (``memoryview(frame)``,
    ``numpy.frombuffer(frame)``). On Python 3.12 and later that is the data
    itself; before 3.12 it is a private copy made when the Frame is created
    (the only way a Python class can export a buffer there).
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
        self._metadata: dict[str, str] = {}
        self._bytes: bytes | None = None
        self._buffer: weakref.ref[memoryview] | None = None
        self._routing_id = 0
        self._group: builtins.bytes | None = None
        self.more = False
        self.tracker_event = None
        self.tracker = None
        if data is None:
            self._data: Any = b""
            if track:
                self.tracker = _FINISHED_TRACKER
            return
        if _MIRROR:
            bytearray.__init__(self, data)  # type: ignore[misc, unused-ignore]
        view = memoryview(data)  # TypeError for objects without the buffer protocol
        if not view.c_contiguous:
            raise BufferError("Frame data must be a C-contiguous buffer")
        if copy is None:
            threshold = C.COPY_THRESHOLD if copy_threshold is None else copy_threshold
            copy = bool(threshold) and view.nbytes < threshold
        if copy:
            # Copied now: nothing of the caller's is held, the tracker starts done.
            self._data = view.tobytes()
            if track:
                self.tracker = _FINISHED_TRACKER
            return
        if track:
            self.tracker_event = threading.Event()
            self.tracker = MessageTracker(self.tracker_event)
            self._data = _tracked_view(data, self.tracker_event)
        else:
            self._data = data if isinstance(data, _BUFFER_TYPES) else view

    @classmethod
    def _received(
        cls,
        data: Any,
        more: bool,
        metadata: dict[str, str],
        routing_id: int = 0,
        group: builtins.bytes | None = None,
    ) -> Frame:
        """A frame handed to the application by recv(copy=False); SERVER and
        PEER give it a routing id, DISH a group."""
        f = cls.__new__(cls)
        if _MIRROR:
            bytearray.__init__(f, data)  # type: ignore[misc, unused-ignore]
        object.__setattr__(f, "_data", data)
        object.__setattr__(f, "_bytes", data if type(data) is bytes else None)
        object.__setattr__(f, "_buffer", None)
        object.__setattr__(f, "_metadata", metadata)
        object.__setattr__(f, "more", more)
        object.__setattr__(f, "tracker", None)
        object.__setattr__(f, "tracker_event", None)
        object.__setattr__(f, "_routing_id", routing_id)
        object.__setattr__(f, "_group", group)
        return f

    @property
    def bytes(self) -> builtins.bytes:
        """The content as bytes (copied on first access, then the same object)."""
        b = self._bytes
        if b is None:
            b = self._bytes = memoryview(self._data).tobytes()
        return b

    @property
    def buffer(self) -> memoryview:
        """A memoryview of the content, without copying (the same one while it lives)."""
        ref = self._buffer
        view = ref() if ref is not None else None
        if view is None:
            view = memoryview(self._data)
            self._buffer = weakref.ref(view)
        return view

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
            return self.bytes == builtins.bytes(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        nbytes = len(self)
        suffix = ""
        if nbytes > 16:
            head = memoryview(self._data)[:12].tobytes()
            if nbytes >= 1e9:
                unit, n = "GB", nbytes // 1e9
            elif nbytes >= 2**20:
                unit, n = "MB", nbytes // 1e6
            elif nbytes >= 1e3:
                unit, n = "kB", nbytes // 1e3
            else:
                unit, n = "B", nbytes
            suffix = f"...{n:.0f}{unit}"
        else:
            head = self.bytes
        cls = type(self)
        module = "zmq" if cls.__module__ == __name__ else cls.__module__
        return f"<{module}.{cls.__name__}({head!r}{suffix})>"

    __str__ = __repr__

    def __copy__(self) -> Frame:
        """A second Frame for the same data (no copy); it shares the tracker."""
        new = type(self)._received(self._data, self.more, self._metadata)
        object.__setattr__(new, "_bytes", self._bytes)
        object.__setattr__(new, "tracker", self.tracker)
        object.__setattr__(new, "tracker_event", self.tracker_event)
        object.__setattr__(new, "_routing_id", self._routing_id)
        object.__setattr__(new, "_group", self._group)
        return new

    fast_copy = __copy__

    def __getitem__(self, key: int | str | builtins.bytes) -> Any:  # type: ignore[override, unused-ignore]
        return self.get(key)

    def get(self, option: int | str | builtins.bytes) -> Any:
        """A frame option (MORE) or a connection property by name."""
        if isinstance(option, builtins.bytes):
            option = option.decode("utf8")
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
        """The peer a SERVER or PEER message came from or goes to (draft API);
        None when unset (libzmq's 0)."""
        return self._routing_id or None

    @routing_id.setter
    def routing_id(self, value: int | None) -> None:
        rid = 0 if value is None else int(value)
        if not 0 <= rid <= 0xFFFFFFFF:
            raise ZMQError(22, f"routing_id must be a 32-bit unsigned integer, not {value!r}")
        self._routing_id = rid

    @property
    def group(self) -> str | None:
        """The RADIO/DISH group of the message (draft API); None when unset."""
        g = self._group
        return None if g is None else g.decode("utf-8", "surrogateescape")

    @group.setter
    def group(self, value: str | builtins.bytes | None) -> None:
        self._group = _group_bytes(value)

    def _tracker_done(self) -> MessageTracker:
        return self.tracker if self.tracker is not None else _done_tracker()


Message = Frame


def _group_bytes(value: str | builtins.bytes | None) -> builtins.bytes | None:
    """A group as libzmq's ``zmq_msg_set_group`` takes it: at most 255 bytes
    (ZMQ_GROUP_MAX_LENGTH) - longer is EINVAL."""
    if value is None:
        return None
    raw = value.encode("utf-8") if isinstance(value, str) else builtins.bytes(value)
    if len(raw) > 255:
        raise ZMQError(22, f"group names are at most 255 bytes, not {len(raw)}")
    return raw
