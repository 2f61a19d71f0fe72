"""docs/tutorial.md, "the patterns in 15 minutes", is tested: each program it
shows is a file of examples/tutorial/ shown whole, and each output it shows
is what that file prints when run here (with the installed purezmq; the
shell session with the installed ``purezmq`` command)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tutorial.md"
BLOCK = re.compile(r"<!-- (example|output): (\S+) -->\n```[a-z]*\n(.*?)```", re.S)


def _blocks(kind: str) -> dict[str, str]:
    return {path: body for k, path, body in BLOCK.findall(DOC.read_text()) if k == kind}


def test_the_tutorial_shows_every_example_and_its_output() -> None:
    files = {str(p.relative_to(ROOT)) for p in (ROOT / "examples" / "tutorial").iterdir()
             if p.suffix in (".py", ".sh")}  # fmt: skip
    assert set(_blocks("example")) == files
    assert set(_blocks("output")) == files


@pytest.mark.parametrize("path", sorted(_blocks("example")))
def test_code_shown_is_the_file(path: str) -> None:
    assert _blocks("example")[path] == (ROOT / path).read_text()


def _run(path: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # The shell example calls the purezmq command of the Python running the tests.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    cmd = ["bash", path] if path.endswith(".sh") else [sys.executable, path]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("path", sorted(_blocks("output")))
def test_output_shown_is_what_it_prints(path: str) -> None:
    assert _run(path) == _blocks("output")[path]
