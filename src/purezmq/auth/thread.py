"""`ThreadAuthenticator`: ZAP answered from a background thread.

As pyzmq's ``zmq.auth.thread``: `start` binds the handler socket and starts
an `AuthenticationThread`, which polls that socket and a PAIR pipe for the
TERMINATE command sent by `stop`. Policies may be changed from any thread
while it runs (they are plain dicts and sets, read per request).

The thread owns a private asyncio loop only to await
`Authenticator.handle_zap_message` (a coroutine, so CURVE credential
callbacks may be coroutines); its sockets are ordinary blocking ones.
"""

from __future__ import annotations

import asyncio
import sys
from threading import Event, Thread
from typing import Any

import purezmq as zmq

from .base import Authenticator

#: How long `start` waits for the thread to come up.
_START_TIMEOUT = 10.0


class AuthenticationThread(Thread):
    """Runs an Authenticator's request loop (started by ThreadAuthenticator)."""

    pipe: Any
    loop: asyncio.AbstractEventLoop
    authenticator: Authenticator
    poller: Any = None

    def __init__(self, authenticator: Authenticator, pipe: Any) -> None:
        super().__init__(daemon=True, name="purezmq-auth")
        self.authenticator = authenticator
        self.log = authenticator.log
        self.pipe = pipe
        self.started = Event()

    def run(self) -> None:
        """Serve ZAP requests until TERMINATE arrives on the pipe."""
        self.loop = asyncio.new_event_loop()
        try:
            self._run()
        finally:
            if self.pipe:
                self.pipe.close()
                self.pipe = None
            self.loop.close()

    def _run(self) -> None:
        zap_socket = self.authenticator.zap_socket
        self.poller = zmq.Poller()
        self.poller.register(self.pipe, zmq.POLLIN)
        self.poller.register(zap_socket, zmq.POLLIN)
        self.started.set()
        while True:
            events = dict(self.poller.poll())
            if self.pipe in events and self._handle_pipe_message(self.pipe.recv_multipart()):
                return
            if zap_socket in events:
                msg = zap_socket.recv_multipart()
                self.loop.run_until_complete(self.authenticator.handle_zap_message(msg))

    def _handle_pipe_message(self, msg: list[bytes]) -> bool:
        """True for TERMINATE; anything else is answered with ERROR."""
        command = msg[0]
        self.log.debug("auth received API command %r", command)
        if command == b"TERMINATE":
            return True
        self.log.error("Invalid auth command from API: %r", command)
        self.pipe.send(b"ERROR")
        return False


class ThreadAuthenticator(Authenticator):
    """An `Authenticator` that answers ZAP requests in a background thread."""

    pipe: Any
    pipe_endpoint: str = ""
    thread: Any

    def __init__(self, context: Any = None, encoding: str = "utf-8", log: Any = None) -> None:
        super().__init__(context=context, encoding=encoding, log=log)
        self.pipe = None
        self.pipe_endpoint = f"inproc://{id(self)}.inproc"
        self.thread = None

    def start(self) -> None:
        """Bind the handler socket and start the thread (waits until it polls)."""
        super().start()
        self.pipe = self.context.socket(zmq.PAIR, socket_class=zmq.Socket)
        self.pipe.linger = 1
        self.pipe.bind(self.pipe_endpoint)
        thread_pipe = self.context.socket(zmq.PAIR, socket_class=zmq.Socket)
        thread_pipe.linger = 1
        thread_pipe.connect(self.pipe_endpoint)
        self.thread = AuthenticationThread(authenticator=self, pipe=thread_pipe)
        self.thread.start()
        if not self.thread.started.wait(timeout=_START_TIMEOUT):
            raise RuntimeError("Authenticator thread failed to start")

    def stop(self) -> None:
        """Stop the thread, then close the handler socket."""
        if self.pipe:
            self.pipe.send(b"TERMINATE")
            if self.is_alive():
                self.thread.join()
            self.thread = None
            self.pipe.close()
            self.pipe = None
        super().stop()

    def is_alive(self) -> bool:
        """Is the thread running?"""
        return bool(self.thread and self.thread.is_alive())

    def __del__(self) -> None:
        if sys.is_finalizing():
            return  # the threads may be frozen: stopping could hang the exit
        try:
            self.stop()
        except Exception:  # interpreter shutdown or a context already gone
            pass


__all__ = ["ThreadAuthenticator"]
