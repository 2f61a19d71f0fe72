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


def lag(progress: Any) -> dict[str, int]:
    """Messages not read yet per stream, from a StreamingQueryProgress (or its dict).

    Spark shows the source's ``latestOffset`` (what the journal holds) beside
    ``endOffset`` (what the query has read) in every progress report.
    """
    import json

    data = progress if isinstance(progress, dict) else json.loads(progress.json)
    out: dict[str, int] = {}
    for src in data.get("sources", []):
        latest, end = src.get("latestOffset"), src.get("endOffset")
        if isinstance(latest, str):
            latest = json.loads(latest)
        if isinstance(end, str):
            end = json.loads(end)
        if not isinstance(latest, dict) or not isinstance(end, dict):
            continue
        done = end.get("streams", {})
        for stream, seq in latest.get("streams", {}).items():
            out[stream] = max(0, int(seq) - int(done.get(stream, 0)))
    return out


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
]
