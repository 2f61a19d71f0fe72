"""pyzmq's ``zmq.backend`` names, for programs that import them from there.

In pyzmq, ``zmq.backend`` is the compiled layer (Cython, or CFFI on PyPy)
under the pure-Python "sugar" classes. purezmq has no compiled layer: its
Context, Socket and Frame are the sugar classes themselves, so this module
re-exports them.

Deliberate choice: ``zmq.backend.Socket.__module__`` is purezmq's own module
name, not one that starts with ``zmq.backend.cffi.``. pyzmq's test suite
treats a CFFI backend like PyPy and skips its zero-copy, MessageTracker and
reference-counting tests; purezmq does not claim that exemption. Those tests
run against purezmq, and the few that assert CPython reference counts held
by pyzmq's Cython garbage collector are excluded by name, with that reason,
in the drop-in harness (tests/dropin/harness.py).
"""

from __future__ import annotations

from typing import Any

from purezmq.constants import IPC_PATH_MAX_LEN, PYZMQ_DRAFT_API
from purezmq.error import strerror, zmq_errno
from purezmq.sugar.context import Context
from purezmq.sugar.frame import Frame, Message
from purezmq.sugar.poll import zmq_poll
from purezmq.sugar.proxy import proxy, proxy_steerable
from purezmq.sugar.socket import Socket
from purezmq.sugar.version import zmq_version_info


def has(capability: str) -> bool:
    """Whether purezmq supports `capability` (see ``purezmq.has``)."""
    import purezmq

    return purezmq.has(capability)


def __getattr__(name: str) -> Any:
    # The CURVE key functions live with the security mechanisms; look them up
    # lazily so that this module imports whether or not they are present.
    if name in ("curve_keypair", "curve_public"):
        import purezmq

        return getattr(purezmq, name)
    if name == "monitored_queue":  # imported on demand: it pulls in purezmq.devices
        from purezmq.devices.monitoredqueue import monitored_queue

        return monitored_queue
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: pyzmq's ``zmq.backend.select.public_api``.
public_api = [
    "Context",
    "Socket",
    "Frame",
    "Message",
    "proxy",
    "proxy_steerable",
    "zmq_poll",
    "strerror",
    "zmq_errno",
    "has",
    "curve_keypair",
    "curve_public",
    "zmq_version_info",
    "IPC_PATH_MAX_LEN",
    "PYZMQ_DRAFT_API",
]

__all__ = [
    "IPC_PATH_MAX_LEN",
    "PYZMQ_DRAFT_API",
    "Context",
    "Frame",
    "Message",
    "Socket",
    "has",
    "proxy",
    "proxy_steerable",
    "strerror",
    "zmq_errno",
    "zmq_poll",
    "zmq_version_info",
]
