"""ZAP client plumbing: a session's request to ``inproc://zeromq.zap.01``.

When a mechanism wants a ZAP verdict (RFC 27), the session opens an inproc
pipe to the handler socket bound at ``inproc://zeromq.zap.01`` in the same
context - as libzmq's ``session_base_t::zap_connect`` does - and writes the
request as one message: an empty delimiter frame, then the RFC 27 frames
(so a REP handler sees a REQ-style envelope and a ROUTER handler gets the
usual routing-id prefix). The pipe has no HWM (libzmq: "on the ZAP socket,
the HWM is disabled").

The handler's reply arrives on the *handler's* thread through the pipe's
``read_activated``; `ZapClient` takes it there and hands it to the session's
callback, which must be thread-safe (the session stores it under its lock
and lets its driver process it). A handler that closes its socket before
answering ends the request with `on_failure`.

Nothing here blocks; nothing here knows the mechanism.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from purezmq._routing.pipe import Pipe, pipepair
from purezmq._zmtp import NO_CODE, ZAP_UNSPECIFIED, ProtocolError, ZMTPConnection

if TYPE_CHECKING:
    from purezmq._zmtp.raw import RawConnection

    from .context_core import ContextCore
    from .protocols import InprocPeer

log = logging.getLogger("purezmq")

#: The inproc name of the ZAP handler (RFC 27).
ZAP_ENDPOINT = "zeromq.zap.01"
#: Socket types libzmq accepts as a ZAP handler (it asserts on others).
_HANDLER_TYPES = frozenset({"REP", "ROUTER", "SERVER"})


def find_handler(ctx: ContextCore) -> InprocPeer | None:
    """The socket bound at inproc://zeromq.zap.01 in `ctx`, if any."""
    handler = ctx.inproc_binder(ZAP_ENDPOINT)
    if handler is None or handler.closed:
        return None
    if handler.type_name not in _HANDLER_TYPES:
        log.warning(
            "purezmq: the ZAP handler at inproc://%s is a %s socket; "
            "it must be REP or ROUTER - treated as absent",
            ZAP_ENDPOINT,
            handler.type_name,
        )
        return None
    return handler


def handler_bound(ctx: ContextCore) -> bool:
    """Is a usable ZAP handler bound in `ctx` right now?"""
    return find_handler(ctx) is not None


class ZapClient:
    """One ZAP request in flight, on its own inproc pipe (a `PipeOwner`).

    `on_reply(frames)` and `on_failure(reason)` are called at most once in
    total, from whichever thread notices (usually the handler's).
    """

    def __init__(
        self,
        handler: InprocPeer,
        on_reply: Callable[[list[bytes]], None],
        on_failure: Callable[[str], None],
    ) -> None:
        self._on_reply = on_reply
        self._on_failure = on_failure
        self._lock = threading.Lock()
        self._done = False
        ours, theirs = pipepair(self, None)
        ours.set_hwms(0, 0)
        theirs.peer_identity = b""  # libzmq sends an empty routing id to ROUTERs
        self._pipe: Pipe = ours
        handler.attach_inproc_pipe(theirs, locally_initiated=False)

    def send(self, request: list[bytes]) -> None:
        """Write the request (RFC 27 frames, without the delimiter)."""
        self._pipe.force_write([b"", *request])

    def close(self) -> None:
        """Forget the request (connection gone or answer taken); idempotent."""
        with self._lock:
            self._done = True
        self._pipe.close()

    def _finish(self) -> bool:
        with self._lock:
            if self._done:
                return False
            self._done = True
            return True

    # PipeOwner: called from the handler's thread.
    def read_activated(self, pipe: Pipe) -> None:
        msg = pipe.read()
        if msg is None:
            if pipe.in_closed:
                self.pipe_closed(pipe)
            return
        if self._finish():
            self._pipe.close()
            self._on_reply([bytes(frame) for frame in msg])

    def write_activated(self, pipe: Pipe) -> None:
        pass

    def pipe_closed(self, pipe: Pipe) -> None:
        # A reply queued before the close is still delivered.
        if pipe.check_read():
            self.read_activated(pipe)
            return
        if self._finish():
            self._pipe.close()
            self._on_failure("the ZAP handler closed before answering")

    def hiccuped(self, pipe: Pipe) -> None:  # pragma: no cover - inproc never hiccups
        pass


