"""Render docs/benchmarks.md and docs/img/*.png from saved results.

    python benchmarks/render.py                          # benchmarks/results/latest.json
    python benchmarks/render.py full.json tcp-rerun.json # later files replace their scenarios

The machine and run details come from the last file. The page's "Design
log" section and any journal/Spark section are kept from the existing page;
benchmarks/sections/*.md are included verbatim. Results with the pure and
compiled builds render three columns (pure, compiled, pyzmq; targets judged
on compiled); files from before the compiled build render their two
(purezmq, pyzmq).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness import charts, report, summary

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/render.py", description=__doc__.split("\n")[0])
    p.add_argument(
        "results",
        nargs="*",
        type=Path,
        help="results files (default benchmarks/results/latest.json)",
    )
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "benchmarks.md")
    p.add_argument("--img", type=Path, default=ROOT / "docs" / "img")
    p.add_argument("--no-charts", action="store_true", help="tables only (no matplotlib)")
    args = p.parse_args(argv)
    files = args.results or [HERE / "results" / "latest.json"]
    docs = [json.loads(f.read_text()) for f in files]
    cells = summary.cells(docs)
    drawn: dict[str, str] = {}
    if not args.no_charts:
        try:
            drawn = charts.draw(cells, args.img)
        except ImportError:
            print(
                "[render] matplotlib is missing (pip install -e '.[bench]'): no charts",
                file=sys.stderr,
            )
    existing = args.doc.read_text() if args.doc.exists() else ""
    sources = [_rel(f) for f in files]
    text = report.render(docs, cells, drawn, sources, existing, HERE / "sections")
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(text)
    print(f"[render] wrote {_rel(args.doc)}" + (f" and {len(drawn)} charts" if drawn else ""))
    return 0


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
