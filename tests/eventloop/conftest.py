"""Run each tornado test on a fresh asyncio loop and, when installed, on uvloop.

Tornado 5+ runs on asyncio: inside the loop, ``IOLoop.current()`` is the
tornado IOLoop wrapping it. These tests need tornado (the ``test`` extra has
it); without it they are skipped, except `test_import.py`, which checks what
happens without tornado.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is in the test extra on Unix
    uvloop = None

LOOPS = ["asyncio", "uvloop"]

#: main(io_loop) -> awaitable; run(main) returns its result.
Run = Callable[[Callable[[Any], Awaitable[Any]]], Any]


@pytest.fixture(params=LOOPS)
def run(request: pytest.FixtureRequest) -> Iterator[Run]:
    """run(main): await main(IOLoop.current()) on a fresh loop (20 s at most)."""
    pytest.importorskip("tornado")
    from tornado.ioloop import IOLoop

    if request.param == "uvloop":
        if uvloop is None:
            pytest.skip("uvloop is not installed")
        factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    else:
        factory = asyncio.new_event_loop

    def runner(main: Callable[[Any], Awaitable[Any]]) -> Any:
        loop = factory()
        io_loops: list[Any] = []

        async def wrapper() -> Any:
            io_loop = IOLoop.current()
            io_loops.append(io_loop)
            return await asyncio.wait_for(main(io_loop), 20)

        try:
            return loop.run_until_complete(wrapper())
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            if io_loops:
                io_loops[0].close()  # also closes the asyncio loop
            else:
                loop.close()

    yield runner


async def wait_for(fut: Awaitable[Any], timeout: float = 5.0) -> Any:
    """Await `fut`, failing the test after `timeout` seconds."""
    try:
        return await asyncio.wait_for(fut, timeout)
    except asyncio.TimeoutError:
        pytest.fail(f"not done within {timeout}s")
