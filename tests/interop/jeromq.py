"""JeroMQ 0.3.6 as a test peer: a real ZMTP/2.0 implementation.

Debian ships JeroMQ 0.3.6 (``libjeromq-java``), a Java port of libzmq 3.2
that greets with ZMTP/2.0 and speaks nothing newer. ``jeromq/JeroPeer.java``
is compiled once per test session with ``javac`` and run as a child process
that holds named JeroMQ sockets; `JeroProcess` drives it line by line
(see the Java file for the commands) and `JeroSocket` looks enough like a
pyzmq socket for the tests to treat both alike.

``scripts/_jeromq.sh`` installs the JDK and libjeromq-java when missing;
without them these tests skip and say why - except under CI, where they fail.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

#: Where Debian's libjeromq-java puts the jar.
JEROMQ_JAR = Path(os.environ.get("PUREZMQ_JEROMQ_JAR", "/usr/share/java/jeromq.jar"))
SOURCE = Path(__file__).resolve().parent / "jeromq" / "JeroPeer.java"
#: How long one command may take (a receive asks for less than this).
REPLY_TIMEOUT = 20.0
#: Frames at least this long travel as "*N" when they are the pattern.
PATTERN_MIN = 64


_BLOCK = bytes(range(251))


def pattern(size: int) -> bytes:
    """The bytes JeroPeer's "*N" frames hold (i % 251): large payloads
    without hex on the pipe."""
    return (_BLOCK * (size // 251 + 1))[:size]


def _encode(frame: bytes) -> str:
    if not frame:
        return "-"
    if len(frame) >= PATTERN_MIN and frame == pattern(len(frame)):
        return f"*{len(frame)}"
    return frame.hex()


def _decode(word: str) -> bytes:
    if word == "-":
        return b""
    if word.startswith("*"):
        return pattern(int(word[1:]))
    return bytes.fromhex(word)


def unavailable() -> str | None:
    """Why JeroMQ cannot run here, or None."""
    missing = [tool for tool in ("java", "javac") if shutil.which(tool) is None]
    if missing:
        return f"needs a JDK ({', '.join(missing)} not found): bash scripts/_jeromq.sh installs one"
    if not JEROMQ_JAR.is_file():
        return f"needs JeroMQ ({JEROMQ_JAR} not found): apt-get install libjeromq-java"
    return None


def require() -> None:
    """Skip the calling test when JeroMQ cannot run - fail under CI, where
    scripts/test.sh installed it and a skip would hide the interop suite."""
    why = unavailable()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"JeroMQ interop tests cannot run: {why}")
    pytest.skip(why)


def compile_peer(out_dir: Path) -> str:
    """Compile JeroPeer.java into `out_dir`; returns the classpath to run it."""
    subprocess.run(
        ["javac", "-d", str(out_dir), "-cp", str(JEROMQ_JAR), str(SOURCE)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return f"{out_dir}{os.pathsep}{JEROMQ_JAR}"


class JeroProcess:
    """One JVM running JeroPeer; its sockets live until `close` or `kill`."""

    def __init__(self, classpath: str) -> None:
        self._proc = subprocess.Popen(
            ["java", "-XX:TieredStopAtLevel=1", "-cp", classpath, "JeroPeer"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="ascii",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="jeropeer-stdout", daemon=True)
        self._reader.start()
        self._names = 0
        assert self._next_line() == "ready"

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _next_line(self, timeout: float = REPLY_TIMEOUT) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"JeroPeer did not answer within {timeout} s") from None
        if line is None:
            raise AssertionError(f"JeroPeer exited (status {self._proc.poll()})")
        return line

    def call(self, *words: str, timeout: float = REPLY_TIMEOUT) -> str:
        """Send one command; returns its reply (AssertionError for "error ...")."""
        assert self._proc.stdin is not None
        self._proc.stdin.write(" ".join(words) + "\n")
        self._proc.stdin.flush()
        reply = self._next_line(timeout)
        assert not reply.startswith("error"), f"JeroPeer {words[0]}: {reply}"
        return reply

    def socket(self, type_name: str) -> JeroSocket:
        self._names += 1
        name = f"s{self._names}"
        self.call("socket", name, type_name)
        return JeroSocket(self, name, type_name)

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def kill(self) -> None:
        """Die at once, as a crashed program would (no socket is closed)."""
        self._proc.kill()
        self._proc.wait(10)

    def close(self) -> None:
        if self.alive:
            try:
                self.call("quit", timeout=10)
                self._proc.wait(10)
            except (AssertionError, OSError, subprocess.TimeoutExpired):
                self.kill()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()


class JeroSocket:
    """A JeroMQ socket in a `JeroProcess`, with a few pyzmq-like methods."""

    def __init__(self, proc: JeroProcess, name: str, type_name: str) -> None:
        self.proc = proc
        self.name = name
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<JeroMQ {self.type_name} {self.name}>"

    def set_identity(self, identity: bytes) -> None:
        self.proc.call("option", self.name, "identity", _encode(identity))

    def subscribe(self, topic: bytes) -> None:
        self.proc.call("option", self.name, "subscribe", _encode(topic))

    def unsubscribe(self, topic: bytes) -> None:
        self.proc.call("option", self.name, "unsubscribe", _encode(topic))

    def bind(self, endpoint: str = "tcp://127.0.0.1:*") -> str:
        """Bind; returns the endpoint with its real port."""
        port = self.proc.call("bind", self.name, endpoint).split()[1]
        return f"tcp://127.0.0.1:{port}"

    def connect(self, endpoint: str) -> None:
        self.proc.call("connect", self.name, endpoint)

    def send_multipart(self, frames: list[bytes]) -> None:
        reply = self.proc.call("send", self.name, ",".join(_encode(f) for f in frames))
        assert reply == "ok", f"JeroMQ {self.type_name} could not send: {reply}"

    def send(self, frame: bytes) -> None:
        self.send_multipart([frame])

    def recv_multipart(self, timeout_ms: int = 5000) -> list[bytes]:
        """The next message; AssertionError if none comes within `timeout_ms`."""
        reply = self.proc.call("recv", self.name, str(timeout_ms))
        assert reply != "timeout", f"JeroMQ {self.type_name} received nothing in {timeout_ms} ms"
        return [_decode(w) for w in reply[4:].split(",")]

    def poll_recv(self, timeout_ms: int) -> list[bytes] | None:
        """The next message, or None if none comes within `timeout_ms`."""
        reply = self.proc.call("recv", self.name, str(timeout_ms))
        if reply == "timeout":
            return None
        return [_decode(w) for w in reply[4:].split(",")]

    def close(self) -> None:
        if self.proc.alive:
            self.proc.call("close", self.name)
