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
