"""Run one scenario for one implementation as separate processes.

The binding side starts first and writes its endpoint(s) to a ready file;
the connecting side(s) start once it exists. Every process runs
``<python> -m purezmq.perf <tool> ... --json`` in its own session, so a
timeout kills the whole group; <python> is the implementation's (each build
of purezmq has its own venv, see builds.py), and a `wrap` can put a command
in front of it (valgrind, for profile_cell.py). stdout/stderr go to files
(no pipe can fill).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .matrix import Scenario

#: Environment of the benchmark processes (None: the runner's).
ENV: dict[str, str] | None = None
#: A prefix for a process's command, given the process's name (or None).
Wrap = Callable[[str], list[str]]


class RunError(Exception):
    """A scenario failed: timeout, a crash, or output that is not a report."""


@dataclass
class Proc:
    name: str
    cmd: list[str]
    popen: subprocess.Popen[bytes]
    out: Path
    err: Path

    def result(self) -> dict[str, Any]:
        text = self.out.read_text(errors="replace").strip().splitlines()
        for line in reversed(text):
            if line.startswith("{"):
                data: dict[str, Any] = json.loads(line)
                return data
        raise RunError(f"{self.name}: no JSON report; stderr: {self.stderr_tail()}")

    def stderr_tail(self, n: int = 800) -> str:
        try:
            return self.err.read_text(errors="replace")[-n:]
        except OSError:
            return ""


@dataclass
class Group:
    """The processes of one attempt, all killed together on failure."""

    workdir: Path
    timeout: float
    python: str = sys.executable
    wrap: Wrap | None = None
    #: Process name -> (python, --impl) for a process that runs another
    #: implementation than the rest (profile_cell.py's native peer).
    peers: dict[str, tuple[str, str]] = field(default_factory=dict)
    procs: list[Proc] = field(default_factory=list)
    deadline: float = 0.0

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.timeout

    def spawn(self, name: str, args: list[str]) -> Proc:
        prefix = self.wrap(name) if self.wrap else []
        python = self.python
        if name in self.peers:
            python, impl = self.peers[name]
            args = list(args)
            args[args.index("--impl") + 1] = impl
        cmd = [*prefix, python, "-m", "purezmq.perf", *args]
        out, err = self.workdir / f"{name}.out", self.workdir / f"{name}.err"
        with open(out, "wb") as fo, open(err, "wb") as fe:
            popen = subprocess.Popen(cmd, stdout=fo, stderr=fe, start_new_session=True, env=ENV)
        proc = Proc(name, cmd, popen, out, err)
        self.procs.append(proc)
        return proc

    def wait_ready(self, path: Path, owner: Proc, lines: int = 1) -> list[str]:
        while time.monotonic() < self.deadline:
            if path.exists():
                got = path.read_text().splitlines()
                if len(got) >= lines:
                    return got
            if owner.popen.poll() is not None:
                raise RunError(f"{owner.name} exited before it was ready: {owner.stderr_tail()}")
            time.sleep(0.005)
        raise RunError(f"{owner.name} not ready before the timeout")

    def wait_all(self) -> None:
        for p in self.procs:
            left = self.deadline - time.monotonic()
            try:
                code = p.popen.wait(timeout=max(0.01, left))
            except subprocess.TimeoutExpired:
                raise RunError(
                    f"timeout ({self.timeout:.0f} s) in {p.name}\n{self.diagnose()}"
                ) from None
            if code != 0:
                raise RunError(f"{p.name} exited with {code}: {p.stderr_tail()}")

    def diagnose(self) -> str:
        """Each process's state, output tails and (if py-spy is there) stacks."""
        spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        lines = []
        for p in self.procs:
            code = p.popen.poll()
            state = "running" if code is None else f"exited {code}"
            lines.append(f"--- {p.name} ({state}): {' '.join(p.cmd)}")
            out = p.out.read_text(errors="replace")[-300:] if p.out.exists() else ""
            lines += [f"stdout: {out.strip()}", f"stderr: {p.stderr_tail(600).strip()}"]
            if code is None and os.path.exists(spy):
                try:
                    dump = subprocess.run(
                        [spy, "dump", "--pid", str(p.popen.pid)],
                        capture_output=True,
                        text=True,
                        timeout=20,
                        check=False,
                    )
                    lines.append(dump.stdout[-3000:] or dump.stderr[-500:])
                except (OSError, subprocess.SubprocessError) as e:
                    lines.append(f"py-spy failed: {e}")
        return "\n".join(lines)

    def kill(self) -> None:
        for p in self.procs:
            if p.popen.poll() is None:
                try:
                    os.killpg(p.popen.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for p in self.procs:
            try:
                p.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def commands(self) -> list[str]:
        return [" ".join(p.cmd) for p in self.procs]

    def reports(self) -> dict[str, dict[str, Any]]:
        """The JSON report of each process that printed one (the senders of
        the throughput and latency tools print none; they run from the same
        Python as the process that does)."""
        out = {}
        for p in self.procs:
            try:
                out[p.name] = p.result()
            except (RunError, ValueError):
                continue
        return out


def _endpoint(scn: Scenario, workdir: Path) -> str:
    if scn.transport == "ipc":
        return f"ipc://{workdir}/ep.ipc"
    return "tcp://127.0.0.1:*"


def _common(impl: str, timeout: float) -> list[str]:
    return ["--impl", impl, "--json", "--timeout", str(int(timeout))]


@dataclass
class Outcome:
    """A successful attempt: the headline report, the commands run and what
    every process said its purezmq build was (``purezmq_compiled``)."""

    result: dict[str, Any]
    commands: list[str]
    compiled: dict[str, Any]


def run(
    scn: Scenario,
    impl: str,
    timeout: float,
    python: str = sys.executable,
    wrap: Wrap | None = None,
    workdir: Path | None = None,
    peers: dict[str, tuple[str, str]] | None = None,
) -> Outcome:
    """Run `scn` with the perf tools' `impl` (purezmq or zmq) on `python`.

    `workdir` keeps the processes' files (a fresh temporary directory,
    removed afterwards, when None); `peers` runs the named processes
    (local, remote) with another (python, impl). Raises RunError."""
    with tempfile.TemporaryDirectory(prefix="purezmq-bench-") as tmp:
        where = workdir or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        group = Group(where, timeout, python=python, wrap=wrap, peers=dict(peers or {}))
        try:
            result = _dispatch(scn, impl, group)
            flags = {
                n: r.get("purezmq_compiled")
                for n, r in group.reports().items()
                if n not in group.peers
            }
            return Outcome(result, group.commands(), flags)
        finally:
            group.kill()


def _dispatch(scn: Scenario, impl: str, g: Group) -> dict[str, Any]:
    common = _common(impl, g.timeout)
    ready, done = g.workdir / "ready", g.workdir / "done"
    if scn.group in ("thr", "lat"):
        flags = common + (["--async"] if scn.mode == "async" else [])
        if scn.group == "lat":
            flags += ["--warmup", str(scn.warmup)]
        sc = [str(scn.size), str(scn.count)]
        if scn.transport == "inproc":
            p = g.spawn("inproc", [f"inproc_{scn.group}", *sc, *flags])
            g.wait_all()
            return p.result()
        local = g.spawn(
            "local",
            [
                f"local_{scn.group}",
                _endpoint(scn, g.workdir),
                *sc,
                *flags,
                "--ready-file",
                str(ready),
                *(["--done-file", str(done)] if scn.group == "thr" else []),
            ],
        )
        ep = g.wait_ready(ready, local)[0]
        hold = ["--hold-file", str(done)] if scn.group == "thr" else []
        remote = g.spawn("remote", [f"remote_{scn.group}", ep, *sc, *flags, *hold])
        g.wait_all()
        return (local if scn.group == "thr" else remote).result()
    if scn.group == "fanout":
        return _fanout(scn, g, common, ready)
    if scn.group == "conn":
        server = g.spawn(
            "server",
            ["conn_server", _endpoint(scn, g.workdir), *common, "--ready-file", str(ready)],
        )
        ep = g.wait_ready(ready, server)[0]
        burst = ["--burst", str(scn.extra.get("burst", 0)), "--warmup", str(scn.warmup)]
        client = g.spawn(
            "client", ["conn_client", ep, str(scn.size), str(scn.count), *common, *burst]
        )
        g.wait_all()
        return client.result()
    if scn.group == "mem_idle":
        n = str(scn.extra["connections"])
        router = g.spawn(
            "router", ["idle_router", "tcp://127.0.0.1:*", n, *common, "--ready-file", str(ready)]
        )
        ep = g.wait_ready(ready, router)[0]
        dealers = g.spawn("dealers", ["idle_dealers", ep, n, *common])
        g.wait_all()
        return {"router": router.result(), "dealers": dealers.result()}
    if scn.group == "mem_stall":
        pub = g.spawn(
            "pub",
            [
                "stall_pub",
                "tcp://127.0.0.1:*",
                str(scn.size),
                str(scn.count),
                *common,
                "--ready-file",
                str(ready),
            ],
        )
        ep, ctl = g.wait_ready(ready, pub, lines=2)[:2]
        g.spawn("sub", ["stall_sub", ep, "--control", ctl, *common])
        g.wait_all()
        return pub.result()
    raise RunError(f"unknown scenario group {scn.group}")


def split_subs(subs: int) -> list[int]:
    """K subscribers over ceil(K / SUBS_PER_PROC) processes, as even as can be."""
    from .matrix import SUBS_PER_PROC

    procs = max(1, math.ceil(subs / SUBS_PER_PROC))
    base, extra = divmod(subs, procs)
    return [base + (1 if i < extra else 0) for i in range(procs)]


def _fanout(scn: Scenario, g: Group, common: list[str], ready: Path) -> dict[str, Any]:
    shares = split_subs(scn.subs)
    sc = [str(scn.size), str(scn.count)]
    pub = g.spawn(
        "pub",
        [
            "fanout_pub",
            "tcp://127.0.0.1:*",
            *sc,
            *common,
            "--sub-procs",
            str(len(shares)),
            "--ready-file",
            str(ready),
        ],
    )
    ep, ctl = g.wait_ready(ready, pub, lines=2)[:2]
    for i, k in enumerate(shares):
        g.spawn(f"sub{i}", ["fanout_sub", ep, *sc, *common, "--sockets", str(k), "--control", ctl])
    g.wait_all()
    return pub.result()
