"""What every perf tool shares: loading the implementation, reports, ready
files, the clock shared between processes and this process's memory."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import sys
import time
from types import ModuleType
from typing import Any

#: A clock every process on the machine reads alike (CLOCK_MONOTONIC on
#: Linux), so a publisher's start and its subscribers' ends can be compared.
shared_clock = time.monotonic

#: First byte of the messages of the fan-out and stalled-subscriber tools.
DATA, PROBE, END = 0, 1, 2


def impl(name: str) -> ModuleType:
    """The module measured: ``purezmq`` or ``zmq`` (pyzmq)."""
    return importlib.import_module(name)


def impl_asyncio(name: str) -> ModuleType:
    """Its asyncio flavour: ``purezmq.asyncio`` or ``zmq.asyncio``."""
    return importlib.import_module(name + ".asyncio")


def compiled() -> bool:
    """Whether the purezmq in this process is the compiled build.

    Every report carries it, so a benchmark harness can refuse to call a
    pure-Python process "compiled" (a failed compile installs the pure
    build without an error)."""
    import purezmq

    return purezmq.COMPILED


def report(args: argparse.Namespace, text: list[str], data: dict[str, Any]) -> dict[str, Any]:
    """Print libzmq's text lines, or one JSON object with --json."""
    data = {"tool": args.tool, "impl": args.impl, "purezmq_compiled": compiled(), **data}
    if getattr(args, "use_async", False):
        data["async"] = True
        data["loop"] = args.loop
    if args.json:
        print(json.dumps(data), flush=True)
    else:
        print("\n".join(text), flush=True)
    return data


def touch(path: str | None, *lines: str) -> None:
    """Tell a harness we are bound (and where): it starts the other side then.

    Written to a temporary name and renamed, so a reader never sees half."""
    if not path:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def hold(path: str | None, timeout: float) -> None:
    """Wait until `path` exists (the receiver's done file), at most `timeout` s.

    A sender that closes at once can lose messages still in flight: libzmq
    4.3.5 over ipc drops what its throttled receiver had not read yet when
    the sending peer goes away (libzmq issue #4660). Holding the connection
    until the receiver counted everything keeps the run from hanging; the
    timed part (first to last message at the receiver) is not affected."""
    if not path:
        return
    deadline = time.monotonic() + timeout
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.005)


def endpoint_of(zmq: ModuleType, sock: Any) -> str:
    last = sock.get(zmq.LAST_ENDPOINT)
    return last.decode() if isinstance(last, bytes) else str(last)


def rss_kib() -> int:
    """Resident set size of this process now, in KiB (peak RSS off Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def cpu_seconds() -> float:
    """CPU time (user + system) used by this process so far, all threads."""
    t = os.times()
    return t.user + t.system


def raise_fd_limit(wanted: int) -> None:
    """Lift the soft limit on open files towards `wanted` (up to the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def run_loop(coro: Any, loop: str) -> Any:
    """asyncio.run on the standard loop or on uvloop."""
    import asyncio

    if loop == "uvloop":
        import uvloop  # optional: only when asked for

        return uvloop.run(coro)
    return asyncio.run(coro)


def deadline_passed(deadline: float) -> bool:
    return shared_clock() > deadline
