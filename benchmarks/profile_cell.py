"""Instructions per message of one benchmark cell, under valgrind's callgrind.

    python benchmarks/profile_cell.py tcp,64              # PUSH/PULL over tcp, 64 B
    python benchmarks/profile_cell.py lat,tcp,1           # REQ/REP round trips, 1 B
    python benchmarks/profile_cell.py conn,ipc            # connection set-ups (DEALER to ROUTER)
    python benchmarks/profile_cell.py ipc,1k --count 20000 --baseline 2000 --top 20
    python benchmarks/profile_cell.py tcp,64 --impls compiled,zmq --keep /tmp/cg

Timings on a shared 2-core VM move by 20-40 % from run to run; instruction
counts barely move, so they show whether a change made a missed cell
cheaper, and where its instructions go, without machine noise. For each
implementation (pure, compiled, pyzmq, from the same Pythons as
benchmarks/run.py) the cell runs twice with the harness's own processes,
each under ``valgrind --tool=callgrind``: a long run of --count messages and
a short one of --baseline. Instructions per message = (Ir of the long run -
Ir of the short run) / (count - baseline), per process (sender, receiver,
or the one inproc process) and in total, so start-up, imports and the
handshake cancel out; the top functions come from the same subtraction of
their self cost. Latency cells count round trips instead of messages, with
equal warm-ups; connection set-up cells count set-ups (socket, connect, one
round trip, close; no burst), the client and the server profiled in turn.

What it does not see: work in the kernel (system calls count as the few
user-space instructions around them: count those with ``strace -c``), time
spent waiting, and the effect of two threads on one interpreter lock
(valgrind runs one thread at a time). It is a cost model of the CPU work
per message, to set beside the measured rates, not a replacement for them.
Under callgrind a run is about 50 times slower: the defaults take a few
minutes for all three implementations on this machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from harness import builds, callgrind, matrix, procs

HERE = Path(__file__).resolve().parent
DEFAULT_COUNT = {"thr": 20_000, "lat": 2_000, "conn": 200}
#: The groups this tool profiles (the memory and fan-out cells are not per message).
GROUPS = ("thr", "lat", "conn")
#: Tokens naming one of GROUPS (run.py's --only aliases).
_GROUP_TOKENS = ("thr", "throughput", "lat", "latency", "conn", "connect", "setup")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="benchmarks/profile_cell.py",
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="CELL: run.py's --only tokens naming one thr, lat or conn cell (transport and "
        "size; thr and sync unless given), e.g. tcp,64  ipc,1k  lat,tcp,1  inproc,64k,async  "
        "conn,ipc",
    )
    p.add_argument("cell", help="e.g. tcp,64 (see below)")
    p.add_argument("--count", type=int, help="messages (round trips) of the long run")
    p.add_argument("--baseline", type=int, help="of the short run (default count / 10)")
    p.add_argument("--top", type=int, default=15, help="functions to list per process")
    p.add_argument(
        "--peer",
        choices=("pyzmq", "same"),
        default="pyzmq",
        help="pyzmq (default): profile one side at a time, the other on pyzmq at native "
        "speed, so the profiled side is the bottleneck as in a real run and its batching "
        "is steady; same: both sides of one implementation under callgrind at once",
    )
    builds.add_arguments(p, "pure,compiled,zmq")
    p.add_argument("--keep", type=Path, help="keep the callgrind files in this directory")
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    p.add_argument("--timeout", type=float, default=900.0, help="per run [s] (900)")
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="pairs of runs per side; the median is reported with the spread (1)",
    )
    p.add_argument("--valgrind", default="valgrind", help="valgrind executable")
    p.add_argument(
        "--valgrind-arg",
        dest="valgrind_args",
        action="append",
        default=None,
        help="a valgrind option (repeatable) instead of the default --fair-sched=yes",
    )
    args = p.parse_args(argv)
    builds.chosen_names(p, args)
    # Round-robin between threads: the interleaving of a process's threads
    # decides how many messages a system call carries, and valgrind's default
    # (whoever takes its lock) made the sender's count vary by 4x between runs.
    if args.valgrind_args is None:
        args.valgrind_args = ["--fair-sched=yes"]
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    try:
        args.scenario = pick(args.cell, args.count, args.baseline)
    except ValueError as e:
        p.error(str(e))
    return args


def pick(cell: str, count: int | None, baseline: int | None) -> tuple[matrix.Scenario, int]:
    """(the long run's scenario, the short run's count) for a CELL string."""
    tokens = [t.strip().lower() for t in cell.split(",") if t.strip()]
    if not any(t in _GROUP_TOKENS for t in tokens):
        tokens.append("thr")
    if not any(t in ("sync", "async") for t in tokens):
        tokens.append("sync")
    found = [s for s in matrix.select(matrix.build(), ",".join(tokens)) if s.group in GROUPS]
    if len(found) != 1:
        keys = ", ".join(s.key for s in found) or "none"
        raise ValueError(
            f"{cell!r} must name one throughput or latency cell, or one connection set-up "
            f"cell (matches: {keys})"
        )
    s = found[0]
    n = count or DEFAULT_COUNT[s.group]
    short = baseline if baseline is not None else max(1, n // 10)
    if not 0 < short < n:
        raise ValueError(f"--baseline must be between 1 and the count - 1 ({n - 1})")
    # Latency and set-up: one warm-up for both runs, so the subtraction removes
    # it; set-ups one after another only (no burst: its work is not per set-up).
    extra: dict[str, Any] = {}
    if s.group == "lat":
        extra = {"warmup": min(100, short)}
    elif s.group == "conn":
        extra = {"warmup": min(20, short), "burst": 0}
    long = matrix.Scenario(s.group, s.mode, s.transport, s.size, n, extra=extra)
    return long, short


def _run_once(
    scn: matrix.Scenario,
    build: builds.Build,
    profiled: tuple[str, ...],
    where: Path,
    args: argparse.Namespace,
) -> dict[str, callgrind.Profile]:
    """One run of `scn`, the `profiled` processes under callgrind and the
    others (with --peer pyzmq) on pyzmq at native speed: name -> profile."""
    shutil.rmtree(where, ignore_errors=True)  # --keep reused: no stale ready file
    where.mkdir(parents=True)

    def wrap(name: str) -> list[str]:
        if name not in profiled:
            return []
        out = f"--callgrind-out-file={where / name}.callgrind"
        return [args.valgrind, "--tool=callgrind", "-q", *args.valgrind_args, out]

    peer = (args.pythons.get(builds.PYZMQ) or builds.default_python(builds.PYZMQ), "zmq")
    sides = ("server", "client") if scn.group == "conn" else ("local", "remote")
    peers = {n: peer for n in sides if n not in profiled}
    got = procs.run(
        scn,
        build.tool_impl,
        args.timeout,
        python=build.python,
        wrap=wrap,
        workdir=where / "run",
        peers=peers,
    )
    refused = builds.attempt_refusal(build.name, got.compiled)
    if refused:
        raise procs.RunError(refused)
    return {n: callgrind.parse(where / f"{n}.callgrind") for n in profiled}


ROLE = {"local": "receiver", "remote": "sender", "inproc": "both ends"}
LAT_ROLE = {"local": "REP (echo)", "remote": "REQ", "inproc": "both ends"}
CONN_ROLE = {"server": "ROUTER (echo)", "client": "DEALER (set-ups)"}


def roles_of(scn: matrix.Scenario) -> dict[str, str]:
    if scn.group == "conn":
        return CONN_ROLE
    return LAT_ROLE if scn.group == "lat" else ROLE


def profiled_groups(scn: matrix.Scenario, peer: str) -> list[tuple[str, ...]]:
    """Which processes each pair of runs profiles: one side at a time against
    a native pyzmq peer, or both sides of one implementation at once."""
    if scn.transport == "inproc":
        return [("inproc",)]
    pair = ("client", "server") if scn.group == "conn" else ("remote", "local")
    if peer == "same":
        return [pair]
    return [(pair[0],), (pair[1],)]


def measure(
    build: builds.Build, scn: matrix.Scenario, short: int, base: Path, args: argparse.Namespace
) -> dict[str, Any]:
    """A build's Ir per message, per process and in total, with top functions
    and system calls; with --repeat, per process the median repetition's."""
    small = matrix.Scenario(scn.group, scn.mode, scn.transport, scn.size, short, extra=scn.extra)
    n = scn.count - short
    roles = roles_of(scn)
    runs: dict[str, list[callgrind.PerMessage]] = {}
    for rep in range(args.repeat):
        for group in profiled_groups(scn, args.peer):
            where = base / build.name / f"{'+'.join(group)}-{rep + 1}"
            long_p = _run_once(scn, build, group, where / "long", args)
            short_p = _run_once(small, build, group, where / "short", args)
            for name in group:
                pm = callgrind.per_message(long_p[name], short_p[name], n, args.top)
                runs.setdefault(name, []).append(pm)
    out: dict[str, Any] = {"processes": {}, "total": 0.0}
    for name, pms in runs.items():
        mid = sorted(pms, key=lambda pm: pm.total)[(len(pms) - 1) // 2]
        out["processes"][name] = {
            "role": roles.get(name, name),
            "ir_per_message": round(mid.total, 1),
            "repetitions": [round(pm.total, 1) for pm in pms],
            "syscalls_per_1000": mid.syscalls,
            "top": [[f, round(ir, 1)] for f, ir in mid.functions],
        }
        out["total"] += mid.total
    out["total"] = round(out["total"], 1)
    return out


def _ir(proc: dict[str, Any]) -> str:
    text = f"{proc['ir_per_message']:,.0f}"
    reps = proc.get("repetitions") or []
    if len(reps) > 1:
        text += f" ({min(reps):,.0f} - {max(reps):,.0f})"
    return text


def _syscalls(proc: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in proc["syscalls_per_1000"].items()) or "-"


def report(scn: matrix.Scenario, short: int, results: dict[str, Any], peer: str) -> list[str]:
    """Markdown: the per-message table, system calls, then top functions."""
    unit = {"lat": "round trip", "conn": "set-up"}.get(scn.group, "message")
    what = {"lat": "REQ/REP", "conn": "DEALER to ROUTER"}.get(scn.group, "PUSH/PULL")
    roles = roles_of(scn)
    how = (
        "each side profiled on its own against a pyzmq peer at native speed"
        if peer == "pyzmq" and scn.transport != "inproc"
        else "all processes under callgrind together"
    )
    lines = [
        f"### Instructions per {unit}: `{scn.key}` ({what}, {scn.transport}, "
        f"{matrix.size_label(scn.size)}, {scn.mode})",
        "",
        f"callgrind, user-space instructions (Ir) per {unit} = (run of {scn.count:,} - run of "
        f"{short:,}) / {scn.count - short:,}; {how}. With repetitions: median (min - max).",
        "",
    ]
    measured = {k: v for k, v in results.items() if "total" in v}
    py = measured.get(builds.PYZMQ, {}).get("total")
    names = sorted({n for v in measured.values() for n in v["processes"]}, reverse=True)
    head = ["implementation", *[roles.get(n, n) for n in names], "total", "total / pyzmq"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for impl in builds.ORDER:
        v = results.get(impl)
        if v is None:
            continue
        if "total" not in v:
            lines.append(f"| {builds.LABEL[impl]} | not measured: {v.get('error', '?')} |")
            continue
        cols = [_ir(v["processes"][n]) if n in v["processes"] else "-" for n in names]
        rel = f"{v['total'] / py:.2f}x" if py else "-"
        lines.append(
            f"| {builds.LABEL[impl]} | " + " | ".join(cols) + f" | {v['total']:,.0f} | {rel} |"
        )
    lines += [
        "",
        f"System calls per 1,000 {unit}s (libc wrappers; `futex wait`: a thread went to "
        "sleep on a lock or condition - the interpreter lock, a queue):",
        "",
        "| implementation | " + " | ".join(roles.get(n, n) for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for impl in builds.ORDER:
        v = measured.get(impl)
        if v:
            cols = [_syscalls(v["processes"][n]) if n in v["processes"] else "-" for n in names]
            lines.append(f"| {builds.LABEL[impl]} | " + " | ".join(cols) + " |")
    for impl in builds.ORDER:
        v = measured.get(impl)
        if not v:
            continue
        for name in names:
            proc = v["processes"].get(name)
            if not proc or not proc["top"]:
                continue
            lines += [
                "",
                f"Top functions, {builds.LABEL[impl]}, {proc['role']} (self Ir per {unit}):",
                "",
                "| Ir | function [object] |",
                "|---|---|",
            ]
            lines += [f"| {ir:,.0f} | `{f}` |" for f, ir in proc["top"]]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not shutil.which(args.valgrind):
        print(f"{args.valgrind} not found: install valgrind", file=sys.stderr)
        return 2
    scn, short = args.scenario
    chosen, info, _ = builds.resolve(args.impl_list, args.pythons, "[profile]")
    results: dict[str, Any] = {n: {"error": i["refused"]} for n, i in info.items() if i["refused"]}
    base = args.keep or Path(tempfile.mkdtemp(prefix="purezmq-callgrind-"))
    try:
        for build in chosen:
            print(
                f"[profile] {build.label}: {scn.key}, {scn.count:,} and {short:,} under callgrind",
                file=sys.stderr,
                flush=True,
            )
            try:
                results[build.name] = measure(build, scn, short, base, args)
            except (procs.RunError, KeyError, subprocess.SubprocessError) as e:
                results[build.name] = {"error": str(e).splitlines()[0][:300]}
                print(f"[profile] {build.label} failed: {e}", file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print("\n".join(report(scn, short, results, args.peer)))
    if args.keep:
        print(f"\ncallgrind files in {args.keep} (callgrind_annotate, kcachegrind)")
    if args.json:
        doc = {"cell": scn.to_json(), "baseline": short, "builds": info, "results": results}
        args.json.write_text(json.dumps(doc, indent=1))
    return 0 if all("total" in v for v in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
