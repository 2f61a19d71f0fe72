"""`AsyncioAuthenticator`: ZAP answered by a task on the running asyncio loop.

As pyzmq's ``zmq.auth.asyncio``: `start` (called inside a running loop)
binds the handler socket and schedules a task that awaits requests with
``purezmq.asyncio.Poller`` and answers them; `stop` cancels it.
``purezmq.asyncio`` is imported when the authenticator starts, so importing
this module costs nothing.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import purezmq as zmq

from .base import Authenticator


class AsyncioAuthenticator(Authenticator):
    """ZAP authentication on the asyncio event loop."""

    def __init__(
        self,
        context: Any = None,
        loop: Any = None,
        encoding: str = "utf-8",
        log: Any = None,
    ) -> None:
        super().__init__(context, encoding, log)
        if loop is not None:
            warnings.warn(
                f"{self.__class__.__name__}(loop) is deprecated and ignored",
                DeprecationWarning,
                stacklevel=2,
            )
        self.__poller: Any = None
        self.__task: asyncio.Future[None] | None = None

    async def __handle_zap(self) -> None:
        while self.__poller is not None:
            events = await self.__poller.poll()
            if self.zap_socket in dict(events):
                msg = self.zap_socket.recv_multipart()
                await self.handle_zap_message(msg)

    def start(self) -> None:
        """Bind the handler socket and start answering (needs a running loop)."""
        from purezmq.asyncio import Poller

        super().start()
        self.__poller = Poller()
        self.__poller.register(self.zap_socket, zmq.POLLIN)
        self.__task = asyncio.ensure_future(self.__handle_zap())

    def stop(self) -> None:
        """Stop answering and close the handler socket."""
        if self.__task:
            self.__task.cancel()
            self.__task = None
        if self.__poller:
            self.__poller.unregister(self.zap_socket)
            self.__poller = None
        super().stop()


__all__ = ["AsyncioAuthenticator"]
