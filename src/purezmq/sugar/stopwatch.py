"""Stopwatch: pyzmq's microsecond timer."""

from __future__ import annotations

import time

from purezmq.error import ZMQError


class Stopwatch:
    """``start()``, then ``stop()`` returns the elapsed time in microseconds."""

    def __init__(self) -> None:
        self._start: int | None = None

    def start(self) -> None:
        if self._start is not None:
            raise ZMQError(22, "Stopwatch is already running.")
        self._start = time.perf_counter_ns()

    def stop(self) -> int:
        if self._start is None:
            raise ZMQError(22, "Must start the Stopwatch before calling stop.")
        elapsed = (time.perf_counter_ns() - self._start) // 1000
        self._start = None
        return elapsed
