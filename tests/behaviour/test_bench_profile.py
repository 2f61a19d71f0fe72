"""benchmarks/profile_cell.py end to end: one small cell under callgrind.

Checks that the tool runs the harness's processes under valgrind, reads
their callgrind files and reports instructions per message and the top
functions - not what the numbers are (they are a measurement). The
implementation is this interpreter's purezmq, under the name of its build
(the suite runs on both): inproc, so one process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import purezmq

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_profile_cell_reports_instructions_per_message(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    build = "compiled" if purezmq.COMPILED else "pure"
    run = subprocess.run(
        [
            sys.executable,
            str(BENCH / "profile_cell.py"),
            "inproc,64",
            "--impls",
            build,
            f"--python-{build}",
            sys.executable,
            "--count",
            "1500",
            "--baseline",
            "300",
            "--top",
            "5",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "### Instructions per message: `thr/sync/inproc/64`" in run.stdout
    doc = json.loads(out.read_text())
    assert doc["baseline"] == 300 and doc["cell"]["count"] == 1500
    assert doc["builds"][build]["probe"]["compiled"] is purezmq.COMPILED
    proc = doc["results"][build]["processes"]["inproc"]
    assert proc["ir_per_message"] > 0
    assert doc["results"][build]["total"] == proc["ir_per_message"]
    assert 0 < len(proc["top"]) <= 5
    assert all(ir > 0 for _, ir in proc["top"])
