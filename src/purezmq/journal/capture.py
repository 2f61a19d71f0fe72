"""The capture process: live ZeroMQ sockets in, sealed journal segments out.

ZeroMQ cannot replay: a SUB socket that was not listening missed the
message for good. A capture process listens all the time and writes what it
receives into the journal, where it gets a dense seq and becomes replayable
(by the Spark source, by `replay`). It reads SUB (with topic filters), PULL or
ROUTER sockets, bound or connected, each feeding one named stream.

A stream may have several partitions, each with its own capture (one
writer per partition): N workers connect to the same endpoints, so PUSH
peers spread their messages over them (PULL fans in), or, for SUB, every
worker receives everything and keeps the messages whose key frame hashes to
its partition (CRC32C of the frame, modulo N: the same key always lands in
the same partition, so per-key order is kept). ``python -m purezmq.journal
capture --partitions N`` runs the N workers as processes.

With ROUTER sources and ``ack=True`` the capture acknowledges a message only
after the segment holding it is sealed (fsynced and renamed): it sends the
message's first frame back to its sender. A sender that resends until it
sees that acknowledgement gets at-least-once delivery *into durable storage*
(this is what the Spark sink's ``ackMode=router`` does).

It uses purezmq's public API only, like any application.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

import purezmq as zmq

from .crc import crc32c
from .headers import default_headers, has_zap, names_to_ask, recv_with_headers
from .journal import Journal
from .layout import SegmentInfo, check_stream_name
from .writer import DEFAULT_SEAL_AGE_S, DEFAULT_SEAL_BYTES, StreamWriter

SOCKET_TYPES = {"SUB": zmq.SUB, "PULL": zmq.PULL, "ROUTER": zmq.ROUTER}
_DRAIN = 1000  # messages taken from one socket before looking at the others
# Plain ints: `flags & NOBLOCK` on the enum member costs more (~0.8 us) than
# the whole receive of a small message does.
_NOBLOCK = int(zmq.NOBLOCK)


@dataclass
class CaptureSource:
    """One socket feeding one stream.

    `socket_type` is "SUB", "PULL" or "ROUTER"; `connect` and `bind` list
    endpoints; `topics` are SUB prefix filters (none: everything); `ack`
    makes a ROUTER source acknowledge durable messages; `rcvhwm` bounds the
    socket's queue. `partition` is the stream partition this source writes;
    with `partitions` > 1 a SUB source keeps only the messages whose frame
    number `key_frame` (default 0, the topic) hashes to `partition`.

    `headers` records, with every message, the properties of the connection
    it came from, as Kafka-style (key, value) headers (see headers.py): True
    for `default_headers` of the socket type, or the property names to
    record - application metadata can only be asked for by name, so add
    "X-..." names to the defaults: ``[*default_headers("PULL"), "X-Tenant"]``.
    A property a connection does not have is left out. Off by default: the
    journal then stores nothing per message beyond the frames.

    `socket_options` are set on the socket before it binds or connects
    (option -> value, as ``setsockopt`` takes them): security (PLAIN or
    CURVE server, ZAP_DOMAIN - whose ZAP handler's User-Id then shows in
    the headers), buffer sizes, TCP keepalives...
    """

    stream: str
    socket_type: str
    connect: list[str] = field(default_factory=list)
    bind: list[str] = field(default_factory=list)
    topics: list[bytes] = field(default_factory=list)
    ack: bool = False
    rcvhwm: int = 100_000
    partition: int = 0
    partitions: int = 1
    key_frame: int | None = None
    headers: bool | Sequence[str] = False
    socket_options: dict[int, Any] = field(default_factory=dict)
    header_names: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        check_stream_name(self.stream)
        if self.headers is True:
            self.header_names = default_headers(self.socket_type)
        elif self.headers is not False:
            names = tuple(self.headers)
            bad = isinstance(self.headers, str) or "" in names
            if bad or not all(isinstance(n, str) for n in names):
                raise ValueError("headers is True, False or a list of property names")
            self.header_names = names
        if not 0 <= self.partition < self.partitions:
            raise ValueError(f"partition {self.partition} is not in [0, {self.partitions})")
        if self.key_frame is not None and self.socket_type.upper() != "SUB":
            raise ValueError(
                "key_frame applies to SUB sources (PULL and ROUTER spread messages by themselves)"
            )
        if self.key_frame is not None and self.key_frame < 0:
            raise ValueError("key_frame must be >= 0")
        self.socket_type = self.socket_type.upper()
        if self.socket_type not in SOCKET_TYPES:
            raise ValueError(f"capture reads SUB, PULL or ROUTER sockets, not {self.socket_type!r}")
        if not (self.connect or self.bind):
            raise ValueError(f"source for stream {self.stream!r} has no endpoint")
        if self.topics and self.socket_type != "SUB":
            raise ValueError("topic filters apply to SUB sources only")
        if self.ack and self.socket_type != "ROUTER":
            raise ValueError("ack applies to ROUTER sources only")


@dataclass
class StreamStats:
    """What one stream's capture saw."""

    received: int = 0
    other_partitions: int = 0
    sealed: int = 0
    segments: int = 0
    bytes: int = 0
    acked: int = 0


