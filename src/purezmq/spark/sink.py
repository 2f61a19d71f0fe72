"""``df.writeStream.format("zmq")`` and ``df.write.format("zmq")``: each Spark
task sends its rows over a socket.

Input columns (like Kafka's sink): ``value`` (binary or string) or ``frames``
(array of binary/string, for multipart messages; wins when not null), and
``topic`` (binary or string; frame 0 on PUB, overridden by the ``topic``
option). Other columns are ignored.

``write`` runs on executors, once per task attempt: it reads the batchId and
query id from the task's local properties (Spark gives ``write`` no batchId),
makes a random token for the attempt, sends every row (header first unless
``batchHeader=false``), waits for acknowledgements in ``ackMode=router``,
and returns a `ZmqCommitMessage` (Spark requires one, never None).
``commit``/``abort`` run on the driver in a fresh process per batch: they send
the commit (abort) marker when ``commitMarker=true``.

The batch writer (`ZmqBatchWriter`) is the same code with another name for
the batch: Spark gives batch writes neither a query id nor a batchId, so the
headers carry a write id (the ``writeId`` option, else a random one fixed on
the driver) and batch `BATCH_WRITE_BATCH_ID`.
"""

# Method and argument names (streamReader, batchId...) are Spark's API.
# ruff: noqa: N803

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark import TaskContext
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import ArrayType, BinaryType, StringType, StructType

from .options import OptionError, SinkOptions
from .protocol import HeaderPrefix, Marker, PartCommit, encode_marker
from .sender import MarkerSender, Sender

log = logging.getLogger("purezmq.spark")
_TEXT_OR_BYTES = (BinaryType, StringType)


@dataclass
class ZmqCommitMessage(WriterCommitMessage):
    """What one successful task attempt sent (pickled back to the driver)."""

    query: str
    batch: int
    part: int
    attempt: int
    token: str
    count: int
    resends: int = 0


def check_input(schema: StructType, opts: SinkOptions) -> tuple[bool, bool, bool]:
    """Validate the DataFrame's columns; returns (has value, has frames, has topic)."""
    cols = {f.name: f.dataType for f in schema.fields}
    has_value = "value" in cols
    has_frames = "frames" in cols
    if not (has_value or has_frames):
        raise OptionError(
            "the zmq sink needs a 'value' column (binary or string) or a 'frames' column "
            f"(array of binary/string); the DataFrame has {sorted(cols)}"
        )
    if has_value and not isinstance(cols["value"], _TEXT_OR_BYTES):
        raise OptionError(f"column 'value' must be binary or string, not {cols['value']}")
    if has_frames:
        t = cols["frames"]
        if not (isinstance(t, ArrayType) and isinstance(t.elementType, _TEXT_OR_BYTES)):
            raise OptionError(f"column 'frames' must be array<binary|string>, not {t}")
    has_topic = "topic" in cols
    if has_topic and not isinstance(cols["topic"], _TEXT_OR_BYTES):
        raise OptionError(f"column 'topic' must be binary or string, not {cols['topic']}")
    if opts.socket_type == "PUB" and opts.topic is None and not has_topic:
        raise OptionError("a PUB sink needs a topic: the 'topic' option or a 'topic' column")
    return has_value, has_frames, has_topic


def _b(x: Any) -> bytes:
    return x.encode() if isinstance(x, str) else bytes(x)


def rows_to_frames(batch: Any, has_value: bool, has_frames: bool) -> Iterator[list[bytes]]:
    """Payload frames of each row of an Arrow batch (frames if not null, else value)."""
    names = batch.schema.names
    values = batch.column(names.index("value")).to_pylist() if has_value else None
    frames = batch.column(names.index("frames")).to_pylist() if has_frames else None
    for i in range(batch.num_rows):
        fr = frames[i] if frames is not None else None
        if fr:
            yield [_b(f) for f in fr]
            continue
        v = values[i] if values is not None else None
        if v is None:
            raise ValueError(f"row {i} has neither frames nor a non-null value to send")
        yield [_b(v)]


def _task_ids() -> tuple[str, int, int, int]:
    """(query id, batchId, partition, attempt) of the running streaming task."""
    tc = TaskContext.get()
    if tc is None:  # pragma: no cover - write() always runs in a task
        raise RuntimeError("the zmq sink's write() must run inside a Spark task")
    batch = tc.getLocalProperty("streaming.sql.batchId")
    query = tc.getLocalProperty("sql.streaming.queryId") or ""
    return query, int(batch) if batch is not None else -1, tc.partitionId(), tc.attemptNumber()


def _task_attempt() -> tuple[int, int]:
    """(partition, attempt) of the running batch-write task (no batchId exists there)."""
    tc = TaskContext.get()
    if tc is None:  # pragma: no cover - write() always runs in a task
        raise RuntimeError("the zmq sink's write() must run inside a Spark task")
    return tc.partitionId(), tc.attemptNumber()


