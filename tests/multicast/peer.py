"""A PUB or SUB peer for the multicast tests, run inside a network namespace.

Runs under Debian's /usr/bin/python3 with its pyzmq (libzmq + OpenPGM), or
under the test venv's Python with purezmq (``--purezmq``). Standard output
is the protocol with the test: "ready" once the socket is up, then for a SUB
one line per message received: its index and a digest of its frames, so the
test checks order, completeness and content without moving megabytes.

    peer.py pub ENDPOINT --count N --size BYTES [--topics a,b] [--rate KBPS]
    peer.py sub ENDPOINT --count N [--subscribe PREFIX] [--timeout S]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time


def _zmq(purezmq: bool):  # type: ignore[no-untyped-def]
    if purezmq:
        import purezmq as zmq
    else:
        import zmq  # type: ignore[no-redef]
    return zmq


def payload(index: int, size: int) -> bytes:
    """Message `index`'s body: its number, then filler that depends on it."""
    head = b"%08d" % index
    return head + bytes((index + i) % 251 for i in range(max(0, size - len(head))))


def digest(frames: list[bytes]) -> str:
    return hashlib.sha1(b"\0".join(frames)).hexdigest()[:12]


def pub(args: argparse.Namespace) -> None:
    zmq = _zmq(args.purezmq)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.XPUB if args.x else zmq.PUB)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RATE, args.rate)
    sock.setsockopt(zmq.RECOVERY_IVL, args.recovery)
    sock.setsockopt(zmq.LINGER, 0)
    if args.hops:
        sock.setsockopt(zmq.MULTICAST_HOPS, args.hops)
    if args.maxtpdu:
        sock.setsockopt(zmq.MULTICAST_MAXTPDU, args.maxtpdu)
    sock.connect(args.endpoint)
    if args.x:  # subscribed to all by the transport, silently (nothing to read)
        sock.setsockopt(zmq.RCVTIMEO, 200)
        try:
            print(f"subscription {sock.recv()!r}", flush=True)
        except zmq.Again:
            pass
    print("ready", flush=True)
    topics = args.topics.split(",")
    deadline = time.monotonic() + args.duration
    index = 0
    while time.monotonic() < deadline and (args.count <= 0 or index < args.count):
        topic = topics[index % len(topics)].encode()
        sock.send_multipart([topic, payload(index, args.size)])
        index += 1
        if args.progress and index % args.progress == 0:
            print(f"progress {index}", flush=True)
        if args.interval:
            time.sleep(args.interval)
    # Keep the session (and its window, for repairs) alive a while.
    time.sleep(args.linger)
    print(f"sent {index}", flush=True)
    sock.close()
    ctx.term()


def sub(args: argparse.Namespace) -> None:
    zmq = _zmq(args.purezmq)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.XSUB if args.x else zmq.SUB)
    sock.setsockopt(zmq.RCVHWM, 0)
    # The receive window is RATE x RECOVERY_IVL as on the sender (libzmq's
    # compute_sqns): the default 100 kbit/s holds 83 packets, too few to wait
    # for a repair at the publisher's rate.
    sock.setsockopt(zmq.RATE, args.rate)
    sock.setsockopt(zmq.RECOVERY_IVL, args.recovery)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVTIMEO, int(args.timeout * 1000))
    if args.x:
        sock.connect(args.endpoint)
        sock.send(b"\x01" + args.subscribe.encode())  # goes nowhere over PGM
    else:
        sock.setsockopt(zmq.SUBSCRIBE, args.subscribe.encode())
        sock.connect(args.endpoint)
    print("ready", flush=True)
    got = 0
    while got < args.count:
        try:
            frames = sock.recv_multipart()
        except zmq.Again:
            print("timeout", flush=True)
            break
        index = int(frames[1][:8]) if len(frames) > 1 else -1
        line = f"{index} {frames[0].decode()} {digest(frames)} {len(frames[-1])}"
        print(line, flush=True)
        got += 1
    sock.close()
    ctx.term()


def asyncio_sub(args: argparse.Namespace) -> None:
    """As `sub`, with purezmq.asyncio: the endpoint runs on the event loop."""
    import asyncio

    import purezmq as zmq
    import purezmq.asyncio as zaio

    async def run() -> None:
        ctx = zaio.Context()
        sock = ctx.socket(zmq.SUB)
        sock.setsockopt(zmq.RCVHWM, 0)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RATE, args.rate)
        sock.setsockopt(zmq.SUBSCRIBE, args.subscribe.encode())
        sock.connect(args.endpoint)  # inside the running loop: the loop's driver
        print("ready", flush=True)
        for _ in range(args.count):
            try:
                frames = await asyncio.wait_for(sock.recv_multipart(), args.timeout)
            except asyncio.TimeoutError:
                print("timeout", flush=True)
                break
            index = int(frames[1][:8]) if len(frames) > 1 else -1
            line = f"{index} {frames[0].decode()} {digest(frames)} {len(frames[-1])}"
            print(line, flush=True)
        sock.close()
        ctx.term()

    asyncio.run(run())


def capture(args: argparse.Namespace) -> None:
    """Print the TTL, IP length and PGM type of each PGM packet received on
    a raw socket (protocol 113) until `--count` or `--timeout`."""
    import socket

    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, 113)
    group, iface = args.endpoint.split(",")
    mreq = socket.inet_aton(group) + socket.inet_aton(iface)
    raw.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    raw.settimeout(args.timeout)
    print("ready", flush=True)
    for _ in range(args.count):
        try:
            data = raw.recv(65535)
        except OSError:
            break
        ihl = (data[0] & 15) * 4
        length = int.from_bytes(data[2:4], "big")
        print(f"ttl={data[8]} len={length} type={data[ihl + 4]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["pub", "sub", "capture"])
    parser.add_argument("endpoint")
    parser.add_argument("--purezmq", action="store_true")
    parser.add_argument("--asyncio", action="store_true", help="purezmq.asyncio (sub only)")
    parser.add_argument("--x", action="store_true", help="XPUB or XSUB")
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--topics", default="A")
    parser.add_argument("--subscribe", default="")
    parser.add_argument("--rate", type=int, default=10000)
    parser.add_argument("--recovery", type=int, default=10000)
    parser.add_argument("--interval", type=float, default=0.0)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--linger", type=float, default=3.0)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--hops", type=int, default=0, help="MULTICAST_HOPS (pub)")
    parser.add_argument("--maxtpdu", type=int, default=0, help="MULTICAST_MAXTPDU (pub)")
    parser.add_argument("--progress", type=int, default=0, help="a line every N messages sent")
    args = parser.parse_args()
    if args.role == "capture":
        capture(args)
    elif args.role == "pub":
        pub(args)
    elif args.asyncio:
        asyncio_sub(args)
    else:
        sub(args)


if __name__ == "__main__":
    sys.exit(main())
