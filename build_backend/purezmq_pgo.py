"""Profile-guided compilation of the mypyc build (``PUREZMQ_PGO=1``, gcc only).

Why. On a round trip the compiled build's cost is not its instruction count
but its code footprint: callgrind's cache simulation of a 64 KiB REQ/REP
round trip over tcp counts about 2,200 instruction-cache misses a side for
purezmq and 17 for libzmq (docs/benchmarks.md, "Missed targets"). mypyc's C
has an error branch after nearly every call, laid out in line with the hot
code; cutting 9% of the instructions did not move the wall time. With a
profile, gcc moves code that never ran in training out of line
(``.cold`` parts) and lays out the rest for the paths that did run: the
misses fell by 14.5%; the one-way latency by about 8% in one hour's
measurement (a build profiled by hand with the same flags) and by nothing
the spread could show in the next (this build), with the user CPU 4.8%
lower (issue 14; the design log of docs/benchmarks.md).

How. setup.py's build_ext calls `build_with_profile`: the extensions are
built instrumented (``-fprofile-generate``, atomic counters: the I/O thread
and the application thread run the same code), `train` runs purezmq's own
perf tools from the fresh build for a few seconds each - REQ/REP, sync and
asyncio, PUSH/PULL, connection set-up, over tcp and ipc, small and large
messages - and the extensions are built again with the profile
(``-fprofile-use``; ``-fprofile-partial-training`` keeps code the training
did not reach optimised as usual rather than for size). The profile
changes how gcc arranges and optimises the code, never what it does: the
same tests pass on both builds.

Off by default: a plain ``pip install`` from source should not run
loopback traffic for half a minute inside the build. The benchmark and test
scripts (scripts/bench.sh, scripts/test.sh) and wheel builds set it.
Without gcc the build has no profile, with a note; a training run or a
profiled compile that fails does the same, unless PUREZMQ_REQUIRE_COMPILED
is set (the development scripts): then the build fails and says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from setuptools import Extension

#: One training run's limit (seconds): a hung pair must not hang the build.
RUN_TIMEOUT = 120.0

#: (bound side, connecting side, size, count, extra options): the perf
#: tools' pairs the profile is taken from.
_PAIRS: tuple[tuple[str, str, int, int, tuple[str, ...]], ...] = (
    ("local_lat", "remote_lat", 64, 3000, ()),
    ("local_lat", "remote_lat", 1024, 3000, ()),
    ("local_lat", "remote_lat", 65536, 2000, ()),
    ("local_lat", "remote_lat", 1048576, 100, ()),
    ("local_lat", "remote_lat", 64, 2000, ("--async",)),
    ("local_lat", "remote_lat", 65536, 1000, ("--async",)),
    ("local_thr", "remote_thr", 64, 200000, ()),
    ("local_thr", "remote_thr", 1024, 100000, ()),
    ("local_thr", "remote_thr", 65536, 5000, ()),
    ("local_thr", "remote_thr", 1024, 50000, ("--async",)),
    ("conn_server", "conn_client", 1, 200, ()),
)


def note(message: str) -> None:
    print(f"purezmq build: {message}", file=sys.stderr)


def is_gcc() -> bool:
    """Is the C compiler gcc? (The flags and the profile format are gcc's.)"""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    try:
        out = subprocess.run(
            [cc.split()[0], "--version"], check=False, capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Free Software Foundation" in out  # clang's says nothing of the FSF


#: An extension's own flags (mypyc's): each pass adds its own to these.
_Flags = dict[str, tuple[list[str], list[str]]]


def _set_flags(
    extensions: list[Extension], base: _Flags, compile_args: list[str], link_args: list[str]
) -> None:
    for ext in extensions:
        cflags, ldflags = base[ext.name]
        ext.extra_compile_args = [*cflags, *compile_args]
        ext.extra_link_args = [*ldflags, *link_args]


def build_with_profile(
    extensions: list[Extension], build: Callable[[], None], build_lib: str
) -> None:
    """Build `extensions` (by calling `build`, which must rebuild every
    object) instrumented, train on the result in `build_lib`, and build
    again with the profile. Without gcc, or if training fails, the last
    build is a plain one."""
    if not is_gcc():
        note("PUREZMQ_PGO: the C compiler is not gcc; building without a profile")
        build()
        return
    base: _Flags = {
        ext.name: (list(ext.extra_compile_args or []), list(ext.extra_link_args or []))
        for ext in extensions
    }
    data = tempfile.mkdtemp(prefix="purezmq-pgo-")
    try:
        gen = f"-fprofile-generate={data}"
        _set_flags(extensions, base, [gen, "-fprofile-update=atomic"], [gen])
        try:
            build()
            failure = train(build_lib)
            if failure is None:
                use = f"-fprofile-use={data}"
                flags = [use, "-fprofile-partial-training", "-Wno-missing-profile"]
                _set_flags(extensions, base, flags, [])
                build()
                return
        except Exception as exc:  # any failure: the plain build below
            failure = f"{type(exc).__name__}: {exc}"
        if os.environ.get("PUREZMQ_REQUIRE_COMPILED", "") not in ("", "0"):
            # The development scripts: a broken profiled build must show.
            raise RuntimeError(f"PUREZMQ_PGO: {failure}")
        note(f"PUREZMQ_PGO: {failure}; building without a profile")
        _set_flags(extensions, base, [], [])
        build()  # a failure here is a plain build's failure: setup.py's to handle
    finally:
        _set_flags(extensions, base, [], [])
        shutil.rmtree(data, ignore_errors=True)


def train(build_lib: str) -> str | None:
    """Run the training pairs on the build in `build_lib`; None when all
    ran, else what went wrong."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (build_lib, env.get("PYTHONPATH")) if p)
    env.pop("PUREZMQ_PURE", None)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="purezmq-pgo-run-") as tmp:
        for i, (bound, connecting, size, count, extra) in enumerate(_PAIRS):
            for transport in ("tcp", "ipc"):
                where = "tcp://127.0.0.1:*" if transport == "tcp" else f"ipc://{tmp}/t{i}.ipc"
                failure = _pair(env, Path(tmp), bound, connecting, where, size, count, extra)
                if failure is not None:
                    return f"training failed at {bound} {transport} {size}: {failure}"
    note(f"PUREZMQ_PGO: trained in {time.monotonic() - started:.0f} s")
    return None


def _perf(*args: str) -> list[str]:
    return [sys.executable, "-m", "purezmq.perf", "--impl", "purezmq", *args]


def _pair(
    env: dict[str, str],
    tmp: Path,
    bound: str,
    connecting: str,
    where: str,
    size: int,
    count: int,
    extra: tuple[str, ...],
) -> str | None:
    ready = tmp / "ready"
    ready.unlink(missing_ok=True)
    sized = () if bound == "conn_server" else (str(size), str(count))  # it serves until told
    server = subprocess.Popen(
        _perf(*extra, "--ready-file", str(ready), "--timeout", "60", bound, where, *sized),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # never read: a pipe could fill and stall it
    )
    try:
        deadline = time.monotonic() + 30
        while not (ready.exists() and ready.read_text().strip()):
            if server.poll() is not None or time.monotonic() > deadline:
                return "the bound side did not start"
            time.sleep(0.02)
        endpoint = ready.read_text().split()[0]
        client = subprocess.run(
            _perf(*extra, "--timeout", "60", connecting, endpoint, str(size), str(count)),
            env=env,
            check=False,
            capture_output=True,
            timeout=RUN_TIMEOUT,
        )
        if client.returncode != 0:
            return f"exit {client.returncode}: {client.stderr.decode(errors='replace')[-300:]}"
        if server.wait(timeout=RUN_TIMEOUT) != 0:
            return f"bound side exit {server.returncode}"
        return None
    except subprocess.TimeoutExpired:
        return "timed out"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
