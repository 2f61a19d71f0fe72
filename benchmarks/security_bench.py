"""Security costs, purezmq beside pyzmq (libzmq) in the same run.

    python benchmarks/security_bench.py            # everything (~1-2 min)
    python benchmarks/security_bench.py --quick    # smaller counts
    python benchmarks/security_bench.py --json out.json

Measures, each in a fresh process per implementation and mechanism:

- **handshake**: a DEALER connects over tcp to a bound ROUTER, does one
  round trip and closes; repeated. The time per connection is connection
  set-up + greeting + security handshake + one round trip, so CURVE minus
  NULL is what the CURVE handshake adds.
- **handshake-cpu** (purezmq only): two sans-I/O CURVE mechanisms pumped in
  memory - the Python and libsodium work of one handshake, without I/O.
- **throughput**: PUSH -> PULL over tcp, messages of 64 B, 1 KiB and 64 KiB,
  NULL beside CURVE.

Needs pyzmq and PyNaCl (``pip install -e '.[test,curve]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------ workers
def _module(impl: str) -> Any:
    if impl == "purezmq":
        import purezmq

        return purezmq
    import zmq

    return zmq


def _curve(server: Any, client: Any, mod: Any) -> None:
    server_public, server_secret = mod.curve_keypair()
    client_public, client_secret = mod.curve_keypair()
    server.curve_server = True
    server.curve_secretkey = server_secret
    client.curve_serverkey = server_public
    client.curve_publickey = client_public
    client.curve_secretkey = client_secret


def work_handshake(impl: str, mechanism: str, count: int) -> dict[str, Any]:
    mod = _module(impl)
    ctx = mod.Context()
    server = ctx.socket(mod.ROUTER)
    server.linger = 0
    keys = None
    if mechanism == "CURVE":
        server_public, server_secret = mod.curve_keypair()
        keys = (server_public, *mod.curve_keypair())
        server.curve_server = True
        server.curve_secretkey = server_secret
    server.bind("tcp://127.0.0.1:*")
    endpoint = server.getsockopt(mod.LAST_ENDPOINT).decode()
    samples = []
    for i in range(count + 5):
        start = time.perf_counter()
        client = ctx.socket(mod.DEALER)
        client.linger = 0
        if keys is not None:
            client.curve_serverkey, client.curve_publickey, client.curve_secretkey = keys
        client.connect(endpoint)
        client.send(b"x")
        rid, _ = server.recv_multipart()
        server.send_multipart([rid, b"y"])
        client.recv()
        client.close()
        if i >= 5:  # warm-up
            samples.append(time.perf_counter() - start)
    server.close()
    ctx.term()
    return {
        "per_connection_ms": statistics.median(samples) * 1e3,
        "mean_ms": statistics.fmean(samples) * 1e3,
        "count": count,
    }


def work_handshake_cpu(count: int) -> dict[str, Any]:
    sys.path.insert(0, os.path.join(HERE, "..", "src"))
    from purezmq._crypto import require
    from purezmq._zmtp import ZMTPConnection
    from purezmq._zmtp.mechanisms.curve import CurveClient, CurveServer

    crypto = require()
    sp, ss = crypto.keypair()
    cp, cs = crypto.keypair()
    spub = crypto.public_key(ss)

    def one() -> None:
        c = ZMTPConnection(
            socket_type="DEALER",
            mechanism=CurveClient(crypto=crypto, public_key=cp, secret_key=cs, server_key=sp),
            now=0.0,
        )
        s = ZMTPConnection(
            socket_type="ROUTER",
            mechanism=CurveServer(crypto=crypto, secret_key=ss, public_key=spub),
            now=0.0,
        )
        for _ in range(6):
            for a, b in ((c, s), (s, c)):
                data = b"".join(bytes(x) for x in a.data_to_send())
                if data:
                    b.receive_data(data, 0.0)
        assert c.handshake_done and s.handshake_done

    for _ in range(20):
        one()
    start, cpu = time.perf_counter(), time.thread_time()
    for _ in range(count):
        one()
    return {
        "per_handshake_us": (time.perf_counter() - start) / count * 1e6,
        "cpu_per_handshake_us": (time.thread_time() - cpu) / count * 1e6,
        "count": count,
    }


def work_throughput(impl: str, mechanism: str, size: int, count: int) -> dict[str, Any]:
    mod = _module(impl)
    ctx = mod.Context()
    pull, push = ctx.socket(mod.PULL), ctx.socket(mod.PUSH)
    for s in (pull, push):
        s.linger = 0
        s.sndhwm = s.rcvhwm = 10000
    if mechanism == "CURVE":
        _curve(pull, push, mod)
    pull.bind("tcp://127.0.0.1:*")
    push.connect(pull.getsockopt(mod.LAST_ENDPOINT).decode())
    msg = b"m" * size
    push.send(msg)
    pull.recv()  # connected and handshaken

    def sender() -> None:
        for _ in range(count):
            push.send(msg)

    import threading

    start = time.perf_counter()
    t = threading.Thread(target=sender)
    t.start()
    for _ in range(count):
        pull.recv(copy=False)
    elapsed = time.perf_counter() - start
    t.join()
    push.close()
    pull.close()
    ctx.term()
    return {
        "msgs_per_s": count / elapsed,
        "mb_per_s": count * size / elapsed / 1e6,
        "count": count,
    }


# ------------------------------------------------------------------ driver
def _run(args: list[str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{out.stderr}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller counts")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is kept")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        kind, *rest = args.worker
        if kind == "handshake":
            result = work_handshake(rest[0], rest[1], int(rest[2]))
        elif kind == "handshake-cpu":
            result = work_handshake_cpu(int(rest[0]))
        else:
            result = work_throughput(rest[0], rest[1], int(rest[2]), int(rest[3]))
        print(json.dumps(result))
        return 0

    scale = 0.2 if args.quick else 1.0
    repeat = 1 if args.quick else args.repeat
    impls = ("pyzmq", "purezmq")
    report: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "handshake": {},
        "throughput": {},
    }

    def best(key: str, cells: list[dict[str, Any]]) -> dict[str, Any]:
        return (min if key.endswith(("ms", "us")) else max)(cells, key=lambda c: c[key])

    print("CURVE/NULL handshake: connect + handshake + 1 round trip over tcp (median ms)")
    hs_count = max(20, int(200 * scale))
    for mech in ("NULL", "CURVE"):
        for impl in impls:
            cells = [_run(["handshake", impl, mech, str(hs_count)]) for _ in range(repeat)]
            cell = best("per_connection_ms", cells)
            report["handshake"][f"{impl}/{mech}"] = cell
            print(f"  {impl:8} {mech:6} {cell['per_connection_ms']:8.3f} ms")
    for impl in impls:
        h = report["handshake"]
        added = h[f"{impl}/CURVE"]["per_connection_ms"] - h[f"{impl}/NULL"]["per_connection_ms"]
        report["handshake"][f"{impl}/curve_added_ms"] = added
        print(f"  {impl:8} CURVE adds {added:.3f} ms per connection")
    ratio = (
        report["handshake"]["purezmq/CURVE"]["per_connection_ms"]
        / report["handshake"]["pyzmq/CURVE"]["per_connection_ms"]
    )
    report["handshake"]["curve_ratio_purezmq_over_pyzmq"] = ratio
    print(f"  purezmq/pyzmq, CURVE connection: {ratio:.2f}x")
    cpu = best(
        "per_handshake_us",
        [_run(["handshake-cpu", str(max(50, int(500 * scale)))]) for _ in range(repeat)],
    )
    report["handshake"]["purezmq/cpu_us"] = cpu["cpu_per_handshake_us"]
    print(
        f"  purezmq sans-I/O CURVE handshake (both sides): {cpu['per_handshake_us']:.0f} us"
        f" wall, {cpu['cpu_per_handshake_us']:.0f} us CPU"
    )

    print("\nPUSH->PULL throughput over tcp (msg/s, best of runs)")
    counts = {64: 200_000, 1024: 100_000, 65536: 5_000}
    for size, count in counts.items():
        n = max(1000, int(count * scale))
        for impl in impls:
            row = {}
            for mech in ("NULL", "CURVE"):
                cells = [_run(["throughput", impl, mech, str(size), str(n)]) for _ in range(repeat)]
                row[mech] = best("msgs_per_s", cells)
            report["throughput"][f"{impl}/{size}"] = row
            null, curve = row["NULL"]["msgs_per_s"], row["CURVE"]["msgs_per_s"]
            print(
                f"  {impl:8} {size:6} B  NULL {null:10,.0f}  CURVE {curve:10,.0f}"
                f"  ({curve / null:.0%} of NULL, {row['CURVE']['mb_per_s']:.1f} MB/s)"
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
