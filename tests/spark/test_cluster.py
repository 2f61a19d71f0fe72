"""format("zmq") on a real standalone Spark cluster: a master and two workers
started from the pyspark package on this machine, the driver in its own
process.

* A journal stream with two partitions is read in parallel: more than one
  task per micro-batch (Spark's status tracker, per batch).
* Exactly-once across a SIGKILL of the driver: the driver's process group
  (Python and its JVM) is killed mid-query, run again on the same
  checkpoint, and the output - Spark's Parquet sink, its committed files
  from ``_spark_metadata`` - holds every (stream, partition, seq) once.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from purezmq.spark.session import java_available

from .conftest import append, make_journal

pytestmark = [pytest.mark.spark, pytest.mark.timeout(420)]
DRIVER = Path(__file__).with_name("cluster_driver.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spark_env() -> dict[str, str]:
    import pyspark

    env = dict(os.environ)
    env.update(SPARK_HOME=os.path.dirname(pyspark.__file__), SPARK_LOCAL_IP="127.0.0.1",
               PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)  # fmt: skip
    return env


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """spark://127.0.0.1:PORT, with two live workers (1 core, 1 GiB each)."""
    if not java_available():
        pytest.skip("Spark needs a Java runtime (17+): none found on PATH or in JAVA_HOME")
    env = _spark_env()
    spark_class = os.path.join(env["SPARK_HOME"], "bin", "spark-class")
    logs = tmp_path_factory.mktemp("cluster")
    port, ui = _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    procs = []

    def start(name: str, *args: str) -> None:
        with open(logs / f"{name}.log", "w") as log:
            p = subprocess.Popen([spark_class, *args], env=env, stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        procs.append(p)

    start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
          "--port", str(port), "--webui-port", str(ui))  # fmt: skip
    for i in range(2):
        start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
              "--cores", "1", "--memory", "1g", "--webui-port", str(_free_port()),
              "--work-dir", str(logs / f"work{i}"), url)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while _alive_workers(ui) < 2:
            if time.monotonic() > deadline:
                pytest.fail(f"the cluster did not come up; logs in {logs}")
            time.sleep(0.5)
        yield url
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def _alive_workers(ui: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=2) as r:
            return int(json.load(r).get("aliveworkers", 0))
    except OSError:
        return 0


class Driver:
    """cluster_driver.py in its own process group; its JSON events read by a thread."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(DRIVER), *args], env=_spark_env(), stdout=subprocess.PIPE,
            text=True, start_new_session=True,
        )  # fmt: skip
        self.events: list[dict[str, Any]] = []
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.events.append(json.loads(line))

    def batches(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == "batch"]

    def wait_for(self, cond: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            if self.proc.poll() is not None:
                self._t.join(5)
                if cond():
                    return
                pytest.fail(f"driver exited ({self.proc.returncode}): {self.events}")
            if time.monotonic() > deadline:
                pytest.fail(f"driver: condition not met in {timeout}s: {self.events}")
            time.sleep(0.2)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)  # the Python driver and its JVM
        self.proc.wait(30)


def committed_rows(out: Path) -> list[tuple[str, int, int]]:
    """(stream, partition, seq) of every row in the files Spark's sink committed."""
    files: set[str] = set()
    for log in sorted((out / "_spark_metadata").iterdir()):
        if log.name.startswith("."):
            continue
        for line in log.read_text().splitlines()[1:]:  # the first line is the version
            entry = json.loads(line)
            if entry.get("action", "add") == "add":
                files.add(entry["path"])
    rows = []
    for f in files:
        t = pq.read_table(f.removeprefix("file://"), columns=["stream", "partition", "seq"])
        rows += zip(*(t.column(c).to_pylist() for c in ("stream", "partition", "seq")),
                    strict=True)  # fmt: skip
    return rows


def test_parallel_reads_and_exactly_once_across_a_driver_sigkill(
    cluster: str, tmp_path: Path
) -> None:
    j = make_journal(tmp_path / "j", {"a": 3000}, per_segment=250)
    append(j, "a", 0, 3000, per_segment=250, partition=1)
    ck, out = tmp_path / "ck", tmp_path / "out"
    args = (cluster, j.uri, str(ck), str(out), "1000")
    first = Driver(*args)
    first.wait_for(lambda: len(first.batches()) >= 2, timeout=240)
    first.kill()  # mid-query: batches 2..5 not done, maybe one half-written
    done_before = len(first.batches())
    assert first.events[0] == {"event": "session", "executors": 2}
    second = Driver(*args)
    second.wait_for(lambda: any(e["event"] in ("done", "failed") for e in second.events), 240)
    assert second.proc.wait(60) == 0, second.events
    batches = first.batches() + second.batches()
    assert sum(b["rows"] for b in batches) >= 6000 and done_before < 6
    assert all(b["tasks"] >= 2 for b in batches)  # both journal partitions in parallel
    rows = committed_rows(out)
    assert len(rows) == len(set(rows)) == 6000  # every message exactly once
    assert set(rows) == {("a", p, s) for p in (0, 1) for s in range(3000)}
