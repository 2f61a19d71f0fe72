"""Exceptions of the journal.

Every error a user can cause (a wrong path, a bad stream name, a second
writer on the same stream) and every problem found on disk (a damaged
segment, a gap left by retention) has its own type, so callers - the CLI, the
Spark source - can react precisely and say what to do.
"""

from __future__ import annotations


class JournalError(Exception):
    """Base class of every journal error."""


class NotAJournalError(JournalError):
    """The path holds no ``journal.json`` (or one of another format)."""


class StreamLockedError(JournalError):
    """Another process is already appending to this stream."""


class CorruptSegmentError(JournalError):
    """A sealed segment does not hold what its name promises."""


class DataLossError(JournalError):
    """Messages that a reader asked for are gone (deleted by retention, or
    the journal was re-created under the same path)."""


class JournalUnreachableError(JournalError):
    """The journal's storage cannot be reached from here (not mounted, no
    credentials, network down, another journal at that path).

    Never data loss: a reader that cannot see the journal must fail, not
    report the segments it cannot open as deleted and skip them.
    """


class MissingExtraError(ImportError):
    """An optional dependency is not installed."""

    def __init__(self, module: str, extra: str) -> None:
        super().__init__(
            f"{module} is needed here but not installed; "
            f"install it with: pip install 'purezmq[{extra}]'"
        )
