"""Fixtures shared by every test layer.

Waiting is always on a condition with a deadline (`wait_until`), never a bare
sleep. Every purezmq context made through the `ctx` fixture is destroyed with
linger 0 at teardown, and the test fails if an I/O thread outlives it.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

import purezmq


def wait_until(cond: Callable[[], object], timeout: float = 5.0, interval: float = 0.005) -> None:
    """Return when `cond()` is truthy; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout}s: {cond}")
        time.sleep(interval)


def _io_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("purezmq")}


@pytest.fixture
def ctx() -> Iterator[purezmq.Context]:
    """A purezmq Context, destroyed (linger 0) after the test; no thread may leak."""
    before = _io_threads()
    c = purezmq.Context()
    yield c
    c.destroy(linger=0)
    wait_until(lambda: not (_io_threads() - before), timeout=5)


@pytest.fixture
def ipc_dir() -> Iterator[str]:
    """A short private directory for ipc:// paths (sun_path is only 108 bytes)."""
    d = tempfile.mkdtemp(prefix="pzt-", dir="/tmp")
    yield d
    for name in os.listdir(d):
        try:
            os.unlink(os.path.join(d, name))
        except OSError:
            pass
    os.rmdir(d)


def inproc_name() -> str:
    return f"inproc://t-{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=["tcp", "ipc", "inproc"])
def transport(request: pytest.FixtureRequest) -> str:
    """Parametrise a test over the three transports."""
    return str(request.param)


@pytest.fixture
def endpoint_for(ipc_dir: str) -> Callable[[str], str]:
    """endpoint_for("tcp"|"ipc"|"inproc") -> a fresh bindable endpoint.

    tcp uses port 0 ('*'): bind it and read LAST_ENDPOINT for the real port."""
    counter = iter(range(10**6))

    def make(transport: str) -> str:
        if transport == "tcp":
            return "tcp://127.0.0.1:*"
        if transport == "ipc":
            return f"ipc://{ipc_dir}/s{next(counter)}"
        return inproc_name()

    return make


def bind_any(sock: purezmq.Socket, endpoint: str) -> str:
    """Bind and return the concrete endpoint to connect to."""
    sock.bind(endpoint)
    return sock.get(purezmq.LAST_ENDPOINT).decode() if endpoint.startswith("tcp") else endpoint
