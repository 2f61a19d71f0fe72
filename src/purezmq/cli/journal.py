"""``purezmq journal ...``: the durable journal's commands (capture, cat,
replay, ...), which live with the journal (``python -m purezmq.journal``).

The journal package exports a Python API only (its ``__all__``); its command
line is the module run as a program. So this command runs that module as
``python -m`` would, in this process, with the rest of the command line:
same options, same output, same exit status, one source of help.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from typing import Any

from .common import fail

#: The journal's subcommands, for the top-level help (its own --help has the rest).
SUMMARY = "init, capture, ls, cat, replay, retain, verify (purezmq journal --help)"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "journal", help=f"durable capture and replay of streams: {SUMMARY}",
        description="The durable journal's command line: 'purezmq journal ARGS' is "
        "'python -m purezmq.journal ARGS'. Needs the journal extra: "
        "pip install 'purezmq[journal]'.",
        add_help=False, prefix_chars="\0",
    )  # fmt: skip
    p.add_argument("args", nargs=argparse.REMAINDER, help="the journal command and its options")
    p.set_defaults(run=run, parser=p)


def run(a: argparse.Namespace) -> int:
    return run_module(list(a.args))


def run_module(args: list[str]) -> int:
    """Run ``python -m purezmq.journal ARGS`` here; its exit status."""
    saved = sys.argv
    sys.argv = ["purezmq journal", *args]
    try:
        runpy.run_module("purezmq.journal", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except ImportError as exc:
        said = str(exc)
        fail(said if "pip install" in said else f"{said}: pip install 'purezmq[journal]'")
    finally:
        sys.argv = saved
    return 0
