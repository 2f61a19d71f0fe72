"""The receiving end of the zmq sink: exactly-once batches from at-least-once messages.

Spark may run a micro-batch's task more than once (task retries, a query
restarted from its checkpoint replays the last batch), so the sink's
messages arrive *at least once*. With ``commitMarker=true`` the sink says,
per batch, which attempt of each partition succeeded and how many messages
it sent. `BatchAssembler` buffers messages per attempt token and, when a
batch's marker has all its messages, hands the batch over once; messages of
failed attempts and replays of already-committed batches are dropped.

`SinkReceiver` wraps a bound PULL, SUB or ROUTER socket around an assembler
and, for ROUTER, acknowledges every message (echoes its header frame) - the
other half of the sink's ``ackMode=router``.

Standard library and purezmq only: a consumer needs neither Spark nor pyarrow.
The assembler's state is in memory; a consumer that must survive its own
restarts persists ``last_committed`` with what it applied.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import purezmq as zmq

from .protocol import Header, Marker, decode


@dataclass(frozen=True)
class Delivered:
    """One message of a committed batch: its header, PUB topic and payload frames."""

    header: Header
    topic: bytes | None
    frames: list[bytes]

    @property
    def value(self) -> bytes:
        """The last payload frame (the row's ``value``)."""
        return self.frames[-1]


@dataclass(frozen=True)
class CommittedBatch:
    """A whole micro-batch, exactly once: the successful attempt of every partition."""

    query: str
    batch: int
    messages: list[Delivered]

    def __iter__(self) -> Iterator[Delivered]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)


@dataclass
class AssemblerStats:
    """Counters of what the assembler saw and what it did with it."""

    messages: int = 0  # data messages received, duplicates included
    duplicates: int = 0  # same (token, index) twice: a resend after a lost ack
    replays: int = 0  # data of batches already committed (a replayed batch)
    unframed: int = 0  # messages without a batch header (ignored)
    markers: int = 0
    repeated_markers: int = 0
    aborted: int = 0
    committed_batches: int = 0
    committed_messages: int = 0
    discarded_attempts: int = 0  # tokens of failed attempts dropped at commit time


@dataclass
class _Batch:
    tokens: dict[str, dict[int, Delivered]] = field(default_factory=dict)
    marker: Marker | None = None


class BatchAssembler:
    """Feeds on the sink's messages; returns each batch once, when committed."""

    def __init__(self, *, topic_frame: bool = False) -> None:
        self.topic_frame = topic_frame
        self.last_committed: dict[str, int] = {}
        self.stats = AssemblerStats()
        self._open: dict[tuple[str, int], _Batch] = {}

    def feed(self, frames: list[bytes]) -> list[CommittedBatch]:
        """Take one message (without ROUTER's routing id); returns batches it completed."""
        off = 1 if self.topic_frame else 0
        item = decode(bytes(frames[off])) if len(frames) > off else None
        if isinstance(item, Header):
            return self._data(item, bytes(frames[0]) if off else None, frames[off + 1 :])
        if isinstance(item, Marker):
            return self._marker(item)
        self.stats.unframed += 1
        return []

    def _data(self, h: Header, topic: bytes | None, payload: list[Any]) -> list[CommittedBatch]:
        self.stats.messages += 1
        if h.batch <= self.last_committed.get(h.query, -1):
            self.stats.replays += 1
            return []
        b = self._open.setdefault((h.query, h.batch), _Batch())
        msgs = b.tokens.setdefault(h.token, {})
        if h.index in msgs:
            self.stats.duplicates += 1
            return []
        msgs[h.index] = Delivered(h, topic, [bytes(f) for f in payload])
        return self._complete(h.query) if b.marker is not None else []

    def _marker(self, m: Marker) -> list[CommittedBatch]:
        self.stats.markers += 1
        if m.batch <= self.last_committed.get(m.query, -1):
            self.stats.repeated_markers += 1
            return []
        if m.kind == "abort":
            self.stats.aborted += 1
            self._open.pop((m.query, m.batch), None)
            return []
        self._open.setdefault((m.query, m.batch), _Batch()).marker = m
        return self._complete(m.query)

    def _complete(self, query: str) -> list[CommittedBatch]:
        """Commit, in batch order, every marked batch whose messages are all here."""
        done = []
        for key in sorted(k for k in self._open if k[0] == query):
            b = self._open[key]
            if b.marker is None or not self._has_all(b):
                break  # a later batch never commits before an earlier one
            done.append(self._commit(key, b))
        return done

    @staticmethod
    def _has_all(b: _Batch) -> bool:
        assert b.marker is not None
        return all(len(b.tokens.get(p.token, {})) >= p.count for p in b.marker.parts)

    def _commit(self, key: tuple[str, int], b: _Batch) -> CommittedBatch:
        assert b.marker is not None
        query, batch = key
        msgs: list[Delivered] = []
        winners = {p.token: p.count for p in b.marker.parts}
        for p in sorted(b.marker.parts, key=lambda p: p.part):
            got = b.tokens.get(p.token, {})
            msgs.extend(got[i] for i in sorted(got) if i < p.count)
        self.stats.discarded_attempts += sum(1 for t in b.tokens if t not in winners)
        self.last_committed[query] = batch
        for k in [k for k in self._open if k[0] == query and k[1] <= batch]:
            del self._open[k]
        self.stats.committed_batches += 1
        self.stats.committed_messages += len(msgs)
        return CommittedBatch(query, batch, msgs)

    def incomplete(self) -> list[tuple[str, int, int]]:
        """Marked batches still waiting for messages: (query, batch, how many missing)."""
        out = []
        for (q, batch), b in sorted(self._open.items()):
            if b.marker is not None:
                missing = sum(
                    max(0, p.count - len(b.tokens.get(p.token, {}))) for p in b.marker.parts
                )
                out.append((q, batch, missing))
        return out


class SinkReceiver:
    """A bound socket (PULL, SUB or ROUTER) feeding a BatchAssembler.

    For ROUTER sockets every message is acknowledged as soon as it is in the
    assembler's memory (its header frame is sent back), which is what the
    sink's ``ackMode=router`` waits for.
    """

    def __init__(self, socket: Any, *, topic_frame: bool | None = None) -> None:
        self.socket = socket
        stype = socket.getsockopt(zmq.TYPE)
        self.router = stype == zmq.ROUTER
        if topic_frame is None:
            topic_frame = stype == zmq.SUB
        self.assembler = BatchAssembler(topic_frame=topic_frame)
        self.acks_sent = 0

    @property
    def stats(self) -> AssemblerStats:
        """The assembler's counters."""
        return self.assembler.stats

    def poll(self, timeout_ms: int = 100, max_messages: int = 10_000) -> list[CommittedBatch]:
        """Wait up to `timeout_ms` for messages, take what is there; committed batches out."""
        done: list[CommittedBatch] = []
        if not self.socket.poll(timeout_ms):
            return done
        for _ in range(max_messages):
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            if self.router:
                rid, frames = frames[0], frames[1:]
                if not frames:
                    continue
                done.extend(self.assembler.feed(frames))
                try:
                    self.socket.send_multipart([rid, frames[0]], zmq.NOBLOCK)
                    self.acks_sent += 1
                except zmq.ZMQError:
                    pass  # the sender went away; it will resend or fail its task
            else:
                done.extend(self.assembler.feed(frames))
        return done
