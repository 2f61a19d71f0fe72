"""The asyncio driver: tcp/ipc endpoints pumped by a running event loop."""

from __future__ import annotations

import asyncio

from purezmq._io.driver import StreamDriver

from .reactor import AsyncioReactor, LoopWaker


class AsyncioDriver(StreamDriver):
    """A stream driver whose reactor is an event loop (which it does not own)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.reactor = AsyncioReactor(loop)
        super().__init__(self.reactor)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self.reactor.loop


def loop_supports_readers(loop: asyncio.AbstractEventLoop) -> bool:
    """Proactor loops (Windows) cannot watch descriptors with add_reader."""
    return not type(loop).__name__.startswith("_WindowsProactor") and not isinstance(
        loop, getattr(asyncio, "ProactorEventLoop", ())
    )


__all__ = ["AsyncioDriver", "AsyncioReactor", "LoopWaker", "loop_supports_readers"]
