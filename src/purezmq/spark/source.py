"""``format("zmq")``: the DataSource class, the streaming and batch readers.

Spark runs these methods in several processes (see docs/pipeline.md): the
DataSource and reader are constructed in at least two driver-side Python
workers and unpickled on executors, ``stop()`` is never called, and
``commit(end)`` lags a batch. So constructors only parse options, nothing
holds a socket or a lock, every driver-side answer comes from a fresh
directory listing (`Planner`), and ``read`` depends only on its partition.
"""

# Method and argument names (streamReader, batchId...) are Spark's API.
# ruff: noqa: N802

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
)
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxBytes,
    ReadMaxRows,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from purezmq.journal import Journal

from .offsets import JournalOffset
from .options import OptionError, SinkOptions, SourceOptions
from .planning import Limit, Planner, SlicePlan
from .positions import check_names, ending, starting
from .read import read_slice, source_ddl

FORMAT = "zmq"


def _to_limit(limit: ReadLimit) -> Limit:
    if isinstance(limit, ReadMaxRows):
        return Limit("rows", limit.max_rows)
    if isinstance(limit, ReadMaxBytes):
        return Limit("bytes", limit.max_bytes)
    if isinstance(limit, ReadMinRows):
        return Limit("minrows", limit.min_rows)
    return Limit()


class ZmqStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Micro-batches over a journal, with admission control and AvailableNow."""

    def __init__(self, options: SourceOptions) -> None:
        self.opts = options
        self._target: JournalOffset | None = None  # lives in the source runner only
        self._last_trigger = 0.0  # minOffsetsPerTrigger: when the last batch was let through

    def _planner(self) -> Planner:
        # Re-read journal.json each time: a re-created journal must be noticed.
        return Planner(Journal.open(self.opts.path), self.opts)

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts (startingOffsets); a restart uses its checkpoint."""
        return starting(self._planner(), self.opts.starting).to_json()

    def getDefaultReadLimit(self) -> ReadLimit:
        """maxOffsetsPerTrigger (rows) or maxBytesPerTrigger; else everything available."""
        if self.opts.max_offsets_per_trigger is not None:
            return ReadMaxRows(self.opts.max_offsets_per_trigger)
        if self.opts.max_bytes_per_trigger is not None:
            return ReadMaxBytes(self.opts.max_bytes_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        """The next batch's end under `limit` (and the AvailableNow target).

        With minOffsetsPerTrigger, a batch waits until that many seqs are
        there or maxTriggerDelay has passed since the last one, as Kafka's
        source does (Spark has no composite read limit for Python sources,
        so the source keeps the time itself; AvailableNow ignores it).
        """
        planner = self._planner()
        lim = _to_limit(limit)
        if self.opts.min_offsets_per_trigger is not None and self._target is None:
            begin = JournalOffset.from_json(start)
            everything = planner.latest(begin, Limit(), None)
            waiting = sum(v - begin.get(*tp) for tp, v in everything.positions.items())
            now = time.time()
            if now - self._last_trigger < self.opts.max_trigger_delay_s and (
                waiting < self.opts.min_offsets_per_trigger
            ):
                return start  # not enough yet: no batch this trigger
            self._last_trigger = now
        if lim.kind == "rows" and self.opts.max_bytes_per_trigger is not None:
            # Both options given: rows go through Spark, bytes apply here on top.
            by_rows = planner.latest(JournalOffset.from_json(start), lim, self._target)
            by_bytes = planner.latest(
                JournalOffset.from_json(start),
                Limit("bytes", self.opts.max_bytes_per_trigger),
                self._target,
            )
            cap = by_bytes.positions
            merged = {tp: min(v, cap.get(tp, v)) for tp, v in by_rows.positions.items()}
            return JournalOffset(by_rows.journal_id, merged).to_json()
        return planner.latest(JournalOffset.from_json(start), lim, self._target).to_json()

    def reportLatestOffset(self) -> dict[str, Any]:
        """What the journal holds now: progress shows it as latestOffset (the lag)."""
        return self._planner().available().to_json()

    def prepareForTriggerAvailableNow(self) -> None:
        """Fix the target: the query ends once it has read what exists now."""
        self._target = self._planner().available()

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        """One task per stream slice, each carrying its segment list."""
        plans = self._planner().plan(JournalOffset.from_json(start), JournalOffset.from_json(end))
        return [InputPartition(p) for p in plans]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        """Runs on executors: Arrow record batches of the planned slice."""
        plan: SlicePlan | None = partition.value
        return read_slice(plan)

    def commit(self, end: dict[str, Any]) -> None:
        """With ``consumerName``: record the committed offsets, so retention waits for them.

        Spark calls this one batch late (the last batch of a run only in the
        next run), so what is recorded is conservative: retention may keep a
        little more than needed, never delete what the query still reads.
        """
        if self.opts.consumer_name is None:
            return
        off = JournalOffset.from_json(end)
        journal = Journal.open(self.opts.path)
        if off.journal_id == journal.journal_id:
            journal.commit_consumer(self.opts.consumer_name, dict(off.positions))

    def stop(self) -> None:
        """Nothing to release (Spark 4.3 never calls this; nothing depends on it)."""


class ZmqBatchReader(DataSourceReader):
    """``spark.read.format("zmq")``: one bounded read of startingOffsets..endingOffsets."""

    def __init__(self, options: SourceOptions) -> None:
        self.opts = options

    def partitions(self) -> Sequence[InputPartition]:
        """Plan [startingOffsets, endingOffsets) from one listing."""
        planner = Planner(Journal.open(self.opts.path), self.opts)
        start = starting(planner, self.opts.starting)
        end = ending(planner, self.opts.ending, start)
        return [InputPartition(p) for p in planner.plan(start, end)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        """Runs on executors (with a None plan when there is nothing to read)."""
        plan: SlicePlan | None = partition.value
        return read_slice(plan)


class ZmqDataSource(DataSource):
    """The ``zmq`` format: journal source and socket sink, each streaming and batch."""

    @classmethod
    def name(cls) -> str:
        """The format name: ``spark.readStream.format("zmq")``."""
        return FORMAT

    def schema(self) -> str:
        """Kafka-like: stream, partition, seq, timestamp, topic, value, then frames
        (unless includeFrames=false) and headers (with includeHeaders=true).

        Spark asks for the schema in ``load()``, so this is where a read's
        options are checked against the journal: a missing journal, a
        misspelt stream or offset key fails there, naming what exists.
        """
        if "endpoint" in self.options:  # the sink has no schema of its own
            return source_ddl(True, False)
        opts = SourceOptions.parse(self.options, streaming=False)
        check_names(Planner(Journal.open(opts.path), opts))
        return source_ddl(opts.include_frames, opts.include_headers)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        """The micro-batch reader (options validated here, on the driver)."""
        return ZmqStreamReader(SourceOptions.parse(self.options, streaming=True))

    def reader(self, schema: StructType) -> DataSourceReader:
        """The batch reader."""
        return ZmqBatchReader(SourceOptions.parse(self.options, streaming=False))

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        """The socket sink (options and input columns validated here, on the driver)."""
        from .sink import ZmqStreamWriter

        return ZmqStreamWriter(SinkOptions.parse(self.options), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        """The batch sink, ``df.write.format("zmq")`` (the streaming sink's sender).

        Spark calls this once per write, on the driver, and pickles the result
        to the tasks and to the commit: the write id chosen here is shared by
        all of them. ``mode("overwrite")`` is refused: nothing can be truncated
        on a socket, and accepting it would suggest otherwise.
        """
        from .sink import ZmqBatchWriter

        if overwrite:
            raise OptionError(
                "format('zmq') cannot overwrite: messages already sent cannot be taken back; "
                "use mode('append')"
            )
        return ZmqBatchWriter(SinkOptions.parse(self.options, streaming=False), schema)
