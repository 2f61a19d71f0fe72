"""Many connections against a server in a poll() loop (issue 12's load test).

A server process (purezmq or pyzmq, the same program) binds a ROUTER and
serves it from a ``zmq.Poller`` loop, echoing every message and counting
its monitor's HANDSHAKE_SUCCEEDED and DISCONNECTED events. This process
opens N raw TCP connections that each speak ZMTP 3.1 as a DEALER (greeting,
READY, one message, its echo), then closes them all, and measures:

- ``handshake_s``: from the first connect until every connection has its
  echo back (accept, handshake and one round trip each);
- ``closed_s``: from closing them until the server has reported every
  disconnection (the issue saw 6,968 of 10,000 still open after 30 s);
- ``rss_per_conn``: the server's RSS growth per connection, read while all
  are open.

    python fuzz/load_connections.py --connections 10000 --impl purezmq
    python fuzz/load_connections.py --connections 10000 --impl pyzmq

Needs ``ulimit -n`` above N plus some (the script raises its soft limit to
the hard one, and the server's). `run()` is what tests/wire/test_load.py
calls, with fewer connections and no timing assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GREETING = b"\xff" + bytes(8) + b"\x7f\x03\x01NULL" + bytes(16) + b"\x00" + bytes(31)
_READY_BODY = b"\x05READY\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
READY = bytes((0x04, len(_READY_BODY))) + _READY_BODY
MESSAGE = b"\x00\x05hello"

SERVER = r"""
import json, os, struct, sys, time
impl = sys.argv[1]
if impl == "pyzmq":
    import zmq
else:
    import purezmq as zmq
ctx = zmq.Context()
router = ctx.socket(zmq.ROUTER)
router.setsockopt(zmq.LINGER, 0)
router.setsockopt(zmq.BACKLOG, 4096)
router.bind("tcp://127.0.0.1:*")
mon = router.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED)
poller = zmq.Poller()
poller.register(router, zmq.POLLIN)
poller.register(mon, zmq.POLLIN)
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0
port = int(router.last_endpoint.decode().rsplit(":", 1)[1])
compiled = bool(getattr(zmq, "COMPILED", False))
print(json.dumps({"port": port, "rss": rss(), "compiled": compiled}), flush=True)
ok = gone = echoed = 0
last = None
while True:
    for sock, _ in poller.poll(100):
        if sock is router:
            while True:
                try:
                    frames = router.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                router.send_multipart(frames)
                echoed += 1
        else:
            while True:
                try:
                    frames = mon.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                event = struct.unpack("=HI", frames[0][:6])[0]
                if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                    ok += 1
                elif event == zmq.EVENT_DISCONNECTED:
                    gone += 1
    state = (ok, gone, echoed)
    if state != last:
        last = state
        report = {"handshaken": ok, "disconnected": gone, "echoed": echoed, "rss": rss()}
        print(json.dumps(report), flush=True)
"""


def raise_fd_limit() -> int:
    """Soft RLIMIT_NOFILE up to the hard limit; returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Client:
    """One raw DEALER: greeting and READY, then (once the server's READY is
    in: libzmq takes no data before its own READY went out) a message, and
    its echo."""

    __slots__ = ("inbuf", "outbuf", "sent_message", "sock")

    def __init__(self, port: int) -> None:
        self.sock = socket.socket()
        self.sock.setblocking(False)
        self.sock.connect_ex(("127.0.0.1", port))
        self.outbuf = GREETING + READY
        self.inbuf = b""
        self.sent_message = False

    def frames_in(self) -> int:
        """Complete frames received after the server's greeting."""
        data = self.inbuf
        if len(data) < 64:
            return 0
        pos = 64
        frames = 0
        while len(data) - pos >= 2:
            size = data[pos + 1]
            if len(data) - pos - 2 < size:
                break
            frames += 1
            pos += 2 + size
        return frames


class _Reader:
    """The server's JSON lines, read without blocking."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        self._partial = ""
        self.last: dict[str, int] = {}

    def poll(self) -> dict[str, int]:
        assert self.proc.stdout is not None
        try:
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16).decode()
        except BlockingIOError:
            chunk = ""
        data = self._partial + chunk
        *lines, self._partial = data.split("\n")
        for line in lines:
            if line.strip():
                self.last = json.loads(line)
        return self.last


def run(
    impl: str, connections: int, timeout: float = 300.0, *, installed: bool = False
) -> dict[str, object]:
    """Run the load against a fresh server; figures as a dict (see module doc).
    `installed`: the server imports the installed purezmq (the compiled build
    in a venv), not this checkout's sources."""
    raise_fd_limit()
    env = dict(os.environ)
    if not installed:
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
        )
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, impl],
        stdout=subprocess.PIPE,
        text=True,
        env=env,  # and the raised RLIMIT_NOFILE: children inherit it
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        port, rss0, compiled = first["port"], first["rss"], first["compiled"]
        reader = _Reader(proc)
        sel = selectors.DefaultSelector()
        clients: list[Client] = []
        start = time.monotonic()
        deadline = start + timeout
        for _ in range(connections):
            c = Client(port)
            clients.append(c)
            sel.register(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
        finished = 0
        while finished < connections:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{finished}/{connections} round trips after {timeout}s")
            for key, mask in sel.select(0.5):
                c = key.data
                if mask & selectors.EVENT_WRITE and c.outbuf:
                    try:
                        n = c.sock.send(c.outbuf)
                    except (BlockingIOError, InterruptedError):
                        n = 0
                    c.outbuf = c.outbuf[n:]
                    if not c.outbuf:
                        sel.modify(c.sock, selectors.EVENT_READ, c)
                if mask & selectors.EVENT_READ:
                    try:
                        data = c.sock.recv(4096)
                    except (BlockingIOError, InterruptedError):
                        continue
                    if not data:
                        raise AssertionError("the server closed a healthy connection")
                    c.inbuf += data
                    frames = c.frames_in()
                    if frames >= 1 and not c.sent_message:  # the server's READY
                        c.sent_message = True
                        c.outbuf = MESSAGE
                        sel.modify(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
                    if frames >= 2:  # the echo
                        finished += 1
                        sel.unregister(c.sock)
            reader.poll()
        handshake_s = time.monotonic() - start
        # The server's RSS with every connection open.
        while reader.poll().get("echoed", 0) < connections:
            if time.monotonic() > deadline:
                raise TimeoutError("the server did not report every echo")
            time.sleep(0.05)
        rss_open = reader.last["rss"]
        closing = time.monotonic()
        for c in clients:
            c.sock.close()
        while reader.poll().get("disconnected", 0) < connections:
            if time.monotonic() > deadline:
                left = connections - reader.last.get("disconnected", 0)
                raise TimeoutError(f"{left} connections still open after the clients closed")
            time.sleep(0.05)
        closed_s = time.monotonic() - closing
        return {
            "impl": impl + (" compiled" if compiled else ""),
            "connections": connections,
            "handshaken": reader.last["handshaken"],
            "disconnected": reader.last["disconnected"],
            "handshake_s": round(handshake_s, 2),
            "closed_s": round(closed_s, 2),
            "rss_per_conn": (rss_open - rss0) // connections,
        }
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--impl", choices=("purezmq", "pyzmq"), default="purezmq")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--installed", action="store_true", help="serve with the installed purezmq, not src/"
    )
    args = parser.parse_args()
    limit = raise_fd_limit()
    if limit < args.connections + 100:
        sys.exit(f"ulimit -n is {limit}: need {args.connections + 100}")
    print(json.dumps(run(args.impl, args.connections, args.timeout, installed=args.installed)))


if __name__ == "__main__":
    main()
