"""includeHeaders end to end: a capture that records connection properties, read by Spark.

Spark's Kafka source gives ``headers: array<struct<key: string, value:
binary>>`` with includeHeaders=true, null for a record without headers. The
zmq source does the same with what the capture recorded (docs/pipeline.md).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import purezmq as zmq
from purezmq.journal import Capture, CaptureSource, Journal, default_headers
from tests.conftest import wait_until

from .conftest import append

pytestmark = [pytest.mark.spark, pytest.mark.timeout(300)]

HEADERS_TYPE = "headers:array<struct<key:string,value:binary>>"


def capture_tagged(path: Path, n: int) -> Journal:
    """Journal n messages from a PUSH peer that sends X-Tenant metadata, with headers."""
    j = Journal.create(str(path))
    ctx = zmq.Context()
    src = CaptureSource("in", "PULL", bind=["tcp://127.0.0.1:*"],
                        headers=[*default_headers("PULL"), "X-Tenant"])  # fmt: skip
    cap = Capture(j, [src], seal_age_s=0.05, context=ctx)
    t = threading.Thread(target=cap.run, daemon=True)
    t.start()
    try:
        assert cap.wait_ready(10)
        push = ctx.socket(zmq.PUSH)
        push.setsockopt(zmq.METADATA, b"X-Tenant:acme")
        push.connect(cap.endpoints["in"][0])
        for i in range(n):
            push.send(b"m%d" % i)
        wait_until(lambda: cap.stats["in"].received == n)
        push.close()
    finally:
        cap.stop()
        t.join(10)
        ctx.term()
    return j


def test_include_headers_reads_what_the_capture_recorded(spark: Any, tmp_path: Path) -> None:
    j = capture_tagged(tmp_path / "j", 40)
    append(j, "old", 0, 5)  # a stream captured without headers
    want = [("Socket-Type", b"PUSH"), ("Peer-Address", b"127.0.0.1"), ("X-Tenant", b"acme")]

    df = spark.read.format("zmq").option("path", j.uri).option("includeHeaders", "true").load()
    assert df.schema.simpleString().endswith(f"frames:array<binary>,{HEADERS_TYPE}>")
    rows = df.collect()
    assert sorted(r.seq for r in rows if r.stream == "in") == list(range(40))
    assert all([(h.key, h.value) for h in r.headers] == want for r in rows if r.stream == "in")
    assert all(r.headers is None for r in rows if r.stream == "old")  # as Kafka: null
    assert "headers" not in spark.read.format("zmq").option("path", j.uri).load().columns

    # The streaming path, with frames left out: headers still last.
    q = (spark.readStream.format("zmq").option("path", j.uri).option("streams", "in")
         .option("startingOffsets", "earliest").option("includeHeaders", "true")
         .option("includeFrames", "false").load()
         .selectExpr("seq", "filter(headers, h -> h.key = 'X-Tenant')[0].value AS tenant")
         .writeStream.format("memory").queryName("hdrs")
         .option("checkpointLocation", str(tmp_path / "ck"))
         .trigger(availableNow=True).start())  # fmt: skip
    q.awaitTermination(180)
    got = spark.table("hdrs").collect()
    assert sorted((r.seq, r.tenant) for r in got) == [(i, b"acme") for i in range(40)]
