"""docs/multicast.md shows the repair timeline that scripts/gen_pgm_timeline.py
prints from the real state machines: the page's copy must be current."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_doc_timeline_is_the_scripts_output() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_pgm_timeline", ROOT / "scripts" / "gen_pgm_timeline.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    lines = module.HEADER + module.timeline()
    page = (ROOT / "docs" / "multicast.md").read_text()
    block = page.split("<!-- pgm-timeline -->\n```\n", 1)[1].split("```\n<!-- /pgm-timeline -->")[0]
    assert block.splitlines() == lines, "run: python scripts/gen_pgm_timeline.py"
    # What the picture is meant to show did happen.
    text = "\n".join(lines)
    assert "ODATA 2                ──X" in text and "RDATA 2" in text
    assert "NAK 5" in text and "delivered up to 5" in text
