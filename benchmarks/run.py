"""The side-by-side benchmark: purezmq's two builds against pyzmq (libzmq).

    bash scripts/bench.sh                 # full matrix, 3 repetitions
    bash scripts/bench.sh --quick         # smoke run, 1 repetition, counts / 10
    bash scripts/bench.sh --only tcp,64   # a subset (see --help for the tokens)
    python benchmarks/render.py [results.json ...]   # re-render docs from saved results

Runs every scenario (PUSH/PULL throughput and REQ/REP latency over tcp, ipc
and inproc at 1 B..1 MiB, sync and asyncio; PUB/SUB fan-out to 1/10/100
subscribers; connection set-up over tcp and ipc; memory of 1,000 idle
connections and of a PUB whose subscriber stopped reading) on each
implementation - pure, compiled, pyzmq - each as separate processes, with N
interleaved repetitions (the repetition loop is outermost), background-load
gating and re-runs of disturbed attempts.

Each purezmq build runs with its own venv's Python (scripts/bench.sh makes
./.venv-bench, compiled, and ./.venv-bench-pure; ``--python-<build>``
points elsewhere). A build whose ``purezmq.COMPILED`` contradicts its name
is refused, said so and left out (harness/builds.py). Writes every attempt
to benchmarks/results/<stamp>.json (and latest.json), then renders
docs/benchmarks.md and docs/img/*.png from it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import builds, load, machine, matrix, procs

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="benchmarks/run.py",
        description="purezmq (pure and compiled builds) vs pyzmq, side by side; writes results "
        "JSON and docs/benchmarks.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="--only tokens (comma-separated; alternatives within a kind, all kinds must "
        "match): transports tcp ipc inproc; sizes 1 64 1k 64k 1m (or bytes); groups thr lat "
        "fanout conn (connection set-up, tcp and ipc) mem idle stall; modes sync async; "
        "subscribers subs=1 subs=10 subs=100. "
        "Examples: --only tcp,64   --only lat,async   --only fanout,subs=100   --only mem",
    )
    p.add_argument("--quick", action="store_true", help="1 repetition, counts / 10: a smoke run")
    p.add_argument("--reps", type=int, help="repetitions (default 3; 1 with --quick)")
    p.add_argument("--only", help="run a subset, e.g. tcp,64 (see below)")
    builds.add_arguments(p, "pure,compiled,zmq")
    p.add_argument(
        "--strict-builds",
        action="store_true",
        help="stop (exit 3) if a build is refused, instead of measuring the others",
    )
    p.add_argument("--timeout", type=float, default=None, help="per attempt [s] (120; quick 60)")
    p.add_argument(
        "--quiet-below",
        type=float,
        default=0.15,
        help="start an attempt once the machine is less busy than this (0.15)",
    )
    p.add_argument(
        "--max-wait",
        type=float,
        default=None,
        help="wait at most this long for a quiet machine [s] (20; quick 3)",
    )
    p.add_argument(
        "--rerun-above",
        type=float,
        default=0.10,
        help="re-run an attempt whose background load exceeded this (0.10)",
    )
    p.add_argument(
        "--retries", type=int, default=None, help="re-runs per disturbed attempt (2; quick 0)"
    )
    p.add_argument(
        "--patience",
        type=float,
        default=None,
        help="minutes the whole run may spend waiting for a quiet machine and re-running "
        "disturbed attempts (15; quick 1); once spent, it runs on without either",
    )
    p.add_argument("--out", type=Path, help="results file (default results/<stamp>.json)")
    p.add_argument(
        "--no-render",
        action="store_true",
        help="do not write docs/benchmarks.md (implied by --only without --doc: a subset "
        "would replace the page's cells; merge it with render.py FULL.json SUBSET.json)",
    )
    p.add_argument(
        "--doc",
        type=Path,
        help="render this page instead of docs/benchmarks.md (its charts go to --img)",
    )
    p.add_argument("--img", type=Path, help="chart folder (default docs/img)")
    p.add_argument("--list", action="store_true", help="list the selected scenarios and exit")
    args = p.parse_args(argv)
    args.reps = args.reps or (1 if args.quick else 3)
    args.timeout = args.timeout or (60.0 if args.quick else 120.0)
    args.max_wait = 3.0 if args.max_wait is None and args.quick else (args.max_wait or 20.0)
    args.retries = args.retries if args.retries is not None else (0 if args.quick else 2)
    args.patience = args.patience if args.patience is not None else (1.0 if args.quick else 15.0)
    args.patience_left = args.patience * 60
    # A subset rendered alone would be the whole page: only its own cells.
    args.no_render = args.no_render or bool(args.only and not args.doc)
    builds.chosen_names(p, args)
    return args


def _attempt(
    scn: matrix.Scenario, build: builds.Build, rep: int, n: int, args: argparse.Namespace
) -> dict[str, Any]:
    max_wait = min(args.max_wait, max(0.0, args.patience_left))
    waited, busy_before = load.wait_quiet(args.quiet_below, max_wait)
    args.patience_left -= waited
    meter = load.Meter()
    meter.start()
    record: dict[str, Any] = {"key": scn.key, "impl": build.name, "rep": rep, "attempt": n}
    try:
        got = procs.run(scn, build.tool_impl, args.timeout, python=build.python)
        record.update(commands=got.commands, purezmq_compiled=got.compiled)
        refused = builds.attempt_refusal(build.name, got.compiled)
        if refused:
            record.update(ok=False, error=refused, refused_result=got.result)
        else:
            record.update(ok=True, result=got.result)
    except procs.RunError as e:
        record.update(ok=False, error=str(e)[:20000])
    meter.stop()
    record.update(meter.to_json(), waited_s=round(waited, 2), busy_before=round(busy_before, 3))
    record["loadavg"] = load.loadavg()
    return record


def resolve_builds(
    args: argparse.Namespace,
) -> tuple[list[builds.Build], dict[str, dict[str, Any]], list[str]]:
    """(builds to measure, what each asked-for build is, warnings).

    The working tree may change during a long run (others work in it): the
    builds are installs, not the source tree, so every attempt runs one
    version of the code."""
    return builds.resolve(args.impl_list, args.pythons, "[bench]")


def recheck_builds(doc: dict[str, Any]) -> None:
    """Probe the measured builds again: a venv reinstalled during the run
    (another bench.sh) is recorded rather than silently mixed in."""
    for name, entry in doc["builds"].items():
        if entry["refused"]:
            continue
        now = builds.probe(entry["python"])
        keys = ("compiled", "source_sha256", "compiled_modules", "pyzmq")
        before = {k: entry["probe"].get(k) for k in keys}
        after = {k: now.get(k) for k in keys}
        if before != after:
            entry["changed"] = f"probed at the end: {after} (at the start: {before})"
            print(f"[bench] WARNING: {name} changed during the run", file=sys.stderr)


def _headline(rec: dict[str, Any]) -> str:
    if not rec["ok"]:
        return "FAILED: " + rec["error"].splitlines()[0][:150]
    r = rec["result"]
    if "msg_per_s" in r:
        extra = f" dropped={r['dropped']}" if "dropped" in r else ""
        return f"{r['msg_per_s']:>12,.0f} msg/s{extra}"
    if "setup_us" in r:
        return f"{r['setup_us']:>10.1f} us/set-up, burst {r['burst_per_s']:,.0f} connects/s"
    if "latency_us" in r:
        return f"{r['latency_us']:>10.1f} us (p50 {r['p50_us']:.1f}, p99 {r['p99_us']:.1f})"
    if "router" in r:
        return f"ROUTER +{r['router']['growth_kib']} KiB, DEALERs +{r['dealers']['growth_kib']} KiB"
    if "growth_kib" in r:
        return f"PUB RSS +{r['growth_kib']} KiB, dropped {r['dropped']}"
    return "ok"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # On SIGTERM, unwind (so every benchmark process group is killed).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        scenarios = matrix.select(matrix.build(args.quick), args.only)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    if args.list or not scenarios:
        for s in scenarios:
            print(s.key, s.count)
        if not scenarios:
            print("no scenario matches --only", file=sys.stderr)
        return 0 if scenarios else 2
    chosen, info, warnings = resolve_builds(args)
    refused = [builds.LABEL[n] for n, i in info.items() if i["refused"]]
    if refused and args.strict_builds:
        print(f"[bench] --strict-builds: {', '.join(refused)} refused; stopping", file=sys.stderr)
        return 3
    if not chosen:
        print("[bench] nothing to measure", file=sys.stderr)
        return 3
    RESULTS.mkdir(exist_ok=True)
    code = _run(args, scenarios, chosen, info, warnings, argv)
    if refused:
        print(
            f"[bench] NOTE: {', '.join(refused)} NOT measured (see above and the Builds "
            "section of the page)",
            file=sys.stderr,
        )
    return code


def _run(
    args: argparse.Namespace,
    scenarios: list[matrix.Scenario],
    chosen: list[builds.Build],
    info: dict[str, dict[str, Any]],
    warnings: list[str],
    argv: list[str] | None,
) -> int:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = args.out or RESULTS / f"{stamp}.json"
    doc: dict[str, Any] = {
        "schema": 2,
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "argv": sys.argv[1:] if argv is None else argv,
        "config": {
            "quick": args.quick,
            "reps": args.reps,
            "min_reps": {} if args.quick else dict(MIN_REPS),
            "only": args.only,
            "impls": args.impl_list,
            "timeout_s": args.timeout,
            "quiet_below": args.quiet_below,
            "max_wait_s": args.max_wait,
            "rerun_above": args.rerun_above,
            "retries": args.retries,
            "patience_min": args.patience,
        },
        "machine": machine.describe(),
        # What the builds were installed from (scripts/bench.sh --source REV
        # says; otherwise the working tree as it was when they were installed).
        "source": os.environ.get("PUREZMQ_BENCH_SOURCE") or "working tree",
        "builds": info,
        "warnings": warnings,
        "scenarios": [s.to_json() for s in scenarios],
        "attempts": [],
    }
    total = sum(reps_for(s, args) for s in scenarios) * len(chosen)
    print(
        f"[bench] {len(scenarios)} scenarios x {len(chosen)} impls "
        f"({', '.join(b.label for b in chosen)}) x {args.reps} reps = {total} runs -> {out}",
        flush=True,
    )
    t0 = time.monotonic()
    done = 0
    for rep in range(max(reps_for(s, args) for s in scenarios)):
        # Rotate who goes first: with 3 implementations and 3 repetitions each
        # is first once, so no column always follows another's warm caches.
        k = rep % len(chosen)
        order = chosen[k:] + chosen[:k]
        for scn in scenarios:
            if rep >= reps_for(scn, args):
                continue
            for build in order:
                done += 1
                doc["attempts"] += _repetition(scn, build, rep, args, f"[{done}/{total}", t0)
                doc["patience_left_min"] = round(args.patience_left / 60, 2)
                _save(doc, out, t0)
    recheck_builds(doc)
    doc["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    _save(doc, out, t0)
    shutil.copyfile(out, RESULTS / "latest.json")
    print(f"[bench] done in {(time.monotonic() - t0) / 60:.1f} min; results in {out}")
    if not args.no_render:
        import render

        where = [f"--doc={args.doc}"] if args.doc else []
        where += [f"--img={args.img}"] if args.img else []
        render.main([*where, str(out)])
    return 0


#: Repetitions a group's cells get at least (not with --quick). Connection
#: set-up: on this shared VM a whole process's fastest set-up moves between
#: runs, and three repetitions at one commit gave tcp 1.99x in one run and
#: 2.70x in the next (runs 13 and 14, docs/benchmarks.md); nine gave a median
#: that held. Each repetition of the cell takes a few seconds.
MIN_REPS: dict[str, int] = {"conn": 9}


def reps_for(scn: matrix.Scenario, args: argparse.Namespace) -> int:
    """How many repetitions this scenario gets in this run."""
    return args.reps if args.quick else max(args.reps, MIN_REPS.get(scn.group, 0))


def _repetition(
    scn: matrix.Scenario,
    build: builds.Build,
    rep: int,
    args: argparse.Namespace,
    tag: str,
    t0: float,
) -> list[dict[str, Any]]:
    """One repetition of one cell: an attempt, re-run while disturbed (within the
    retries and the patience left). Failures are reported, not retried away."""
    records = []
    for n in range(args.retries + 1):
        rec = _attempt(scn, build, rep, n, args)
        records.append(rec)
        if n:
            args.patience_left -= rec["wall_s"]
        print(
            f"{tag} {time.monotonic() - t0:6.0f}s] rep {rep + 1} {scn.key:<28} {build.label:<8} "
            f"{_headline(rec)}  bg {rec['background']:.0%}" + (f" (retry {n})" if n else ""),
            flush=True,
        )
        if not rec["ok"] or rec["background"] <= args.rerun_above or args.patience_left <= 0:
            break
    return records


def _save(doc: dict[str, Any], out: Path, t0: float) -> None:
    doc["duration_s"] = round(time.monotonic() - t0, 1)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(out)


if __name__ == "__main__":
    sys.exit(main())
