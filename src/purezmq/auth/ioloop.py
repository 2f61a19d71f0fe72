"""`IOLoopAuthenticator`: pyzmq's tornado-era name for the asyncio authenticator.

Tornado 5+ runs on asyncio, so `AsyncioAuthenticator` already answers ZAP
requests on a tornado IOLoop (its loop is an asyncio loop); pyzmq keeps this
module only so old imports work, deprecated since pyzmq 25. Same here: the
import warns, and the ``io_loop`` argument is accepted and ignored (the
authenticator runs on whichever loop is running when `start` is called).
"""

from __future__ import annotations

import warnings
from typing import Any

from .asyncio import AsyncioAuthenticator

warnings.warn(
    "zmq.auth.ioloop.IOLoopAuthenticator is deprecated; use zmq.auth.asyncio.AsyncioAuthenticator",
    DeprecationWarning,
    stacklevel=2,
)


class IOLoopAuthenticator(AsyncioAuthenticator):
    """ZAP authentication on a tornado IOLoop (that is, on its asyncio loop)."""

    def __init__(
        self,
        context: Any = None,
        encoding: str = "utf-8",
        log: Any = None,
        io_loop: Any = None,
    ) -> None:
        if io_loop is not None:
            warnings.warn(
                f"{self.__class__.__name__}(io_loop) is deprecated and ignored",
                DeprecationWarning,
                stacklevel=2,
            )
        super().__init__(context=context, encoding=encoding, log=log)


__all__ = ["IOLoopAuthenticator"]
