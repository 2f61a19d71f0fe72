"""The five security levels of the ZeroMQ guide run as shipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "security"
LEVELS = ["grasslands", "strawhouse", "woodhouse", "stonehouse", "ironhouse"]


@pytest.mark.parametrize("level", LEVELS)
def test_example_runs(level: str) -> None:
    if level in ("stonehouse", "ironhouse"):
        pytest.importorskip("nacl")
    # The example imports purezmq from this interpreter's environment: the
    # installed build under test.
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{level}.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert f"{level.capitalize()} test OK" in out.stdout
