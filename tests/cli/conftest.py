"""Fixtures of the CLI tests: background commands that never outlive a test."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from .helpers import Command


@pytest.fixture
def start() -> Iterator[Callable[..., Command]]:
    """start(*args, stdin=None) runs a command in the background; any still
    running when the test ends is killed."""
    started: list[Command] = []

    def run(*args: str, stdin: bytes | None = None, close_stdin: bool = True) -> Command:
        cmd = Command(*args, stdin=stdin, close_stdin=close_stdin)
        started.append(cmd)
        return cmd

    yield run
    for cmd in started:
        cmd.kill()
