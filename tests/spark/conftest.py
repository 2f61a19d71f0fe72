"""Spark tests: unit tests need pyspark and pyarrow importable (no JVM); the
integration tests (marker ``spark``) also need Java and share one local
SparkSession for the whole session (local[2], UI off, 2 shuffle partitions).
Without the ``spark`` extra or Java they skip and say why.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="needs the spark extra: pip install 'purezmq[spark]'")
pytest.importorskip("pyspark", reason="needs the spark extra: pip install 'purezmq[spark]'")

from purezmq.journal import Journal
from purezmq.spark.session import java_available


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spark: runs on a local SparkSession (needs Java)")


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """host:port of a real S3-compatible server (moto's), for the whole run."""
    pytest.importorskip("moto", reason="the s3:// tests need the test extra (moto[server])")
    from tests.journal.s3server import moto_server

    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one SparkSession of the test run; all queries are stopped at the end."""
    if not java_available():
        pytest.skip("Spark needs a Java runtime (17+): none found on PATH or in JAVA_HOME")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # Executors inherit the JVM's environment, fixed when it starts: S3 test
    # credentials (and no cloud metadata lookups) for the s3:// tests.
    from tests.journal.s3server import use_test_credentials

    use_test_credentials()
    from purezmq.spark.session import local_session

    session = local_session("purezmq-tests", master="local[2]")
    yield session
    for q in session.streams.active:
        q.stop()
    session.stop()


def make_journal(path: Path | str, streams: dict[str, int], per_segment: int = 50,
                 fmt: str = "arrow") -> Journal:  # fmt: skip
    """A journal whose stream s holds values b"<s>-<i>" for i in range(n)."""
    j = Journal.create(str(path), segment_format=fmt)
    for s, n in streams.items():
        append(j, s, 0, n, per_segment)
    return j


def append(j: Journal, stream: str, start: int, end: int, per_segment: int = 50,
           partition: int = 0) -> None:  # fmt: skip
    """Append b"<stream>-<i>" for i in [start, end) (the partition must end at `start`)."""
    with j.writer(stream, partition, seal_count=per_segment, seal_age_s=3600) as w:
        assert w.next_seq == start
        for i in range(start, end):
            w.append([b"k", f"{stream}-{i}".encode()], topic=b"k",
                     timestamp_us=1_700_000_000_000_000 + i)  # fmt: skip
