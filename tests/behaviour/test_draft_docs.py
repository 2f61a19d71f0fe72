"""docs/drafts.md is tested: each program it shows is a file of
examples/drafts/ shown whole, and each output it shows is what that file
prints when run here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "drafts.md"
BLOCK = re.compile(r"<!-- (example|output): (\S+) -->\n```[a-z]*\n(.*?)```", re.S)


def _blocks(kind: str) -> dict[str, str]:
    return {path: body for k, path, body in BLOCK.findall(DOC.read_text()) if k == kind}


def test_the_page_shows_every_example_and_its_output() -> None:
    files = {str(p.relative_to(ROOT)) for p in (ROOT / "examples" / "drafts").glob("*.py")}
    assert set(_blocks("example")) == files
    assert set(_blocks("output")) == files


@pytest.mark.parametrize("path", sorted(_blocks("example")))
def test_code_shown_is_the_file(path: str) -> None:
    assert _blocks("example")[path] == (ROOT / path).read_text()


@pytest.mark.parametrize("path", sorted(_blocks("output")))
def test_output_shown_is_what_it_prints(path: str) -> None:
    proc = subprocess.run(
        [sys.executable, path],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == _blocks("output")[path]
