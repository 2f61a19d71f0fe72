"""The benchmark harness (benchmarks/): what it computes and renders.

The measurements themselves are not tested (no timing assertion anywhere);
these tests check the logic that turns attempts into the page: three
columns (pure, compiled, pyzmq) with the targets judged on the compiled
build, a refused compiled build shown as not measured, results from before
the compiled build still rendering with their two columns, the guard that
keeps a pure-Python process out of the "compiled" column, and the
callgrind arithmetic of profile_cell.py.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from harness import builds, callgrind, procs, report, summary  # noqa: E402

OLD_RESULTS = BENCH / "results" / "20261121-134301.json"


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------ synthetic results
def _machine() -> dict[str, Any]:
    return json.loads(OLD_RESULTS.read_text())["machine"]


def _attempt(key: str, impl: str, rep: int, result: dict[str, Any]) -> dict[str, Any]:
    return {
        "key": key,
        "impl": impl,
        "rep": rep,
        "attempt": 0,
        "ok": True,
        "result": result,
        "commands": [],
        "purezmq_compiled": {"local": impl == builds.COMPILED},
        "wall_s": 1.0,
        "own_cpu_s": 1.0,
        "background": 0.0,
        "steal": 0.0,
        "waited_s": 0.0,
        "busy_before": 0.0,
        "loadavg": [0.5, 0.5, 0.5],
    }


def _scenario(group: str, size: int) -> dict[str, Any]:
    key = f"{group}/sync/tcp/{size}"
    return {"key": key, "group": group, "mode": "sync", "transport": "tcp", "size": size,
            "count": 1000, "subs": 0}  # fmt: skip


THR, LAT = _scenario("thr", 64), _scenario("lat", 1)
#: msg/s and µs per implementation: compiled meets both targets, pure misses both.
RATES = {builds.PURE: 500_000.0, builds.COMPILED: 1_200_000.0, builds.PYZMQ: 1_000_000.0}
LATENCY = {builds.PURE: 120.0, builds.COMPILED: 80.0, builds.PYZMQ: 90.0}


def _doc(impls: list[str], refused: dict[str, str] | None = None) -> dict[str, Any]:
    refused = refused or {}
    attempts = []
    for rep in range(3):
        for impl in impls:
            if impl in refused:
                continue
            wobble = 1.0 + 0.01 * rep
            attempts.append(_attempt(THR["key"], impl, rep, {"msg_per_s": RATES[impl] * wobble}))
            attempts.append(
                _attempt(
                    LAT["key"],
                    impl,
                    rep,
                    {"latency_us": LATENCY[impl] * wobble, "p50_us": 1.0, "p99_us": 2.0},
                )
            )
    probe = {"compiled": False, "compiled_modules": [], "source_sha256": "abc", "purezmq": "0"}
    info = {
        i: {
            "python": f"/venv-{i}/bin/python",
            "probe": {**probe, "compiled": i == builds.COMPILED and i not in refused},
            "refused": refused.get(i),
        }
        for i in impls
    }
    return {
        "schema": 2,
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:10:00+00:00",
        "argv": [],
        "config": {"quick": False, "reps": 3, "only": None, "impls": impls, "rerun_above": 0.1},
        "machine": _machine(),
        "source": "working tree",
        "builds": info,
        "warnings": [],
        "scenarios": [THR, LAT],
        "attempts": attempts,
    }


def _render(docs: list[dict[str, Any]], tmp_path: Path, existing: str = "") -> str:
    cells = summary.cells(docs)
    sections = tmp_path / "sections"
    sections.mkdir(exist_ok=True)
    return report.render(docs, cells, {}, ["results.json"], existing, sections)


def _row(page: str, starts: str) -> list[str]:
    line = next(ln for ln in page.splitlines() if ln.startswith(starts))
    return [c.strip() for c in line.strip("|").split("|")]


# ------------------------------------------------------------ three columns
THREE = [builds.PURE, builds.COMPILED, builds.PYZMQ]


def test_targets_are_judged_on_the_compiled_build() -> None:
    cells = {c.key: c for c in summary.cells([_doc(THREE)])}
    thr, lat = cells[THR["key"]], cells[LAT["key"]]
    assert thr.judged == builds.COMPILED
    assert thr.ratio == pytest.approx(1.2)
    assert thr.ratio_of(builds.PURE) == pytest.approx(0.5)
    assert thr.met is True
    assert lat.ratio == pytest.approx(80 / 90)
    assert lat.met is True
    assert lat.target is not None and lat.target.met(lat.ratio_of(builds.PURE)) is False


def test_page_has_three_columns_and_both_ratios(tmp_path: Path) -> None:
    page = _render([_doc(THREE)], tmp_path)
    assert (
        "| transport | size | messages | pure msg/s | compiled msg/s | pyzmq msg/s "
        "| compiled / pyzmq | pure / pyzmq | target | met? |" in page
    )
    row = _row(page, "| tcp | 64 B |")
    assert row[3].startswith("505.0k")  # medians of 1.00, 1.01, 1.02 x the rate
    assert row[4].startswith("1.21M")
    assert row[5].startswith("1.01M")
    assert row[6:10] == ["1.20x", "0.50x", "≥ 1.0x", "met"]
    lat = _row(page, "| tcp | 1 B |")
    assert lat[6:10] == ["0.89x", "1.33x", "≤ 1.0x", "met"]
    assert "**2 of 2 target cells met (compiled build).**" in page
    # The pure build's standing beside it: both of its cells missed.
    target = _row(page, "| sync throughput, tcp and ipc, below 1 MiB |")
    assert target[3:] == [
        "**all met**",
        "1.20x (`thr/sync/tcp/64`)",
        "0 of 1",
        "0.50x (`thr/sync/tcp/64`)",
    ]
    builds_row = _row(page, "| **compiled** |")
    assert builds_row[3] == "True" and builds_row[5] == "measured"


def test_a_refused_compiled_build_is_shown_as_not_measured(tmp_path: Path) -> None:
    why = "purezmq.COMPILED is False in /venv-compiled/bin/python"
    page = _render([_doc(THREE, refused={builds.COMPILED: why})], tmp_path)
    assert f"**The compiled build was not measured in this run**: {why}" in page
    row = _row(page, "| tcp | 64 B |")
    assert row[4] == "-"  # the compiled column stays, empty
    assert row[6:10] == ["-", "0.50x", "≥ 1.0x", ""]  # no verdict without the judged build
    assert _row(page, "| **compiled** |")[5] == "**not measured**"
    assert f"- **compiled not measured**: {why}" in page


def test_results_before_the_compiled_build_render_with_two_columns(tmp_path: Path) -> None:
    docs = [json.loads(OLD_RESULTS.read_text())]
    page = _render(docs, tmp_path)
    assert "| purezmq msg/s | pyzmq msg/s | purezmq / pyzmq |" in page
    assert "compiled msg/s" not in page and "compiled / pyzmq" not in page
    # That file's verdict under today's targets (it gave 14 of 36 when it was
    # written; issue 14 added ipc latency and fan-out to 10 subscribers).
    assert "**15 of 42 target cells met (purezmq build).**" in page
    assert "## Builds" not in page


def test_design_log_and_sections_survive(tmp_path: Path) -> None:
    existing = (
        "# old\n\n## Targets\n\nstale\n\n## Design log: what each change bought\n\n"
        "| change | cells |\n|---|---|\n| `abc` faster | all |\n"
    )
    (tmp_path / "sections").mkdir()
    (tmp_path / "sections" / "10-x.md").write_text("## Where the time goes\n\nprofile here\n")
    page = _render([_doc(THREE)], tmp_path, existing)
    assert "| `abc` faster | all |" in page
    assert "## Where the time goes\n\nprofile here" in page
    assert "stale" not in page


def test_merging_an_old_file_with_a_new_one_keeps_every_column(tmp_path: Path) -> None:
    old = json.loads(OLD_RESULTS.read_text())
    new = _doc(THREE)
    assert summary.implementations([old, new]) == [
        builds.PURE,
        builds.COMPILED,
        builds.LEGACY,
        builds.PYZMQ,
    ]
    cells = {c.key: c for c in summary.cells([old, new])}
    # The new file replaces its own scenarios; the old file's others stay.
    assert builds.COMPILED in cells[THR["key"]].sides
    assert builds.LEGACY in cells["thr/sync/ipc/64"].sides


def test_a_partial_run_over_a_full_one_keeps_every_builds_row(tmp_path: Path) -> None:
    """Two columns measured again (compiled, pyzmq) over a three-column run:
    the Builds table shows the later file's builds and still the pure one."""
    full = _doc(THREE)
    partial = _doc([builds.COMPILED, builds.PYZMQ])
    partial["builds"][builds.COMPILED]["python"] = "/venv-later/bin/python"
    page = _render([full, partial], tmp_path)
    assert _row(page, "| **pure**")[1] == "`/venv-pure/bin/python`"
    assert _row(page, "| **compiled**")[1] == "`/venv-later/bin/python`"


