"""The asyncio examples run and check themselves (exit 0 = all they verify holds)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted(
    (pathlib.Path(__file__).resolve().parents[2] / "examples" / "asyncio").glob("*.py")
)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path: pathlib.Path) -> None:
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_there_is_an_example_per_pattern() -> None:
    assert {p.name for p in EXAMPLES} >= {
        "router_dealer.py",
        "req_rep.py",
        "pub_sub.py",
        "pipeline.py",
    }
