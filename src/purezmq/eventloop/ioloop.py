"""Tornado's IOLoop under pyzmq's old name, ``zmq.eventloop.ioloop``.

pyzmq deprecated this module in pyzmq 17, when tornado moved onto asyncio
and a ZeroMQ socket no longer needed a special loop. It stays for old
programs: it re-exports `tornado.ioloop` (so ``ioloop.IOLoop`` *is*
tornado's class, and ``ZMQIOLoop`` an alias of it), and, as pyzmq does, it
warns with a DeprecationWarning when imported and when `install()` is called.
Any tornado IOLoop (or plain asyncio loop) runs purezmq sockets, ZMQStreams
and futures.
"""

from __future__ import annotations

import warnings


def _deprecated() -> None:
    warnings.warn(
        "zmq.eventloop.ioloop is deprecated in pyzmq 17. "
        "pyzmq (and purezmq) work with default tornado and asyncio eventloops.",
        DeprecationWarning,
        stacklevel=3,
    )


_deprecated()

from tornado.ioloop import *  # noqa: E402, F403
from tornado.ioloop import IOLoop  # noqa: E402

#: pyzmq's old loop class: tornado's own IOLoop now.
ZMQIOLoop = IOLoop


def install() -> None:
    """Deprecated (as in pyzmq 17+), and does nothing but warn.

    It used to make tornado's IOLoop the ZeroMQ-aware one; since tornado 5
    runs on asyncio there is nothing to install."""
    _deprecated()
