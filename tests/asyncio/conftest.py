"""Run each asyncio test on the standard loop and, when installed, on uvloop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is in the test extra on Unix
    uvloop = None

LOOPS = ["asyncio", "uvloop"]


@pytest.fixture(params=LOOPS)
def run(request: pytest.FixtureRequest) -> Iterator[Callable[[Coroutine[Any, Any, Any]], Any]]:
    """run(coro) on a fresh loop of the parametrised kind; returns its result."""
    if request.param == "uvloop":
        if uvloop is None:
            pytest.skip("uvloop is not installed")
        factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    else:
        factory = asyncio.new_event_loop

    def runner(coro: Coroutine[Any, Any, Any]) -> Any:
        loop = factory()
        try:
            return loop.run_until_complete(asyncio.wait_for(coro, 20))
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    yield runner
