"""Driving the ``purezmq`` command as a user does: a process per command,
real sockets, stdin and stdout, exit statuses.

Every command runs as ``python -m purezmq`` with the interpreter running the
tests (the installed build, never src/). A command that binds a wildcard port
reports the real endpoint on stderr; `Command.endpoint` waits for that line,
so no test guesses a free port or sleeps while a peer starts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import IO

import pytest

#: Generous: the machine is shared and a command starts an interpreter.
TIMEOUT = 30.0


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def purezmq(*args: str, stdin: bytes | None = None, timeout: float = TIMEOUT) -> Result:
    """Run one command to its end."""
    proc = subprocess.run(
        [sys.executable, "-m", "purezmq", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        env=_env(),
        check=False,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr.decode(errors="replace"))


class Result:
    def __init__(self, status: int, stdout: bytes, stderr: str) -> None:
        self.status = status
        self.stdout = stdout
        self.stderr = stderr

    @property
    def lines(self) -> list[str]:
        return self.stdout.decode().splitlines()

    def __repr__(self) -> str:
        return (
            f"Result(status={self.status}, stdout={self.stdout[-500:]!r}, stderr={self.stderr!r})"
        )


class Command:
    """A command running in the background (a server, a listener).

    A thread reads its stderr line by line as it comes (select() on the pipe
    would miss lines already in the reader's buffer), so a test can wait for
    a line such as the endpoint a wildcard bind got."""

    def __init__(self, *args: str, stdin: bytes | None = None, close_stdin: bool = True) -> None:
        self.args = args
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "purezmq", *args],
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(),
        )
        if stdin is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(stdin)
            self.proc.stdin.flush()
            if close_stdin:  # else the command waits for more input (and stays connected)
                self.proc.stdin.close()
        self.stderr_lines: list[str] = []
        self._changed = threading.Condition()
        self._eof = False
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        stream: IO[bytes] | None = self.proc.stderr
        assert stream is not None
        for raw in iter(stream.readline, b""):
            with self._changed:
                self.stderr_lines.append(raw.decode(errors="replace"))
                self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def wait_stderr(self, text: str, timeout: float = TIMEOUT) -> str:
        """The first stderr line containing `text` (waiting for it to come)."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for line in self.stderr_lines[seen:]:
                    if text in line:
                        return line
                seen = len(self.stderr_lines)
                left = deadline - time.monotonic()
                if self._eof or left <= 0:
                    break
                self._changed.wait(left)
        pytest.fail(f"{self.args}: no {text!r} on stderr; got {self.stderr_lines!r}")

    def endpoint(self, kind: str | None = None) -> str:
        """The endpoint a wildcard bind got (from 'purezmq: TYPE bound to EP')."""
        line = self.wait_stderr(f"purezmq: {kind} bound to " if kind else " bound to ")
        return line.rsplit(" bound to ", 1)[1].strip()

    def stderr_after_exit(self, timeout: float = TIMEOUT) -> str:
        """All of stderr, once the process has ended."""
        self.proc.wait(timeout)
        self._reader.join(timeout)
        return "".join(self.stderr_lines)

    def signal(self, signum: int = signal.SIGTERM) -> None:
        self.proc.send_signal(signum)

    def finish(self, timeout: float = TIMEOUT) -> Result:
        """Wait for the end; the whole output (stdout is read after the end:
        fine for the small outputs of these tests, under a pipe's 64 KiB)."""
        assert self.proc.stdout is not None
        try:
            out = self.proc.stdout.read() if self.proc.wait(timeout) is not None else b""
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"{self.args} did not end within {timeout} s: {self.stderr_lines!r}")
        self._reader.join(timeout)
        return Result(self.proc.returncode, out, "".join(self.stderr_lines))

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stdin):
            if stream is not None and not stream.closed:
                stream.close()


def one_error_line(result: Result, *fragments: str) -> None:
    """A failure as the CLI promises: status 1 and one error line on stderr,
    the last (after any notes such as a wildcard bind's port), no traceback."""
    assert result.status == 1, result
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if not line.startswith("purezmq: ") or "error" in line]
    assert errors == lines[-1:], result
    assert lines[-1].startswith("purezmq: error: "), result
    for fragment in fragments:
        assert fragment in lines[-1], result
