"""Every command's --help is complete, the reference page is current, and the
command is installed under both names."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

import purezmq
from purezmq.cli import build_parser

from .helpers import purezmq as run

ROOT = Path(__file__).resolve().parents[2]


def _commands() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


#: Metavars that name a unit (or are a count, a name or free text).
UNITS = {
    "SECONDS", "BYTES", "MSG_PER_S", "N", "ENDPOINT", "NAME=VALUE", "TEXT", "FILE", "TYPE",
    "PREFIX", "TOPIC", "EVENT", "Z85", "DIR", "NAME", "LIST", "COMMAND", "TOOL", "ARGS",
    "[HOST:]PORT",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_option_has_help_and_a_unit(name: str) -> None:
    parser = _commands()[name]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or name == "journal":
            continue
        assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
        takes_value = action.nargs != 0
        if takes_value and not action.choices:
            metavar = action.metavar or action.dest.upper()
            assert metavar in UNITS, (name, action.dest, metavar)


def test_durations_are_in_seconds_everywhere() -> None:
    """One unit of time on the whole command line: options taking a duration
    all say SECONDS, and the help of each says what the default is."""
    from purezmq.cli.common import duration

    for name, parser in _commands().items():
        for action in parser._actions:
            if action.type is duration:
                assert action.metavar == "SECONDS", (name, action.dest)
                assert "default" in (action.help or ""), (name, action.dest)


@pytest.mark.parametrize("name", sorted(_commands()))
def test_help_of_each_command_runs(name: str) -> None:
    if name == "journal":
        pytest.importorskip("pyarrow", reason="the journal's commands need the journal extra")
    got = run(name, "--help")
    assert got.status == 0, got
    assert got.stdout.decode().startswith("usage: ")


def test_version_names_the_build() -> None:
    got = run("--version")
    build = "compiled" if purezmq.COMPILED else "pure Python"
    assert (
        got.lines == [got.lines[0]]
        and f"purezmq {purezmq.__version__} ({build} build" in (got.lines[0])
    )


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "purezmq"
    assert script.is_file(), f"{script}: the [project.scripts] entry point is not installed"
    got = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False)
    assert got.returncode == 0 and got.stdout.startswith("purezmq "), got


def test_reference_page_is_current() -> None:
    """docs/cli.md is what scripts/gen_cli_docs.py writes from the parsers."""
    doc = (ROOT / "docs" / "cli.md").read_text()
    made_with = doc.split("(Python ", 1)[1].split(")", 1)[0]
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if made_with != here:
        pytest.skip(f"docs/cli.md was made on Python {made_with} (argparse's layout differs)")
    pytest.importorskip("pyarrow", reason="the journal's pages need the journal extra")
    got = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_cli_docs.py"), "--check"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr


def _shown_commands(text: str) -> list[list[str]]:
    """Each `purezmq ...` command of the sh blocks of a Markdown page."""
    import shlex

    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if "purezmq" in words:
                words = words[words.index("purezmq") + 1 :]
                ends = [i for i, w in enumerate(words) if w in ("&", "|", ";", ">", "&&")]
                out.append(words[: ends[0]] if ends else words)
    return out


@pytest.mark.parametrize("page", ["README.md", "docs/tutorial.md"])
def test_commands_shown_in_the_docs_parse(page: str) -> None:
    """The examples the README and the tutorial show are valid command lines."""
    shown = _shown_commands((ROOT / page).read_text())
    assert shown, page
    for words in shown:
        if words[0] == "journal":
            assert words[1] in ("init", "capture", "ls", "cat", "replay", "retain", "verify")
            continue
        build_parser().parse_args(words)  # exits (status 2) on a bad one


@pytest.mark.parametrize(
    ("argv", "linger"),
    [
        (["sub", "-c", "tcp://127.0.0.1:1"], 0),  # SUB's own default, as libzmq
        (["recv", "-t", "XSUB", "-c", "tcp://127.0.0.1:1"], 0),
        (["pub", "-b", "tcp://127.0.0.1:*"], -1),  # queued messages are delivered
        (["send", "-c", "tcp://127.0.0.1:1"], -1),
        (["sub", "-c", "tcp://127.0.0.1:1", "--linger", "2.5"], 2500),
    ],
)
def test_linger_defaults_to_the_socket_types_own(argv: list[str], linger: int) -> None:
    """Without --linger a socket keeps libzmq's LINGER for its type: a `sub`
    whose publisher had gone (its subscriptions queued again for the next
    connection) waited for ever at exit under the -1 the CLI used to set."""
    from purezmq.cli.common import new_socket

    args = build_parser().parse_args(argv)
    ctx = purezmq.Context()
    sock = new_socket(ctx, args)
    try:
        assert sock.linger == linger
    finally:
        sock.close(linger=0)
        ctx.term()
