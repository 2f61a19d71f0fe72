"""Fixtures for the security tests: contexts of both implementations, keys."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import zmq

from .helpers import Keys, make_keys


@pytest.fixture
def lz_ctx() -> Iterator[zmq.Context[Any]]:
    """A pyzmq (libzmq) context, destroyed with linger 0 at teardown."""
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


@pytest.fixture
def keys() -> Keys:
    """Fresh server and client CURVE key pairs (Z85)."""
    return make_keys()
