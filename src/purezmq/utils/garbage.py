"""pyzmq's zero-copy garbage collector (``zmq.utils.garbage``), for compatibility.

pyzmq needs a helper thread to learn when libzmq (C code) has released a
Python buffer sent with ``copy=False``. purezmq holds such buffers by plain
Python references, so the interpreter's own reference counting does that
job: nothing is ever stored here and `refs` stays empty. The object keeps
pyzmq's interface for programs and tests that look at it.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple


class gcref(NamedTuple):  # noqa: N801 - pyzmq's name
    obj: object
    event: threading.Event | None


class GarbageCollectorThread(threading.Thread):
    """pyzmq's collector thread, for name compatibility: purezmq never starts one."""

    def __init__(self, gc: GarbageCollector) -> None:
        super().__init__(daemon=True)
        self.gc = gc

    def run(self) -> None:
        return None


class GarbageCollector:
    """pyzmq's GarbageCollector interface; purezmq never needs to store anything."""

    def __init__(self, context: Any = None) -> None:
        self.refs: dict[int, gcref] = {}
        self.context = context

    def start(self) -> None:
        """Nothing to start: no helper thread is needed."""

    def stop(self) -> None:
        """Nothing to stop."""

    def is_alive(self) -> bool:
        return False

    def store(self, obj: object, event: threading.Event | None = None) -> int:
        """Keep `obj` until `release` (unused by purezmq itself)."""
        key = id(obj)
        self.refs[key] = gcref(obj, event)
        return key

    def release(self, key: int) -> None:
        ref = self.refs.pop(key, None)
        if ref is not None and ref.event is not None:
            ref.event.set()


gc = GarbageCollector()

__all__ = ["GarbageCollector", "GarbageCollectorThread", "gc", "gcref"]
