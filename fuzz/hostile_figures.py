"""Side-by-side figures for docs/reliability.md: the same hostile peers against
a purezmq server and a libzmq (pyzmq) server, each in its own process.

- flood: one peer completes a NULL handshake and sends N PINGs (16-byte
  context) without reading; the server's RSS growth once it has parsed them
  (a message sent after the PINGs has arrived);
- claims: P peers each declare a 2^30-byte frame and send 16 KiB of it; the
  server's RSS growth per peer;
- huge: a peer declares 2^62 bytes: is the connection dropped?

    python fuzz/hostile_figures.py [--installed] [--pings 2000000] [--peers 200]

``--installed`` serves with the installed purezmq (the compiled build of a
venv) instead of this checkout's src/.
"""

from __future__ import annotations

import argparse
import json
import os
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
PING = b"\x04\x17\x04PING\x00\x00" + b"0123456789abcdef"

SERVER = r"""
import json, sys
impl = sys.argv[1]
if impl == "pyzmq":
    import zmq
else:
    import purezmq as zmq
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
ctx = zmq.Context()
router = ctx.socket(zmq.ROUTER)
router.setsockopt(zmq.LINGER, 0)
router.bind("tcp://127.0.0.1:*")
port = int(router.last_endpoint.decode().rsplit(":", 1)[1])
compiled = bool(getattr(zmq, "COMPILED", False))
print(json.dumps({"port": port, "rss": rss(), "compiled": compiled}), flush=True)
while True:
    frames = router.recv_multipart()
    print(json.dumps({"msg": frames[-1].decode(), "rss": rss()}), flush=True)
"""


class Server:
    def __init__(self, impl: str, installed: bool) -> None:
        env = dict(os.environ)
        if not installed:
            env["PYTHONPATH"] = str(ROOT / "src")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, impl], stdout=subprocess.PIPE, text=True, env=env
        )
        first = self.read()
        self.port = int(str(first["port"]))
        self.compiled = bool(first["compiled"])

    def read(self) -> dict[str, object]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the server died")
        result: dict[str, object] = json.loads(line)
        return result

    def peer(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        sock.sendall(GREETING + READY)
        got = b""
        while len(got) < 64 + 2:
            got += sock.recv(4096)
        return sock

    def marker(self, text: str) -> int:
        """Send `text` on a fresh connection; the server's RSS when it arrives."""
        sock = self.peer()
        body = text.encode()
        sock.sendall(bytes((0, len(body))) + body)
        while True:
            report = self.read()
            if report.get("msg") == text:
                sock.close()
                return int(str(report["rss"]))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def flood(impl: str, installed: bool, pings: int) -> dict[str, object]:
    server = Server(impl, installed)
    try:
        base = server.marker("before")
        sock = server.peer()
        batch = PING * 10_000
        for _ in range(pings // 10_000):
            sock.sendall(batch)
        sock.sendall(b"\x00\x05after")
        while server.read().get("msg") != "after":
            pass
        time.sleep(0.5)
        grown = server.marker("measure") - base
        return {"impl": impl, "compiled": server.compiled, "pings": pings, "rss_growth": grown}
    finally:
        server.close()


def claims(impl: str, installed: bool, peers: int, size: int = 1 << 30) -> dict[str, object]:
    server = Server(impl, installed)
    try:
        base = server.marker("before")
        socks = []
        for _ in range(peers):
            sock = server.peer()
            sock.sendall(b"\x02" + struct.pack(">Q", size) + bytes(16 * 1024))
            socks.append(sock)
        time.sleep(1.0)
        per_peer = (server.marker("measure") - base) // peers
        return {"impl": impl, "peers": peers, "declared": size, "rss_per_peer": per_peer}
    finally:
        server.close()


def huge(impl: str, installed: bool, size: int = 1 << 62) -> dict[str, object]:
    server = Server(impl, installed)
    try:
        sock = server.peer()
        sock.settimeout(5)
        dropped = False
        try:
            sock.sendall(b"\x02" + struct.pack(">Q", size) + bytes(100))
            dropped = sock.recv(1) == b""
        except OSError:
            dropped = True
        return {"impl": impl, "declared": size, "dropped": dropped}
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--installed", action="store_true")
    parser.add_argument("--pings", type=int, default=2_000_000)
    parser.add_argument("--peers", type=int, default=200)
    args = parser.parse_args()
    for impl in ("purezmq", "pyzmq"):
        print(json.dumps(flood(impl, args.installed, args.pings)), flush=True)
        print(json.dumps(claims(impl, args.installed, args.peers)), flush=True)
        print(json.dumps(huge(impl, args.installed)), flush=True)


if __name__ == "__main__":
    main()
