"""The threaded driver: a Context's tcp/ipc endpoints on its own I/O thread."""

from __future__ import annotations

from purezmq._io.driver import StreamDriver

from .iothread import IOThread


class ThreadedDriver(StreamDriver):
    """A stream driver with an I/O thread of its own (started at once)."""

    def __init__(self, name: str = "purezmq-io") -> None:
        self.thread = IOThread(name)
        super().__init__(self.thread)

    def stop(self, timeout: float | None = None) -> None:
        """End the I/O thread (Context.term, once every session is done)."""
        self.thread.stop(timeout)


__all__ = ["IOThread", "ThreadedDriver"]