@dataclass
class _Live:
    source: CaptureSource
    socket: Any
    writer: StreamWriter
    pending_acks: list[tuple[int, bytes, bytes]] = field(default_factory=list)
    header_names: tuple[str, ...] = ()  # what is asked of each message (headers.names_to_ask)


class Capture:
    """Runs sources into a journal until stopped. One thread; `stop()` from any."""

    def __init__(
        self,
        journal: Journal,
        sources: list[CaptureSource],
        *,
        seal_bytes: int = DEFAULT_SEAL_BYTES,
        seal_age_s: float = DEFAULT_SEAL_AGE_S,
        seal_count: int | None = None,
        retention_age_s: float | None = None,
        retention_bytes: int | None = None,
        retention_interval_s: float = 10.0,
        retention_hard_age_s: float | None = None,
        retention_hard_bytes: int | None = None,
        context: Any = None,
        on_seal: Callable[[str, SegmentInfo], None] | None = None,
    ) -> None:
        if not sources:
            raise ValueError("a capture needs at least one source")
        names = [(s.stream, s.partition) for s in sources]
        if len(set(names)) != len(names):
            raise ValueError(
                "each source needs its own stream partition (a partition has one writer)"
            )
        self.journal = journal
        self.sources = sources
        self._seal_kwargs: dict[str, Any] = {
            "seal_bytes": seal_bytes,
            "seal_age_s": seal_age_s,
            "seal_count": seal_count,
        }
        self.retention_age_s = retention_age_s
        self.retention_bytes = retention_bytes
        self.retention_interval_s = retention_interval_s
        self.retention_hard_age_s = retention_hard_age_s
        self.retention_hard_bytes = retention_hard_bytes
        self.on_seal = on_seal
        self.stats = {s.stream: StreamStats() for s in sources}
        if len(self.stats) != len(sources):
            raise ValueError("one capture writes one partition of each stream")
        self._ctx = context or zmq.Context.instance()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.endpoints: dict[str, list[str]] = {}

    def stop(self) -> None:
        """Ask `run` to seal what it holds and return (thread- and signal-safe)."""
        self._stop.set()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every socket is bound/connected (`endpoints` is filled then)."""
        return self._ready.wait(timeout)

    # -------------------------------------------------------------- the loop
    def run(self, *, max_messages: int | None = None) -> dict[str, StreamStats]:
        """Capture until `stop()` (or `max_messages` in total); returns the stats."""
        lives = [self._open(s) for s in self.sources]
        poller = zmq.Poller()
        by_sock = {}
        for live in lives:
            poller.register(live.socket, zmq.POLLIN)
            by_sock[live.socket] = live
        self._ready.set()
        next_retention = time.monotonic()
        total = 0
        try:
            while not self._stop.is_set():
                if max_messages is not None and total >= max_messages:
                    break
                timeout_ms = self._poll_timeout(lives)
                for sock, _ in poller.poll(timeout_ms):
                    limit = _DRAIN if max_messages is None else max(1, max_messages - total)
                    total += self._drain(by_sock[sock], min(limit, _DRAIN))
                now = time.monotonic()
                for live in lives:
                    if live.writer.due(now):
                        self._seal(live)
                if now >= next_retention:
                    self._retain()
                    next_retention = now + self.retention_interval_s
        finally:
            for live in lives:
                self._close(live)
        return self.stats

    def _open(self, src: CaptureSource) -> _Live:
        sock = self._ctx.socket(SOCKET_TYPES[src.socket_type])
        sock.setsockopt(zmq.RCVHWM, src.rcvhwm)
        sock.setsockopt(zmq.LINGER, 1000 if src.ack else 0)
        for option, value in src.socket_options.items():
            sock.setsockopt(option, value)
        if src.socket_type == "SUB":
            for t in src.topics or [b""]:
                sock.setsockopt(zmq.SUBSCRIBE, t)
        bound = []
        for ep in src.bind:
            sock.bind(ep)
            bound.append(sock.getsockopt(zmq.LAST_ENDPOINT).decode())
        for ep in src.connect:
            sock.connect(ep)
        self.endpoints[src.stream] = bound + list(src.connect)
        writer = self.journal.writer(
            src.stream, partition=src.partition, on_seal=self._sealed, **self._seal_kwargs
        )
        router = src.socket_type == "ROUTER"
        names = names_to_ask(src.header_names, router, has_zap(sock)) if src.header_names else ()
        return _Live(src, sock, writer, header_names=names)

    @staticmethod
    def _poll_timeout(lives: list[_Live]) -> int:
        deadlines = [d for d in (live.writer.deadline() for live in lives) if d is not None]
        if not deadlines:
            return 100
        wait = min(deadlines) - time.monotonic()
        return max(0, min(100, int(wait * 1000) + 1))

    def _drain(self, live: _Live, limit: int) -> int:
        """Journal what the socket has queued (up to `limit` messages) in one append.

        Returns how many messages were journaled.

        Everything queued is taken without blocking and handed to the
        writer as one list, so the per-message work is the receive call and
        nothing else; partition filters, ROUTER envelopes and headers are
        list operations over the batch.
        """
        sock, src, st = live.socket, live.source, self.stats[live.source.stream]
        router = src.socket_type == "ROUTER"
        if src.header_names:
            msgs, headers = recv_with_headers(sock, limit, live.header_names, router)
        else:
            msgs, headers = _recv_batch(sock, limit), None
        if not msgs:
            return 0
        got = len(msgs)
        if src.socket_type == "SUB" and src.partitions > 1:
            key = src.key_frame or 0
            keep = [_partition_of(m, key, src.partitions) == src.partition for m in msgs]
            msgs = list(compress(msgs, keep))
            headers = None if headers is None else list(compress(headers, keep))
            st.other_partitions += got - len(msgs)  # another worker journals them
        rids: list[bytes] = []
        if router:
            keep = [len(m) > 1 for m in msgs]  # an empty message carries nothing to journal
            if not all(keep):
                msgs = list(compress(msgs, keep))
                headers = None if headers is None else list(compress(headers, keep))
            rids = [m[0] for m in msgs]
            msgs = [m[1:] for m in msgs]
        if not msgs:
            return 0
        writer = live.writer
        sealed_before = writer.sealed_end
        first = writer.append_many(msgs, topic_is_frame0=src.socket_type == "SUB", headers=headers)
        st.received += len(msgs)
        if src.ack:
            live.pending_acks.extend(
                (first + i, rid, m[0]) for i, (rid, m) in enumerate(zip(rids, msgs, strict=True))
            )
            if writer.sealed_end != sealed_before:
                self._after_seal(live)
        return len(msgs)

    def _sealed(self, stream: str, seg: SegmentInfo) -> None:
        """Count a sealed segment (StreamWriter's on_seal)."""
        st = self.stats[stream]
        st.sealed += seg.count
        st.segments += 1
        st.bytes += seg.size
        if self.on_seal is not None:
            self.on_seal(stream, seg)

    def _seal(self, live: _Live) -> None:
        live.writer.seal()
        self._after_seal(live)

    def _after_seal(self, live: _Live) -> None:
        """Send the acknowledgements that the last seal made due."""
        st = self.stats[live.source.stream]
        if not live.pending_acks:
            return
        keep = []
        for seq, rid, first in live.pending_acks:
            if seq >= live.writer.sealed_end:
                keep.append((seq, rid, first))
                continue
            try:
                live.socket.send_multipart([rid, first], zmq.NOBLOCK)
                st.acked += 1
            except zmq.ZMQError:
                pass  # the sender is gone or slow: it resends, the journal dedupes nothing
        live.pending_acks = keep

    def _retain(self) -> None:
        limits = (self.retention_age_s, self.retention_bytes, self.retention_hard_age_s,
                  self.retention_hard_bytes)  # fmt: skip
        if all(x is None for x in limits):
            return
        self.journal.apply_retention(
            max_age_s=self.retention_age_s,
            max_bytes=self.retention_bytes,
            hard_max_age_s=self.retention_hard_age_s,
            hard_max_bytes=self.retention_hard_bytes,
            streams=[s.stream for s in self.sources],
        )

    def _close(self, live: _Live) -> None:
        try:
            live.writer.close()
            self._after_seal(live)
        finally:
            live.socket.close()


def _recv_batch(sock: Any, limit: int) -> list[list[bytes]]:
    """Up to `limit` whole messages that are queued now (none waits)."""
    recv = sock.recv_multipart
    msgs: list[list[bytes]] = []
    add = msgs.append
    try:
        for _ in range(limit):
            add(recv(_NOBLOCK))
    except zmq.Again:
        pass
    return msgs


def _partition_of(frames: list[Any], key_frame: int, partitions: int) -> int:
    """The partition of a message: CRC32C of its key frame modulo `partitions`.

    A message without that frame goes to partition 0 (it still is captured
    exactly once, by one worker).
    """
    if key_frame >= len(frames):
        return 0
    return crc32c(bytes(frames[key_frame])) % partitions


def partition_of(key: bytes, partitions: int) -> int:
    """The partition a SUB capture with `partitions` workers files key `key` under."""
    return crc32c(key) % partitions
