"""The installed pyzmq (test-only) is the reference these tests compare with."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture(scope="session")
def pyzmq() -> ModuleType:
    """pyzmq with its bundled libzmq, or skip: it is the reference, not a dependency."""
    return pytest.importorskip(
        "zmq", reason="pyzmq (the test-only reference implementation) is not installed"
    )
