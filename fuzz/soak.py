"""Hostile-peer soak (issue 12): many kinds of bad peers at once, for a while,
against one purezmq ROUTER that healthy peers keep using.

Threads play hostile peers in a loop, each kind its own attack:

- garbage: random bytes from the first byte, or after a valid greeting;
- bad-frame: a valid handshake, a message, then a frame with reserved bits;
- flood: a handshake, then PINGs it never reads the answers to;
- claim: a handshake, then a frame header declaring 2^30 or 2^62 bytes and
  a few body bytes;
- slow: a greeting one byte at a time, then silence (HANDSHAKE_IVL ends it);
- abandon: connect, send half a greeting, reset (SO_LINGER 0);
- error: a handshake, then an ERROR command.

Meanwhile healthy purezmq DEALERs round-trip messages through the ROUTER,
served by the application thread (the caller's). At the end: every healthy
round trip was answered, the server's descriptors are back near where they
started, RSS grew by a bounded amount, and nothing was logged above DEBUG
(no traceback) by purezmq.

    python fuzz/soak.py --seconds 600         # the long run (docs/reliability.md)

tests/wire/test_soak.py runs `soak(5)` in CI.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import purezmq as zmq

GREETING = b"\xff" + bytes(8) + b"\x7f\x03\x01NULL" + bytes(16) + b"\x00" + bytes(31)
_READY_BODY = b"\x05READY\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
READY = bytes((0x04, len(_READY_BODY))) + _READY_BODY
KINDS = ("garbage", "bad-frame", "flood", "claim", "slow", "abandon", "error")


def _rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


class _Capture(logging.Handler):
    """Records purezmq's log records above DEBUG, or with a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.loud: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno > logging.DEBUG or record.exc_info:
            self.loud.append(f"{record.levelname}: {record.getMessage()}")


def _handshake(sock: socket.socket) -> bool:
    """Our greeting and READY; theirs read. False if the server hung up."""
    sock.sendall(GREETING + READY)
    got = b""
    while len(got) < 64 + 2:
        chunk = sock.recv(4096)
        if not chunk:
            return False
        got += chunk
    return True


def _attack(kind: str, port: int, rng: random.Random) -> None:
    sock = socket.create_connection(("127.0.0.1", port), timeout=2.0)
    try:
        if kind == "garbage":
            head = GREETING if rng.random() < 0.5 else b""
            sock.sendall(head + rng.randbytes(rng.randint(1, 2000)))
        elif kind == "abandon":
            sock.sendall(GREETING[: rng.randint(1, 40)])
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        elif kind == "slow":
            for byte in GREETING[: rng.randint(5, 30)]:
                sock.send(bytes((byte,)))
                time.sleep(0.01)
        elif not _handshake(sock):
            return
        elif kind == "bad-frame":
            sock.sendall(b"\x00\x05hello" + b"\xf8\x00")
        elif kind == "flood":
            ping = b"\x04\x17\x04PING\x00\x00" + b"0123456789abcdef"
            sock.sendall(ping * rng.randint(1000, 20000))
        elif kind == "claim":
            size = rng.choice((1 << 30, 1 << 62))
            sock.sendall(b"\x02" + struct.pack(">Q", size) + bytes(rng.randint(1, 30000)))
        elif kind == "error":
            sock.sendall(b"\x04\x0b\x05ERROR\x04nope")
        # Read whatever comes until the server closes or we give up.
        sock.settimeout(0.2)
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass
    except OSError:
        pass  # the server hung up on us: that is the point
    finally:
        sock.close()


def soak(
    seconds: float, *, attackers: int = 6, healthy: int = 3, seed: int = 1
) -> dict[str, object]:
    """Run the soak; returns its figures (raises AssertionError on a failure)."""
    capture = _Capture()
    logger = logging.getLogger("purezmq")
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(capture)
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.HANDSHAKE_IVL, 500)
    router.bind("tcp://127.0.0.1:*")
    port = int(router.last_endpoint.decode().rsplit(":", 1)[1])
    stop = threading.Event()
    attacks = [0]
    lock = threading.Lock()

    def attacker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        while not stop.is_set():
            _attack(rng.choice(KINDS), port, rng)
            with lock:
                attacks[0] += 1

    clients = []
    for i in range(healthy):
        c = ctx.socket(zmq.DEALER)
        c.setsockopt(zmq.LINGER, 0)
        c.setsockopt(zmq.ROUTING_ID, b"healthy-%d" % i)
        c.setsockopt(zmq.RCVTIMEO, 5000)
        c.connect(f"tcp://127.0.0.1:{port}")
        clients.append(c)
    # Healthy traffic works before the attack starts (and baselines are taken).
    for i, c in enumerate(clients):
        c.send(b"hello")
        rid, body = router.recv_multipart()
        assert rid == b"healthy-%d" % i
        router.send_multipart([rid, body])
        assert c.recv() == b"hello"
    fds0, rss0 = _fds(), _rss()
    threads = [threading.Thread(target=attacker, args=(i,), daemon=True) for i in range(attackers)]
    for t in threads:
        t.start()
    roundtrips = 0
    deadline = time.monotonic() + seconds
    router.setsockopt(zmq.RCVTIMEO, 5000)
    try:
        while time.monotonic() < deadline:
            for i, c in enumerate(clients):
                body = b"ping-%d" % roundtrips
                c.send(body)
                while True:  # attackers may get messages through first: skip theirs
                    frames = router.recv_multipart()
                    if frames[0] == b"healthy-%d" % i:
                        break
                assert frames[1:] == [body], "a healthy peer's message was changed"
                router.send_multipart(frames)
                assert c.recv() == body, "a healthy peer lost a reply"
                roundtrips += 1
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    # Let the server notice the last attackers' departures.
    settle = time.monotonic() + 10
    while _fds() > fds0 + 2 and time.monotonic() < settle:
        time.sleep(0.1)
    fds_left = _fds() - fds0
    result: dict[str, object] = {
        "seconds": seconds,
        "attacks": attacks[0],
        "healthy_roundtrips": roundtrips,
        "fds_left": fds_left,
        "rss_growth": _rss() - rss0,
        "loud_logs": capture.loud[:5],
    }
    for c in clients:
        c.close()
    router.close()
    ctx.term()
    logger.removeHandler(capture)
    logger.setLevel(old_level)
    assert not capture.loud, capture.loud[:5]
    assert fds_left <= 2, result
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--attackers", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(soak(args.seconds, attackers=args.attackers, seed=args.seed)))


if __name__ == "__main__":
    main()