class _RowSender:
    """What the streaming and the batch sink share: sending a task's rows, and markers.

    The two Spark writer classes differ only in where the (query, batch) pair
    of the headers comes from and in the signature of commit/abort, so the
    wire format, the acknowledgements and the markers are the same code, and
    one consumer (`BatchAssembler`) handles both.
    """

    opts: SinkOptions
    has_value: bool
    has_frames: bool

    def _send_rows(self, iterator: Iterator[Any], query: str, batch_id: int, part: int,
                   attempt: int) -> ZmqCommitMessage:  # fmt: skip
        """Send this task's rows; fail the task if they cannot be delivered."""
        token = uuid.uuid4().hex[:16]
        header = HeaderPrefix(query, batch_id, part, attempt, token)
        pub = self.opts.socket_type == "PUB"
        fixed_topic = self.opts.topic
        sender = Sender(self.opts)
        index = 0
        try:
            for batch in iterator:
                topics = None
                if pub and fixed_topic is None:
                    topics = batch.column(batch.schema.names.index("topic")).to_pylist()
                for i, payload in enumerate(rows_to_frames(batch, self.has_value, self.has_frames)):
                    msg = payload
                    if self.opts.batch_header:
                        msg = [header.encode(index), *payload]
                    if pub:
                        t = fixed_topic if topics is None else topics[i]
                        if t is None:
                            raise ValueError(f"row {i} of a PUB sink has a null topic")
                        msg = [_b(t), *msg]
                    sender.send(msg, index)
                    index += 1
        except BaseException:
            sender.abandon()
            raise
        sender.close()
        return ZmqCommitMessage(query, batch_id, part, attempt, token, index, sender.resends)

    @staticmethod
    def _marker(kind: str, query: str, messages: list[Any], batch_id: int) -> Marker:
        """The marker naming each partition's successful attempt.

        The query id comes from the tasks' commit messages; `query` is the
        fallback when there are none (no partition at all): the batch sink
        passes its write id, the streaming sink has nothing better than "".
        """
        done = [m for m in messages if isinstance(m, ZmqCommitMessage)]
        if done:
            query = done[0].query
        parts = tuple(PartCommit(m.part, m.token, m.count) for m in done)
        return Marker(kind, query, batch_id, parts)

    def _send_marker(self, marker: Marker) -> None:
        frame = encode_marker(marker)
        for ep in self.opts.endpoints:  # every receiver gets the marker
            s = MarkerSender(self.opts, (ep,))
            try:
                msg = [frame] if self.opts.socket_type != "PUB" else [self.opts.topic or b"", frame]
                s.send(msg, (marker.kind, marker.batch))
            finally:
                s.close()

    def _publish(self, query: str, messages: list[Any], batch_id: int) -> None:
        """Every task succeeded: send the commit marker, if asked to (failure fails the job)."""
        if self.opts.commit_marker:
            self._send_marker(self._marker("commit", query, messages, batch_id))

    def _retract(self, query: str, messages: list[Any], batch_id: int) -> None:
        """A task failed for good: tell receivers to drop the batch (best effort)."""
        if not self.opts.commit_marker:
            return
        try:
            self._send_marker(self._marker("abort", query, messages, batch_id))
        except Exception as exc:  # do not hide the failure that caused the abort
            log.warning("could not send the abort marker of batch %s: %s", batch_id, exc)


class ZmqStreamWriter(_RowSender, DataSourceStreamArrowWriter):
    """The streaming sink. Constructed on the driver, pickled to executors."""

    def __init__(self, opts: SinkOptions, schema: StructType) -> None:
        self.opts = opts
        self.has_value, self.has_frames, self.has_topic = check_input(schema, opts)

    def write(self, iterator: Iterator[Any]) -> ZmqCommitMessage:
        """Send this task's rows, headed with the query id and the micro-batch's id."""
        query, batch_id, part, attempt = _task_ids()
        return self._send_rows(iterator, query, batch_id, part, attempt)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Every task succeeded: publish the batch (commit marker), if asked to."""
        self._publish("", list(messages), batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """A task failed for good: tell receivers to drop the batch (best effort)."""
        self._retract("", list(messages), batchId)


BATCH_WRITE_BATCH_ID = 0
"""The ``batch`` field of every header and marker of a batch write (``df.write``).

A batch write is one Spark job, so it is one batch; what tells two writes
apart is the ``query`` field, which carries the write id (``writeId``).
"""


def new_write_id() -> str:
    """A fresh id for a batch write that has no ``writeId`` option."""
    return f"write-{uuid.uuid4().hex}"


class ZmqBatchWriter(_RowSender, DataSourceArrowWriter):
    """``df.write.format("zmq")``: the batch sink, the streaming sink's wire format.

    Spark builds this once on the driver (``DataSource.writer``) and pickles
    the same instance to every task and to the driver-side process that runs
    ``commit``/``abort``. So the write id fixed here (the ``writeId`` option,
    or a random one) is what every header and the marker carry, with batch
    `BATCH_WRITE_BATCH_ID`; Spark gives batch writers no batchId.
    """

    def __init__(self, opts: SinkOptions, schema: StructType) -> None:
        self.opts = opts
        self.has_value, self.has_frames, self.has_topic = check_input(schema, opts)
        self.write_id = opts.write_id or new_write_id()

    def write(self, iterator: Iterator[Any]) -> ZmqCommitMessage:
        """Send this task's rows, headed with the write id and batch 0."""
        part, attempt = _task_attempt()
        return self._send_rows(iterator, self.write_id, BATCH_WRITE_BATCH_ID, part, attempt)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        """Every task succeeded: publish the write (commit marker), if asked to.

        If the marker cannot be delivered this raises, Spark calls `abort` and
        the write fails; a consumer then never applies it.
        """
        self._publish(self.write_id, list(messages), BATCH_WRITE_BATCH_ID)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        """The job failed: tell receivers to drop the write (best effort)."""
        self._retract(self.write_id, list(messages), BATCH_WRITE_BATCH_ID)
