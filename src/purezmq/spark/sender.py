"""Sending from a Spark task (or the sink's commit) over purezmq sockets.

One `Sender` per task attempt, with its own Context, so that closing it
waits (up to LINGER) for queued messages to leave before the task reports
success, and so nothing outlives the task. Connection rules:

* PUSH and DEALER set IMMEDIATE: messages go only to completed connections,
  so a missing peer blocks the send, and SNDTIMEO (``sendTimeoutMs``) turns
  that into an error that fails the task instead of hanging it.
* PUB is an XPUB underneath, so the sender can wait (``subscribeWaitMs``)
  until a subscriber per endpoint has subscribed: a PUB socket silently drops
  what it sends before that.
* DEALER with ``ackMode=router`` keeps every unacknowledged message, waits
  for the receiver to echo each header back (at most ``ackWindow`` in
  flight), resends the unacknowledged ones after ``ackTimeoutMs``, and fails
  after ``ackRetries`` resends.
"""

from __future__ import annotations

import time
from typing import Any

import purezmq as zmq

from .options import SinkOptions
from .protocol import Header, Marker, decode

_TYPES = {"PUSH": zmq.PUSH, "PUB": zmq.XPUB, "DEALER": zmq.DEALER}


class SinkError(RuntimeError):
    """The sink could not deliver (no peer, no subscriber, no acknowledgement)."""


class Sender:
    """One socket to `endpoints`; `send` messages, then `close` (flush or fail)."""

    def __init__(self, opts: SinkOptions, endpoints: tuple[str, ...] | None = None) -> None:
        self.opts = opts
        self.endpoints = endpoints or opts.endpoints
        self.acking = opts.ack_mode == "router"
        self.unacked: dict[Any, list[bytes]] = {}
        self.resends = 0
        self.sent = 0
        self._ctx = zmq.Context()
        try:
            self._sock = self._open()
        except BaseException:
            self._ctx.destroy(linger=0)
            raise

    def _open(self) -> Any:
        o = self.opts
        sock = self._ctx.socket(_TYPES[o.socket_type])
        sock.setsockopt(zmq.SNDHWM, o.sndhwm)
        sock.setsockopt(zmq.SNDTIMEO, o.send_timeout_ms)
        sock.setsockopt(zmq.LINGER, o.linger_ms)
        if o.socket_type == "PUB":
            sock.setsockopt(zmq.XPUB_VERBOSE, 1)
        else:
            sock.setsockopt(zmq.IMMEDIATE, 1)
        for ep in self.endpoints:
            sock.connect(ep)
        if o.socket_type == "PUB" and o.subscribe_wait_ms > 0:
            self._await_subscribers(sock)
        return sock

    def _await_subscribers(self, sock: Any) -> None:
        deadline = time.monotonic() + self.opts.subscribe_wait_ms / 1000
        seen = 0
        while seen < len(self.endpoints):
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0 or not sock.poll(left):
                raise SinkError(
                    f"PUB sink: {seen} of {len(self.endpoints)} subscribers within "
                    f"subscribeWaitMs={self.opts.subscribe_wait_ms}; refusing to publish into the "
                    "void (set subscribeWaitMs=0 to publish anyway)"
                )
            if sock.recv()[:1] == b"\x01":
                seen += 1

    # --------------------------------------------------------------- sending
    def send(self, frames: list[bytes], key: Any = None) -> None:
        """Send one message; with acks, `key` (the index) identifies its echo."""
        if self.acking:
            self._await_room(self.opts.ack_window - 1)
            self.unacked[key] = frames
        self._send(frames)
        self.sent += 1

    def _send(self, frames: list[bytes]) -> None:
        try:
            self._sock.send_multipart(frames)
        except zmq.Again:
            raise SinkError(
                f"no peer at {', '.join(self.endpoints)} took a message within "
                f"sendTimeoutMs={self.opts.send_timeout_ms} ({self.opts.socket_type} sink); "
                "is the receiver running and bound?"
            ) from None

    # ----------------------------------------------------------- acknowledging
    def _take_acks(self, timeout_ms: int) -> int:
        """Wait up to `timeout_ms` for echoes; returns how many matched (0 = timed out)."""
        got = 0
        deadline = time.monotonic() + timeout_ms / 1000
        while self.unacked and not got:
            left = max(0, int((deadline - time.monotonic()) * 1000))
            if not self._sock.poll(left):
                break
            while True:
                try:
                    frames = self._sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                key = self.ack_key(decode(bytes(frames[0])) if frames else None)
                if key is not None and self.unacked.pop(key, None) is not None:
                    got += 1
        return got

    def ack_key(self, echoed: Header | Marker | None) -> Any:
        """What an echoed frame acknowledges (override for markers)."""
        return echoed.index if isinstance(echoed, Header) else None

    def _await_room(self, room: int) -> None:
        """Block until at most `room` messages are unacknowledged, resending on timeouts."""
        retries = 0
        while len(self.unacked) > room:
            if self._take_acks(self.opts.ack_timeout_ms):
                retries = 0
                continue
            if retries >= self.opts.ack_retries:
                raise SinkError(
                    f"{len(self.unacked)} messages unacknowledged after {retries} resends "
                    f"(ackTimeoutMs={self.opts.ack_timeout_ms}) by {', '.join(self.endpoints)}"
                )
            retries += 1
            self.resends += len(self.unacked)
            for frames in list(self.unacked.values()):
                self._send(frames)

    def close(self) -> None:
        """Wait for every acknowledgement (ack mode) and for queued messages to leave.

        Raises SinkError if acknowledgements do not come; then nothing is
        waited for (LINGER 0): the task fails and Spark retries it.
        """
        try:
            if self.acking:
                self._await_room(0)
        except BaseException:
            self.abandon()
            raise
        self._sock.close()
        self._ctx.term()  # waits up to LINGER for queued messages to go out

    def abandon(self) -> None:
        """Drop whatever is queued and release the socket at once (the task failed)."""
        self._sock.close(linger=0)
        self._ctx.term()


class MarkerSender(Sender):
    """Sends one commit/abort marker to one endpoint (acknowledged in ack mode)."""

    def ack_key(self, echoed: Header | Marker | None) -> Any:
        """A marker's echo acknowledges it by (kind, batch)."""
        return (echoed.kind, echoed.batch) if isinstance(echoed, Marker) else None
