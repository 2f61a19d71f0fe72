"""pyzmq programs run unchanged on purezmq: each script in examples/dropin is
run with the real pyzmq and with purezmq behind the `zmq` shim, and both
must print the same thing."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import purezmq

from . import harness

EXAMPLES = sorted((harness.ROOT / "examples" / "dropin").glob("*.py"))


def _run(script: Path, env: dict[str, str] | None) -> str:
    proc = subprocess.run(
        [sys.executable, str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_unchanged_on_purezmq(script: Path) -> None:
    pytest.importorskip("zmq", reason="pyzmq (the reference) is not installed")
    expected = _run(script, None)
    with tempfile.TemporaryDirectory(prefix="purezmq-shim-") as tmp:
        harness.build_shim(Path(tmp))
        env = harness.shim_env(Path(tmp))
        probe = subprocess.run(
            [sys.executable, "-c", "import zmq; print(zmq.__file__)"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert Path(probe.stdout.strip()).resolve() == Path(purezmq.__file__).resolve()
        got = _run(script, env)
    assert got == expected
