"""purezmq.spark: ZeroMQ streams on Apache Spark, ``format("zmq")``.

* Source: ``spark.readStream.format("zmq").option("path", JOURNAL)`` reads the
  streams a capture process journaled (see purezmq.journal), replayably, so
  Structured Streaming is exactly-once end to end; ``spark.read`` works too.
* Sink: ``df.writeStream.format("zmq").option("endpoint", "tcp://host:port")``
  sends rows out on PUSH, PUB or DEALER sockets, with batch headers,
  acknowledgements (``ackMode=router``) and commit markers.

Call ``purezmq.spark.register(spark)`` once per SparkSession. Needs
``pip install 'purezmq[spark]'`` (pyspark >= 4.2, < 5, and pyarrow) and Java 17+.
The consumer side (`BatchAssembler`, `SinkReceiver`, the protocol helpers)
needs neither Spark nor pyarrow. Guide: docs/pipeline.md.
"""

from __future__ import annotations

from typing import Any

from .consumer import AssemblerStats, BatchAssembler, CommittedBatch, Delivered, SinkReceiver
from .protocol import Header, Marker, PartCommit, decode

FORMAT = "zmq"


def register(spark: Any) -> None:
    """Register ``format("zmq")`` (source and sink) with a SparkSession."""
    try:
        from .source import ZmqDataSource
    except ImportError as exc:
        raise ImportError(
            f"format('zmq') needs pyspark>=4.2,<5 and pyarrow ({exc}); "
            "install them with: pip install 'purezmq[spark]'"
        ) from exc
    spark.dataSource.register(ZmqDataSource)


def _source_offsets(progress: Any) -> list[tuple[Any, Any, Any, int]]:
    """(start, end, latest, numInputRows) of each source of a progress report, parsed."""
    import json

    from .offsets import JournalOffset, OffsetError

    data = progress if isinstance(progress, dict) else json.loads(progress.json)
    out = []
    for src in data.get("sources", []):
        parsed = []
        for key in ("startOffset", "endOffset", "latestOffset"):
            raw = src.get(key)
            try:
                parsed.append(None if raw is None else JournalOffset.from_json(raw))
            except OffsetError:
                parsed.append(None)
        if parsed[1] is not None:
            out.append((parsed[0], parsed[1], parsed[2], int(src.get("numInputRows", 0))))
    return out


def lag(progress: Any) -> dict[str, int]:
    """Messages not read yet per stream (all partitions), from a StreamingQueryProgress.

    Spark shows the source's ``latestOffset`` (what the journal holds) beside
    ``endOffset`` (what the query has read) in every progress report.
    """
    out: dict[str, int] = {}
    for _, end, latest, _ in _source_offsets(progress):
        if latest is None:
            continue
        for (stream, p), seq in latest.positions.items():
            behind = max(0, seq - end.get(stream, p))
            out[stream] = out.get(stream, 0) + behind
    return out


def skipped(progress: Any) -> int:
    """Rows a batch skipped under ``failOnDataLoss=false``, from its progress report.

    The batch's offsets span every seq it was planned to read, and
    ``numInputRows`` counts the rows it read, so the difference is what was
    skipped: seqs retention had deleted, segments deleted after planning,
    segments that failed their checksum. (Python sources cannot report
    custom metrics to Spark; this is the same count, from Spark's own.)
    """
    total = 0
    for start, end, _, rows in _source_offsets(progress):
        same = start is not None and start.journal_id == end.journal_id
        planned = sum(
            max(0, seq - (start.get(s, p) if same else 0)) for (s, p), seq in end.positions.items()
        )
        total += max(0, planned - rows)
    return total


__all__ = [
    "FORMAT",
    "AssemblerStats",
    "BatchAssembler",
    "CommittedBatch",
    "Delivered",
    "Header",
    "Marker",
    "PartCommit",
    "SinkReceiver",
    "decode",
    "lag",
    "register",
    "skipped",
]