def test_charts_draw_three_series(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from harness import charts

    drawn = charts.draw(summary.cells([_doc(THREE)]), tmp_path)
    assert drawn.keys() == {"throughput", "latency"}
    assert (tmp_path / "throughput_by_size.png").stat().st_size > 0


# ------------------------------------------------------------ the compiled guard
def test_refusal_names_what_is_wrong() -> None:
    pure_probe = {"python": "/p", "compiled": False, "pyzmq": "27.3.0"}
    assert builds.refusal(builds.PURE, pure_probe) is None
    assert builds.refusal(builds.PYZMQ, pure_probe) is None
    why = builds.refusal(builds.COMPILED, pure_probe)
    assert why and "COMPILED is False" in why
    assert builds.refusal(builds.PURE, {**pure_probe, "compiled": True})
    assert builds.refusal(builds.PYZMQ, {**pure_probe, "pyzmq": None})
    assert builds.refusal(builds.PURE, {"python": "/p", "error": "boom"}) == "boom"


def test_an_attempt_is_refused_when_a_process_disagrees_with_its_column() -> None:
    assert builds.attempt_refusal(builds.COMPILED, {"local": True, "remote": True}) is None
    why = builds.attempt_refusal(builds.COMPILED, {"local": True, "remote": False})
    assert why and "remote: False" in why
    # Older perf tools did not report the flag: never "compiled", fine as pure.
    assert builds.attempt_refusal(builds.COMPILED, {"local": None})
    assert builds.attempt_refusal(builds.PURE, {"local": None}) is None
    assert builds.attempt_refusal(builds.PYZMQ, {"local": True}) is None


def test_the_runner_records_a_refused_attempt_as_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    run = _load("bench_run_for_test", BENCH / "run.py")
    args = run.parse_args(["--quick", "--max-wait", "0"])
    scn = next(s for s in run.matrix.build(quick=True) if s.key == THR["key"])

    def pure_process(*_a: Any, **_k: Any) -> procs.Outcome:
        return procs.Outcome({"msg_per_s": 1.0}, ["cmd"], {"local": False, "remote": False})

    monkeypatch.setattr(run.procs, "run", pure_process)
    rec = run._attempt(scn, builds.Build(builds.COMPILED, "/venv/bin/python"), 0, 0, args)
    assert rec["ok"] is False
    assert rec["error"].startswith("refused")
    assert "result" not in rec  # nothing a summary could file under "compiled"
    rec = run._attempt(scn, builds.Build(builds.PURE, "/venv/bin/python"), 0, 0, args)
    assert rec["ok"] is True and rec["result"] == {"msg_per_s": 1.0}


def test_a_subset_does_not_render_the_page_unless_asked_to() -> None:
    """--only would replace docs/benchmarks.md with a few cells: it implies
    --no-render, unless --doc names the page to render the subset into."""
    run = _load("bench_run_for_args", BENCH / "run.py")
    assert run.parse_args(["--only", "fanout"]).no_render
    assert not run.parse_args(["--only", "fanout", "--doc", "/tmp/subset.md"]).no_render
    assert not run.parse_args([]).no_render


def test_connection_setup_cells_get_more_repetitions() -> None:
    """Three repetitions of a set-up cell gave 1.99x and 2.70x at one commit:
    it gets at least MIN_REPS; --quick and the other cells keep --reps."""
    run = _load("bench_run_for_reps", BENCH / "run.py")
    conn, thr = (next(s for s in run.matrix.build() if s.group == g) for g in ("conn", "thr"))
    args = run.parse_args([])
    assert (run.reps_for(conn, args), run.reps_for(thr, args)) == (run.MIN_REPS["conn"], 3)
    assert run.reps_for(conn, run.parse_args(["--reps", "12"])) == 12
    assert run.reps_for(conn, run.parse_args(["--quick"])) == 1
    cfg = {"reps": 3, "min_reps": {"conn": 9}}
    assert report._min_reps(cfg) == "; 9 for conn"
    assert report._min_reps({"reps": 3}) == ""  # results from before MIN_REPS


def test_the_same_source_check() -> None:
    def probes(a: str, b: str) -> dict[str, dict[str, Any]]:
        return {"pure": {"source_sha256": a}, "compiled": {"source_sha256": b}}

    assert builds.same_source(probes("a", "a")) is None
    warn = builds.same_source(probes("a", "b"))
    assert warn and "different .py sources" in warn


# ------------------------------------------------------------ callgrind arithmetic
def _callgrind(tmp_path: Path, name: str, eval_ir: int, sends: int, total: int) -> Path:
    """A callgrind file in the real format: name compression, a call whose
    inclusive cost must not count as the caller's own, a recursion level."""
    text = f"""# callgrind format
version: 1
creator: callgrind-3.19.0
cmd: python -m purezmq.perf remote_thr
positions: line
events: Ir
summary: {total}

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) ???
fn=(1) _PyEval_EvalFrameDefault
0 {eval_ir}
cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
cfn=(2) send
calls={sends} 0
0 999999
fn=(3) _PyEval_EvalFrameDefault'2
0 {eval_ir}
ob=(2)
fn=(2)
0 {sends * 10}

totals: {total}
"""
    path = tmp_path / name
    path.write_text(text)
    return path


def test_callgrind_parse_and_per_message(tmp_path: Path) -> None:
    long = callgrind.parse(_callgrind(tmp_path, "long", 50_000, 30, 1_200_000))
    short = callgrind.parse(_callgrind(tmp_path, "short", 5_000, 3, 1_020_000))
    assert long.total == 1_200_000
    # Both recursion levels are one function; the call's 999999 is not its own.
    assert long.self_ir["_PyEval_EvalFrameDefault [libpython3.11.so.1.0]"] == 100_000
    assert long.self_ir["send [libc.so.6]"] == 300
    assert long.calls["send [libc.so.6]"] == 30
    pm = callgrind.per_message(long, short, 900)
    assert pm.total == pytest.approx(200.0)
    assert pm.functions[0] == ("_PyEval_EvalFrameDefault [libpython3.11.so.1.0]", 100.0)
    assert pm.syscalls == {"send": 30.0}  # 27 sends over 900 messages, per 1,000
    with pytest.raises(ValueError):
        callgrind.per_message(long, short, 0)


def test_profile_cell_picks_one_cell() -> None:
    profile_cell = _load("bench_profile_cell_for_test", BENCH / "profile_cell.py")
    scn, short = profile_cell.pick("tcp,64", None, None)
    assert (scn.key, scn.count, short) == ("thr/sync/tcp/64", 20_000, 2_000)
    lat, short = profile_cell.pick("lat,tcp,1", 3000, 500)
    assert lat.key == "lat/sync/tcp/1" and lat.count == 3000 and short == 500
    # One warm-up for the long and the short run, so the subtraction removes it.
    assert lat.warmup == 100
    with pytest.raises(ValueError, match="one throughput or latency cell"):
        profile_cell.pick("tcp", None, None)
    conn, short = profile_cell.pick("conn,ipc", None, None)
    assert (conn.key, conn.count, short) == ("conn/ipc", 200, 20)
    assert conn.warmup == 20 and conn.extra["burst"] == 0  # set-ups only, same warm-up
    assert profile_cell.profiled_groups(conn, "pyzmq") == [("client",), ("server",)]
    with pytest.raises(ValueError, match="baseline"):
        profile_cell.pick("tcp,64", 100, 100)


def test_peer_processes_run_the_other_implementation(tmp_path: Path) -> None:
    """profile_cell.py's native peer: the named process gets its own Python
    and --impl, the others the build's."""
    group = procs.Group(tmp_path, 5.0, python="/bin/true", peers={"local": ("/bin/echo", "zmq")})
    args = ["local_thr", "tcp://127.0.0.1:*", "64", "10", "--impl", "purezmq", "--json"]
    try:
        group.spawn("local", args)
        group.spawn("remote", args)
    finally:
        group.kill()
    local, remote = (p.cmd for p in group.procs)
    assert local[0] == "/bin/echo" and local[local.index("--impl") + 1] == "zmq"
    assert remote[0] == "/bin/true" and remote[remote.index("--impl") + 1] == "purezmq"
    assert args[args.index("--impl") + 1] == "purezmq"  # the caller's list is not changed


# ------------------------------------------------------------ connection set-up
def test_connection_setup_cells_are_in_the_matrix() -> None:
    from harness import matrix

    conn = matrix.select(matrix.build(), "conn")
    assert [s.key for s in conn] == ["conn/tcp", "conn/ipc"]
    assert all(s.extra["burst"] > 0 and s.warmup == matrix.CONN_WARMUP for s in conn)
    assert [s.key for s in matrix.select(matrix.build(quick=True), "setup,ipc")] == ["conn/ipc"]
    assert "conn/tcp" not in [s.key for s in matrix.select(matrix.build(), "thr,tcp")]


def test_connection_setup_is_judged_by_time(tmp_path: Path) -> None:
    """Set-up time: lower is better, the target is 1.5x libzmq's time."""
    scn = {"key": "conn/tcp", "group": "conn", "mode": "sync", "transport": "tcp", "size": 1,
           "count": 1000, "subs": 0, "warmup": 50, "burst": 500}  # fmt: skip
    setup_us = {builds.PURE: 900.0, builds.COMPILED: 400.0, builds.PYZMQ: 300.0}
    doc = _doc(THREE)
    doc["scenarios"].append(scn)
    for rep in range(3):
        for impl in THREE:
            result = {"setup_us": setup_us[impl], "p50_us": 1.0, "p99_us": 2.0,
                      "burst_per_s": 1000.0}  # fmt: skip
            doc["attempts"].append(_attempt("conn/tcp", impl, rep, result))
    cell = {c.key: c for c in summary.cells([doc])}["conn/tcp"]
    assert cell.target is summary.T_CONN
    assert cell.ratio == pytest.approx(400 / 300) and cell.met is True
    assert cell.target.met(cell.ratio_of(builds.PURE)) is False
    page = _render([doc], tmp_path)
    assert "## Connection set-up" in page
    row = _row(page, "| tcp | 1,000 |")
    assert [c.split("<br>")[0] for c in row[2:9]] == [
        "900.0", "400.0", "300.0", "1.33x", "3.00x", "≤ 1.5x", "met"
    ]  # fmt: skip
    target = _row(page, "| connection set-up time, tcp and ipc |")
    assert target[1:4] == ["≤ 1.5x", "1", "**all met**"]
