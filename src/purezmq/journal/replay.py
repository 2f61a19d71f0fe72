"""The replay device: serves a range of a stream back onto PUSH or PUB sockets.

It sends each message's original frames, in seq order. With ``with_seq`` an
extra frame ``b"<stream>:<seq>"`` (first; second on PUB, after the topic)
lets receivers drop what they already have (a replay is at-least-once by
nature: the receiver decides what is new).
For PUB it waits for subscribers first (through an XPUB socket), because a
PUB socket drops whatever it sends before anyone subscribed; for PUSH it
sends only over completed connections (IMMEDIATE) and a missing peer makes
it fail after ``send_timeout_ms`` rather than hang.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import purezmq as zmq

from .journal import Journal


@dataclass
class ReplayTarget:
    """Where a replay sends: "PUSH" or "PUB", endpoints to connect or bind."""

    socket_type: str = "PUSH"
    connect: list[str] = field(default_factory=list)
    bind: list[str] = field(default_factory=list)
    send_timeout_ms: int = 30_000
    wait_subscribers: int = 1
    sndhwm: int = 10_000

    def __post_init__(self) -> None:
        self.socket_type = self.socket_type.upper()
        if self.socket_type not in ("PUSH", "PUB"):
            raise ValueError(f"replay sends on PUSH or PUB, not {self.socket_type!r}")
        if not (self.connect or self.bind):
            raise ValueError("replay target has no endpoint")


def _wait_subscribers(sock: Any, want: int, timeout_ms: int) -> None:
    """Read XPUB subscription messages until `want` arrived (or time out)."""
    deadline = time.monotonic() + timeout_ms / 1000
    seen = 0
    while seen < want:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0 or not sock.poll(left):
            raise TimeoutError(f"no subscriber within {timeout_ms} ms; nothing replayed")
        msg = sock.recv()
        if msg[:1] == b"\x01":
            seen += 1


def replay(
    journal: Journal,
    stream: str,
    target: ReplayTarget,
    start: int | None = None,
    end: int | None = None,
    *,
    with_seq: bool = False,
    rate: float | None = None,
    context: Any = None,
    partition: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Send seqs [start, end) of one partition of `stream` to `target`; returns the count.

    `rate` caps messages per second. `progress(sent, total)` is called now
    and then (every 1,024 messages and at the end), for a progress bar.
    Raises zmq.Again if a PUSH peer does not take a message within the send
    timeout, DataLossError if the range is not retained (checked before
    anything is sent).
    """
    batches = list(journal.read(stream, start, end, partition=partition))
    ctx = context or zmq.Context.instance()
    pub = target.socket_type == "PUB"
    sock = ctx.socket(zmq.XPUB if pub else zmq.PUSH)
    try:
        sock.setsockopt(zmq.SNDHWM, target.sndhwm)
        sock.setsockopt(zmq.SNDTIMEO, target.send_timeout_ms)
        sock.setsockopt(zmq.LINGER, target.send_timeout_ms)
        if pub:
            sock.setsockopt(zmq.XPUB_VERBOSE, 1)
        else:
            sock.setsockopt(zmq.IMMEDIATE, 1)
        for ep in target.bind:
            sock.bind(ep)
        for ep in target.connect:
            sock.connect(ep)
        if pub and target.wait_subscribers > 0:
            _wait_subscribers(sock, target.wait_subscribers, target.send_timeout_ms)
        sent = 0
        total = sum(b.num_rows for b in batches)
        t0 = time.monotonic()
        prefix = stream.encode() + b":"
        for batch in batches:
            seqs = batch.column(0).to_pylist()
            for seq, frames in zip(seqs, batch.column(4).to_pylist(), strict=True):
                out = frames
                if with_seq:  # after the topic frame for PUB, so filters still match
                    out = list(frames)
                    out.insert(1 if pub else 0, prefix + str(seq).encode())
                sock.send_multipart(out)
                sent += 1
                if progress is not None and not sent & 1023:
                    progress(sent, total)
                if rate:
                    ahead = sent / rate - (time.monotonic() - t0)
                    if ahead > 0:
                        time.sleep(ahead)
        if progress is not None:
            progress(sent, total)
        return sent
    finally:
        sock.close()
