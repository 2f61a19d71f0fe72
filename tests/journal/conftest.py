"""Journal tests need pyarrow (the ``journal`` extra); without it they skip, saying so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the journal needs pyarrow: pip install 'purezmq[journal]'")

from purezmq.journal import Journal


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    """A fresh, empty local journal."""
    yield Journal.create(str(tmp_path / "j"))


def fill(journal: Journal, stream: str, n: int, per_segment: int = 10, start: int = 0) -> None:
    """Append messages b"<stream>-<i>" (i from `start`), sealing every `per_segment`."""
    with journal.writer(stream, seal_count=per_segment, seal_age_s=3600) as w:
        for i in range(start, start + n):
            w.append([f"{stream}-{i}".encode()])


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """host:port of a real S3-compatible server (moto's), for the whole run."""
    pytest.importorskip("moto", reason="the s3:// tests need the test extra (moto[server])")
    from .s3server import moto_server

    with moto_server() as endpoint:
        yield endpoint