class SessionZap:
    """A session's ZAP state: at most one request per connection.

    The session calls `send_pending` after feeding its connection (driver
    thread, session lock held) and `deliver` from its timer; the reply or
    failure may arrive on any thread in between, and `wake` (thread-safe)
    asks the driver to run the session's timer soon.
    """

    def __init__(self, ctx: ContextCore) -> None:
        self._ctx = ctx
        #: How to wake the session for the answer: given with the request and
        #: used once. Held from the start, it made each session and this
        #: object a reference cycle that only the garbage collector freed.
        self._wake: Callable[[], None] | None = None
        #: Made by the first request. Most sessions (NULL without a ZAP
        #: domain) never send one, and making a lock, then taking it at every
        #: connection's start and end, cost about 5k instructions compiled per
        #: connection (issue 14). Made and first needed under the session's
        #: lock (`send_pending`, `reset`), so it cannot be made twice.
        self._lock: threading.Lock | None = None
        self._client: ZapClient | None = None
        self._reply: list[bytes] | None = None
        self._failure: str | None = None

    @property
    def pending(self) -> bool:
        """An answer (or a failure) waits for `deliver`."""
        return self._reply is not None or self._failure is not None

    def send_pending(self, conn: ZMTPConnection, wake: Callable[[], None]) -> None:
        """Send the ZAP request `conn`'s mechanism made, if any; `wake` (any
        thread) asks the driver to run the session's timer when it is answered.

        Raises ProtocolError(kind="auth") when no handler is bound: the
        mechanism needs a verdict nobody can give (a PLAIN server, or
        ZAP_ENFORCE_DOMAIN), so the connection fails, as in libzmq.
        """
        request = conn.zap_request()
        if request is None:
            return
        handler = find_handler(self._ctx)
        if handler is None:
            raise ProtocolError(
                f"no ZAP handler at inproc://{ZAP_ENDPOINT} to authenticate the peer",
                code=NO_CODE,
                kind="auth",
            )
        client = ZapClient(handler, self._got_reply, self._got_failure)
        lock = self._lock
        if lock is None:
            lock = self._lock = threading.Lock()
        with lock:
            old, self._client = self._client, client
            self._reply = self._failure = None
            self._wake = wake
        if old is not None:
            old.close()
        client.send(request)

    def _got_reply(self, frames: list[bytes]) -> None:
        lock = self._lock  # a request was sent: it exists
        assert lock is not None
        with lock:
            self._reply = frames
            self._client = None
            wake, self._wake = self._wake, None
        if wake is not None:
            wake()

    def _got_failure(self, reason: str) -> None:
        lock = self._lock  # a request was sent: it exists
        assert lock is not None
        with lock:
            self._failure = reason
            self._client = None
            wake, self._wake = self._wake, None
        if wake is not None:
            wake()

    def deliver(self, conn: ZMTPConnection, now: float) -> None:
        """Feed the answer that arrived to `conn` (raises ProtocolError)."""
        lock = self._lock
        if lock is None:  # no request, so no answer
            return
        with lock:
            reply, self._reply = self._reply, None
            failure, self._failure = self._failure, None
        if failure is not None:
            raise ProtocolError(failure, code=ZAP_UNSPECIFIED)
        if reply is not None:
            conn.zap_reply(reply, now)

    def reset(self) -> None:
        """The connection ended or a new one starts: drop any request."""
        lock = self._lock
        if lock is None:  # none was ever sent
            return
        with lock:
            client, self._client = self._client, None
            self._reply = self._failure = None
            self._wake = None
        if client is not None:
            client.close()


def zap_properties(conn: ZMTPConnection | RawConnection) -> dict[str, str]:
    """The properties a ZAP reply gave this connection: ``User-Id`` and the
    reply's metadata (libzmq puts them in every message's properties, ahead
    of the peer's own). Empty when the connection's mechanism did not ask ZAP
    (and for STREAM's raw connections, which have no mechanism).
    """
    if not isinstance(conn, ZMTPConnection):
        return {}
    mechanism = conn.mechanism
    if mechanism.zap is None:
        return {}
    props = {"User-Id": mechanism.user_id.decode("utf-8", "replace")}
    for name, value in mechanism.zap_metadata.items():
        props.setdefault(name, value.decode("utf-8", "replace"))
    return props
