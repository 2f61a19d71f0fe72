"""MessageTracker: know when purezmq no longer needs a zero-copy buffer."""

from __future__ import annotations

import threading
import time
from typing import Any

from purezmq.error import NotDone


class MessageTracker:
    """Tracks one or more messages sent with ``copy=False, track=True``.

    Done when every watched event is set (or every watched tracker/Frame is
    done). After that the application may reuse or modify the buffers.
    """

    def __init__(self, *towatch: Any) -> None:
        self.events: set[threading.Event] = set()
        self.peers: set[MessageTracker] = set()
        for obj in towatch:
            if isinstance(obj, threading.Event):
                self.events.add(obj)
            elif isinstance(obj, MessageTracker):
                self.peers.add(obj)
            elif hasattr(obj, "tracker"):  # a Frame
                if obj.tracker is None:
                    raise ValueError("Not a tracked message")
                self.peers.add(obj.tracker)
            else:
                raise TypeError(f"Require Events or MessageTrackers, not {type(obj)}")

    @property
    def done(self) -> bool:
        """True once no watched message is in use any more."""
        return all(e.is_set() for e in self.events) and all(p.done for p in self.peers)

    def wait(self, timeout: float | int = -1) -> None:
        """Block until done, for at most `timeout` seconds (-1: forever).

        Raises NotDone if the timeout expires first."""
        deadline = None if timeout < 0 else time.monotonic() + timeout
        for e in self.events:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not e.wait(remaining):
                raise NotDone()
        for p in self.peers:
            remaining = -1 if deadline is None else max(0.0, deadline - time.monotonic())
            p.wait(remaining)


#: The tracker returned for sends that copied their data: done from the start.
_FINISHED_TRACKER = MessageTracker()


def _done_tracker() -> MessageTracker:
    """A tracker that is already done (the data was copied, nothing to wait for)."""
    return _FINISHED_TRACKER
