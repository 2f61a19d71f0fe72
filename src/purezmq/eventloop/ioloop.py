"""Tornado's IOLoop under pyzmq's old name (``zmq.eventloop.ioloop``, deprecated in pyzmq 17).

Any tornado IOLoop (or asyncio loop) works with purezmq sockets: there is
nothing to install.
"""

from __future__ import annotations

import warnings


def _deprecated() -> None:
    warnings.warn(
        "zmq.eventloop.ioloop is deprecated: use tornado's IOLoop (or asyncio) directly.",
        DeprecationWarning,
        stacklevel=3,
    )


_deprecated()

from tornado.ioloop import *  # type: ignore[import-not-found, unused-ignore]  # noqa: E402, F403
from tornado.ioloop import IOLoop  # type: ignore[import-not-found, unused-ignore]  # noqa: E402

ZMQIOLoop = IOLoop


def install() -> None:
    """Deprecated, does nothing: no special IOLoop is needed."""
    _deprecated()
