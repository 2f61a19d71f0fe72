"""Fuzz harness for the sans-I/O ZMTP layer (no atheris needed).

Invariant: whatever bytes a peer sends, `ZMTPConnection` either handles them
or raises `ProtocolError`; no other exception may escape, and it must not
hang.

    python fuzz/zmtp_fuzz.py                 # 60 s of random inputs
    python fuzz/zmtp_fuzz.py --seconds 600 --seed 7
    python fuzz/zmtp_fuzz.py --replay crash-1234.bin

Inputs come from these generators: random bytes from the first byte, a valid
greeting followed by random bytes, a valid handshake followed by random
frames, a valid stream with random mutations (bit flips, cuts, insertions,
duplicated spans), and the same for ZMTP/2.0 and ZMTP/1.0 peers (their
greeting and identity frame, then frames in their framing). Each input is
delivered in random chunk sizes through ``get_buffer``/``buffer_updated``,
with ``pull`` limits and timer calls drawn at random. A failing input is
written to ``crash-<n>.bin``.

`test_one_input(data)` has the libFuzzer/atheris shape, so the same target
can be plugged into a coverage-guided fuzzer later.
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from purezmq._zmtp import NullMechanism, ProtocolError, ZMTPConnection

SOCKET_TYPES = ("DEALER", "ROUTER", "PUB", "XPUB", "SUB", "XSUB", "PUSH", "PULL", "PAIR")
GREETING = b"\xff" + b"\x00" * 8 + b"\x7f\x03\x01NULL" + b"\x00" * 16 + b"\x00" + b"\x00" * 31
COMMANDS = (b"PING", b"PONG", b"SUBSCRIBE", b"CANCEL", b"ERROR", b"READY", b"JOIN", b"HELLO")


def frame(body: bytes, flags: int) -> bytes:
    if len(body) < 256:
        return bytes((flags, len(body))) + body
    return bytes((flags | 2,)) + struct.pack(">Q", len(body)) + body


def ready(socket_type: bytes) -> bytes:
    body = b"\x05READY\x0bSocket-Type" + struct.pack(">I", len(socket_type)) + socket_type
    return frame(body, 4)


def random_frame(rng: random.Random) -> bytes:
    kind = rng.random()
    size = rng.choice((0, 1, 5, 255, 256, 1000, 9000, 70000))
    body = rng.randbytes(rng.randint(0, size))
    if kind < 0.6:
        return frame(body, rng.choice((0, 1)))
    name = rng.choice(COMMANDS)
    return frame(bytes((len(name),)) + name + body[:40], 4)


def v1_frame(body: bytes, flags: int) -> bytes:
    """ZMTP/1.0: length (counting the flags octet), flags, body."""
    if len(body) + 1 < 255:
        return bytes((len(body) + 1, flags)) + body
    return b"\xff" + struct.pack(">Q", len(body) + 1) + bytes((flags,)) + body


def legacy_stream(rng: random.Random) -> bytes:
    """A ZMTP/2.0, versioned 1.0 or unversioned 1.0 peer and random frames."""
    identity = rng.choice((b"", b"peer", rng.randbytes(rng.randint(0, 300))))
    revision = rng.choice((None, 0, 1))
    bodies = [rng.randbytes(rng.randint(0, rng.choice((5, 300, 9000)))) for _ in range(8)]
    more = [rng.choice((0, 1, rng.randrange(256))) for _ in bodies]
    if revision is None:
        return v1_frame(identity, 0) + b"".join(map(v1_frame, bodies, more))
    head = b"\xff" + struct.pack(">Q", len(identity) + 1) + b"\x7f"
    head += bytes((revision, rng.randrange(12)))
    if revision == 0:
        return head + v1_frame(identity, 0) + b"".join(map(v1_frame, bodies, more))
    frames = (frame(b, m & 1) for b, m in zip(bodies, more, strict=True))
    return head + frame(identity, 0) + b"".join(frames)


def valid_stream(rng: random.Random, peer: bytes) -> bytes:
    return GREETING + ready(peer) + b"".join(random_frame(rng) for _ in range(rng.randint(0, 20)))


def mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not buf:
            break
        op = rng.randrange(4)
        at = rng.randrange(len(buf))
        if op == 0:
            buf[at] ^= 1 << rng.randrange(8)
        elif op == 1:
            del buf[at : at + rng.randint(1, 16)]
        elif op == 2:
            buf[at:at] = rng.randbytes(rng.randint(1, 16))
        else:
            end = min(len(buf), at + rng.randint(1, 64))
            buf[at:at] = buf[at:end]
    return bytes(buf)


def generate(rng: random.Random) -> bytes:
    """One fuzz input: a socket-type byte, a seed byte, then the wire bytes."""
    choice = rng.randrange(6)
    peer = rng.choice((b"DEALER", b"ROUTER", b"SUB", b"PUB", b"PULL", b"PUSH", b"PAIR"))
    if choice == 0:
        wire = rng.randbytes(rng.randint(0, 300))
    elif choice == 1:
        wire = GREETING + rng.randbytes(rng.randint(0, 300))
    elif choice == 2:
        wire = valid_stream(rng, peer)
    elif choice == 3:
        wire = mutate(rng, valid_stream(rng, peer))
    elif choice == 4:
        wire = legacy_stream(rng)
    else:
        wire = mutate(rng, legacy_stream(rng))
    return bytes((rng.randrange(256), rng.randrange(256))) + wire


def test_one_input(data: bytes) -> None:
    """Run one input; raise AssertionError if the invariant breaks."""
    if len(data) < 2:
        return
    socket_type = SOCKET_TYPES[data[0] % len(SOCKET_TYPES)]
    rng = random.Random(data[1])
    wire = data[2:]
    conn = ZMTPConnection(
        socket_type=socket_type,
        mechanism=NullMechanism(identity=b"" if socket_type in ("DEALER", "ROUTER") else None),
        now=0.0,
        heartbeat_ivl=rng.choice((0.0, 1.0)),
        max_msg_size=rng.choice((-1, -1, 0, 100, 70000)),
        check_socket_type=rng.random() < 0.8,
        routing_id=rng.choice((b"", b"id", b"x" * 255)),
        zap_enabled=rng.random() < 0.1,
    )
    now = 0.0
    pos = 0
    try:
        while pos < len(wire):
            view = conn.get_buffer()
            count = min(len(view), len(wire) - pos, rng.choice((1, 2, 7, 100, 5000, 1 << 20)))
            view[:count] = wire[pos : pos + count]
            pos += count
            now += rng.random()
            conn.buffer_updated(count, now)
            conn.pull(rng.choice((1, 3, 1000)))
            if rng.random() < 0.2:
                conn.on_timer(now)
            assert all(len(chunk) for chunk in conn.data_to_send()), "empty output chunk"
            if rng.random() < 0.1 and conn.handshake_done:
                conn.send_messages([[b"\x01topic"], [b"x", b"y" * 300]])
        for _ in range(len(wire) + 1):
            if not conn.pull(1000):
                break
    except ProtocolError:
        pass
    conn.data_to_send()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--replay", type=Path, default=None, help="run one saved input")
    args = parser.parse_args()
    if args.replay is not None:
        test_one_input(args.replay.read_bytes())
        print("replay: no invariant violation")
        return 0
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    deadline = time.monotonic() + args.seconds
    runs = 0
    while time.monotonic() < deadline:
        data = generate(rng)
        try:
            test_one_input(data)
        except Exception:
            path = Path(f"crash-{seed}-{runs}.bin")
            path.write_bytes(data)
            traceback.print_exc()
            print(f"invariant violated; input saved to {path}")
            return 1
        runs += 1
    print(f"seed {seed}: {runs} inputs, only ProtocolError escaped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
