"""A Spark driver program for tests/spark/test_cluster.py (run as its own process).

It reads a journal with ``format("zmq")`` on a standalone cluster and writes
Spark's Parquet sink (exactly-once through its ``_spark_metadata`` log), one
AvailableNow query, and prints one JSON line per finished micro-batch with
the number of tasks Spark ran for it (from the status tracker: every job of
a streaming query runs in the job group named by the query's run id). The
test SIGKILLs this process group mid-query and runs it again.

    python cluster_driver.py MASTER JOURNAL CHECKPOINT OUTPUT MAX_OFFSETS
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def tasks_per_batch(spark: Any, run_id: str) -> dict[int, int]:
    """The tasks of each job of the query run, by job id (one job per batch here)."""
    tracker = spark.sparkContext.statusTracker()
    out = {}
    for job in tracker.getJobIdsForGroup(run_id):
        info = tracker.getJobInfo(job)
        if info is None:
            continue
        stages = [tracker.getStageInfo(s) for s in info.stageIds]
        out[job] = sum(s.numTasks for s in stages if s is not None)
    return out


def main() -> int:
    master, journal, checkpoint, output, max_offsets = sys.argv[1:6]
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from purezmq.spark.session import local_session

    spark = local_session(
        "purezmq-cluster-test",
        master=master,
        conf={
            "spark.executor.memory": "512m",
            "spark.executor.cores": "1",
            "spark.cores.max": "2",
            "spark.task.maxFailures": "2",
        },
    )
    print(json.dumps({"event": "session", "executors": _executors(spark)}), flush=True)
    q = (
        spark.readStream.format("zmq").option("path", journal)
        .option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", max_offsets)
        .load().selectExpr("stream", "partition", "seq", "value")
        .writeStream.format("parquet").option("path", output)
        .option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
    )  # fmt: skip
    seen: set[int] = set()
    while True:
        active = q.isActive
        for p in q.recentProgress:
            if p["batchId"] not in seen and p["numInputRows"]:
                seen.add(p["batchId"])
                jobs = tasks_per_batch(spark, str(q.runId))
                print(json.dumps({"event": "batch", "batch": p["batchId"],
                                  "rows": p["numInputRows"],
                                  "tasks": max(jobs.values(), default=0)}), flush=True)  # fmt: skip
        if not active:
            break
        time.sleep(0.2)
    if q.exception() is not None:
        print(json.dumps({"event": "failed", "error": str(q.exception())[:2000]}), flush=True)
        return 1
    print(json.dumps({"event": "done"}), flush=True)
    spark.stop()
    return 0


def _executors(spark: Any) -> int:
    """Executors registered with the driver (the driver itself excluded)."""
    deadline = time.monotonic() + 120
    sc = spark.sparkContext
    while time.monotonic() < deadline:
        n = sc._jsc.sc().getExecutorMemoryStatus().size() - 1
        if n >= 2:
            return int(n)
        time.sleep(0.5)
    return int(sc._jsc.sc().getExecutorMemoryStatus().size() - 1)


if __name__ == "__main__":
    sys.exit(main())
