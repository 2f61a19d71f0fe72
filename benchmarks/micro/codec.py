"""Micro-benchmark of the ZMTP codec (not collected by pytest: benchmarks/ is
outside its testpaths).

    .venv/bin/python benchmarks/micro/run.py codec [--quick]
    .venv/bin/python benchmarks/micro/codec.py [--quick]

Measures, best of several runs:
- parse: single-frame messages of 1/64/1024 bytes parsed by ``pull`` out of
  one receive buffer already filled (the cost on the receiving thread), and
  the same including the copy into the buffer; with the cyclic GC disabled
  for reference (every message is a new list, so GC passes are part of the
  real cost);
- encode: ``send_messages`` of a batch + ``data_to_send`` (one join);
- large frames: 1 MiB frames received over a socketpair with
  ``get_buffer``/``recv_into``/``buffer_updated``/``pull``.
"""

from __future__ import annotations

import gc
import socket
import statistics
import sys
import threading
import time
from collections.abc import Callable

from purezmq._zmtp import NullMechanism, ZMTPConnection

RING = 256 * 1024


def connected_pair() -> tuple[ZMTPConnection, ZMTPConnection]:
    """Two connections after the NULL handshake (PUSH -> PULL)."""
    push = ZMTPConnection(socket_type="PUSH", mechanism=NullMechanism(), now=0.0)
    pull = ZMTPConnection(socket_type="PULL", mechanism=NullMechanism(), now=0.0)
    for _ in range(4):
        for src, dst in ((push, pull), (pull, push)):
            data = b"".join(bytes(c) for c in src.data_to_send())
            if data:
                dst.receive_data(data, 0.0)
    assert push.handshake_done and pull.handshake_done
    return push, pull


def best(fn: Callable[[], float], repeat: int) -> float:
    return min(fn() for _ in range(repeat))


def bench_parse(size: int, rounds: int, *, gc_enabled: bool = True) -> tuple[float, float, float]:
    """(best, median) msgs/s of pull() parsing one full receive buffer, and
    best msgs/s including the copy into the buffer."""
    push, pull = connected_pair()
    count = max(1, (RING - 64) // (size + (2 if size < 256 else 9)))
    push.send_messages([b"a" * size] for _ in range(count))
    wire = b"".join(bytes(c) for c in push.data_to_send())
    parse_times: list[float] = []
    total_times: list[float] = []
    gc.collect()
    if not gc_enabled:
        gc.disable()
    try:
        for _ in range(rounds):
            start = time.perf_counter()
            view = pull.get_buffer(len(wire))
            view[: len(wire)] = wire
            pull.buffer_updated(len(wire), 0.0)
            mid = time.perf_counter()
            msgs = pull.pull(count + 1)
            stop = time.perf_counter()
            assert len(msgs) == count
            del msgs
            parse_times.append(stop - mid)
            total_times.append(stop - start)
    finally:
        gc.enable()
    return (
        count / min(parse_times),
        count / statistics.median(parse_times),
        count / min(total_times),
    )


def bench_encode(size: int, repeat: int) -> float:
    push, _ = connected_pair()
    count = 4096
    batch = [[b"a" * size] for _ in range(count)]

    def run() -> float:
        start = time.perf_counter()
        for _ in range(20):
            push.send_messages(batch)
            push.data_to_send()
        return (time.perf_counter() - start) / 20

    return count / best(run, repeat)


def bench_large(frame_size: int, frames: int, repeat: int) -> float:
    """MB/s receiving big frames through a real socketpair."""
    push, pull = connected_pair()
    payload = b"x" * frame_size
    push.send_messages([payload] for _ in range(frames))
    wire_chunks = push.data_to_send()

    def run() -> float:
        left, right = socket.socketpair()

        def send_all() -> None:
            for chunk in wire_chunks:
                left.sendall(chunk)

        sender = threading.Thread(target=send_all)
        start = time.perf_counter()
        sender.start()
        got = 0
        while got < frames:
            view = pull.get_buffer()
            n = right.recv_into(view)
            pull.buffer_updated(n, 0.0)
            for msg in pull.pull(16):
                assert len(msg[0]) == frame_size
                got += 1
        elapsed = time.perf_counter() - start
        sender.join()
        left.close()
        right.close()
        return elapsed

    return frames * frame_size / best(run, repeat) / 1e6


def bench_raw_bytearray(frame_size: int, frames: int, repeat: int) -> float:
    """Baseline without ZMTP: recv_into a bytearray, then bytes() (one copy)."""
    payload = b"x" * frame_size

    def run() -> float:
        left, right = socket.socketpair()

        def send_all() -> None:
            for _ in range(frames):
                left.sendall(payload)

        sender = threading.Thread(target=send_all)
        start = time.perf_counter()
        sender.start()
        for _ in range(frames):
            storage = bytearray(frame_size)
            view = memoryview(storage)
            got = 0
            while got < frame_size:
                got += right.recv_into(view[got:])
            view.release()
            assert len(bytes(storage)) == frame_size
        elapsed = time.perf_counter() - start
        sender.join()
        left.close()
        right.close()
        return elapsed

    return frames * frame_size / best(run, repeat) / 1e6


def main(argv: list[str] | None = None) -> None:
    quick = "--quick" in (sys.argv[1:] if argv is None else argv)
    repeat = 3 if quick else 7
    print(f"CPython {sys.version.split()[0]}, best of {repeat}")
    rounds = 20 if quick else 60
    print("parse: one 256 KiB receive buffer per pull(); M msg/s")
    for size in (1, 64, 1024):
        top, median, with_copy = bench_parse(size, rounds)
        nogc = bench_parse(size, rounds, gc_enabled=False)[0]
        print(
            f"parse  {size:5d} B: best {top / 1e6:5.2f}  median {median / 1e6:5.2f}  "
            f"incl. recv copy {with_copy / 1e6:5.2f}  (gc disabled: {nogc / 1e6:5.2f})"
        )
    for size in (1, 64, 1024):
        print(f"encode {size:5d} B: {bench_encode(size, repeat) / 1e6:6.2f} M msg/s")
    frames = 64 if quick else 256
    mbps = bench_large(1 << 20, frames, repeat)
    raw = bench_raw_bytearray(1 << 20, frames, repeat)
    print(f"large frames 1 MiB over a socketpair: {mbps:7.0f} MB/s through ZMTPConnection")
    print(f"  baseline, raw recv_into bytearray + bytes(): {raw:7.0f} MB/s (no ZMTP at all)")


if __name__ == "__main__":
    main()
