"""Progress on stderr for the long jobs (sending a file, receiving a count,
benchmarks), with rich or tqdm when installed (``pip install 'purezmq[cli]'``
brings rich) and a plain counter otherwise.

Progress is shown only where someone watches: by default (``auto``) when
stderr is a terminal, so pipes and scripts get no escape sequences. stdout is
never touched - it carries the messages.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from types import TracebackType
from typing import Any

MODES = ("auto", "rich", "tqdm", "plain", "off")


def add_progress_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--progress", choices=MODES, default="auto",
        help="progress on stderr: auto (rich, else tqdm, else plain text, when stderr is a "
        "terminal; nothing otherwise), a given one (plain works everywhere), or off",
    )  # fmt: skip


def backend(mode: str) -> str:
    """The backend `mode` resolves to here: rich, tqdm, plain or off."""
    if mode == "auto":
        if not sys.stderr.isatty():
            return "off"
        for name in ("rich", "tqdm"):
            if importlib.util.find_spec(name) is not None:
                return name
        return "plain"
    if mode in ("rich", "tqdm") and importlib.util.find_spec(mode) is None:
        return "plain"  # asked for, not installed: still show progress
    return mode


class Progress:
    """A counter of `what` (messages, runs) towards `total` (None: unknown)."""

    def __init__(self, mode: str, what: str, total: int | None = None) -> None:
        self.what = what
        self.total = total
        self.count = 0
        self.kind = backend(mode)
        self._bar: Any = None
        self._task: Any = None
        self._shown_at = 0.0

    def __enter__(self) -> Progress:
        if self.kind == "rich":
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(transient=False, console=_rich_console())
            self._bar.start()
            self._task = self._bar.add_task(self.what, total=self.total)
        elif self.kind == "tqdm":
            from tqdm import tqdm

            self._bar = tqdm(total=self.total, desc=self.what, unit="", file=sys.stderr)
        return self

    def advance(self, n: int = 1, label: str | None = None) -> None:
        self.count += n
        if self.kind == "rich":
            self._bar.update(self._task, advance=n, description=label or self.what)
        elif self.kind == "tqdm":
            if label:
                self._bar.set_description(label, refresh=False)
            self._bar.update(n)
        elif self.kind == "plain":
            now = time.monotonic()
            if now - self._shown_at >= 0.2 or self.count == self.total:
                self._shown_at = now
                of = f"/{self.total}" if self.total else ""
                sys.stderr.write(f"\r{label or self.what}: {self.count}{of}")
                sys.stderr.flush()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.kind in ("rich",):
            self._bar.stop()
        elif self.kind == "tqdm":
            self._bar.close()
        elif self.kind == "plain" and self.count:
            of = f"/{self.total}" if self.total else ""
            sys.stderr.write(f"\r{self.what}: {self.count}{of}\n")
            sys.stderr.flush()


def _rich_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)
