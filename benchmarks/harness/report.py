"""docs/benchmarks.md from cells: tables, targets, machine, method.

Everything here is generated except the sections it preserves: the
"Design log" section of the existing file (the lead writes there), any
section of the existing file whose title mentions the journal or Spark, and
the files benchmarks/sections/*.md (included verbatim; their sections win
over preserved ones with the same title).

The tables have a column per implementation of the results: pure,
compiled and pyzmq (or purezmq and pyzmq for results from before the
compiled build), then each purezmq build's ratio to pyzmq, the judged
build's first; target and met? are the judged build's (see summary.py).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .builds import COMPILED, LABEL, LEGACY, PURE, PYZMQ
from .matrix import size_label
from .summary import TARGETS, Cell, Side, implementations, judged_build, target_summary

DESIGN_LOG = re.compile(r"^##\s+design log", re.IGNORECASE)
OTHER_OWNED = re.compile(r"^##\s+.*\b(journal|spark)", re.IGNORECASE)
DESIGN_LOG_TEMPLATE = """## Design log: what each change bought

<!-- Kept verbatim by benchmarks/render.py: write here, it survives re-rendering. -->

One entry per optimisation: the change (commit), the cells it moved and by
how much (before -> after, same machine, same command), and why it helped.

| change | cells | before | after | why |
|---|---|---|---|---|
| *(none yet)* | | | | |
"""


@dataclass(frozen=True)
class View:
    """Which columns the page has: the implementations in order (pyzmq
    last) and the build the targets are judged on."""

    impls: tuple[str, ...]
    judged: str | None

    @classmethod
    def of(cls, docs: list[dict[str, Any]]) -> View:
        impls = implementations(docs)
        return cls(tuple(impls), judged_build(impls))

    @property
    def builds(self) -> list[str]:
        """The purezmq builds, in column order."""
        return [i for i in self.impls if i != PYZMQ]

    @property
    def ratios(self) -> list[str]:
        """The builds with a ratio column: the judged one first."""
        if PYZMQ not in self.impls:
            return []
        first = [self.judged] if self.judged in self.builds else []
        return first + [b for b in self.builds if b != self.judged]

    def heads(self, fmt: str) -> list[str]:
        return [fmt.format(label(i)) for i in self.impls]

    def ratio_heads(self) -> list[str]:
        return [f"{label(b)} / pyzmq" for b in self.ratios]

    def joined(self) -> str:
        """'pure / compiled / pyzmq' - for columns that join the values."""
        return " / ".join(label(i) for i in self.impls)


DESCRIBE = {
    PURE: "purezmq's pure-Python build (**pure**)",
    COMPILED: "its mypyc-compiled build (**compiled**)",
    LEGACY: "purezmq (**purezmq**: pure Python, from before the compiled build)",
    PYZMQ: "pyzmq (**pyzmq**, libzmq)",
}


def label(impl: str) -> str:
    return LABEL.get(impl, impl)


# ----------------------------------------------------------------- formatting
def rate(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.1f}k"
    if x >= 1e3:
        return f"{x / 1e3:.2f}k"
    return f"{x:.0f}"


def usec(x: float | None) -> str:
    return "-" if x is None else (f"{x:.1f}" if x < 1000 else f"{x:,.0f}")


def kib(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x / 1024:.1f} MiB" if abs(x) >= 1024 else f"{x:.0f} KiB"


def ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def met(c: Cell) -> str:
    m = c.met
    return "" if m is None else ("met" if m else "**missed**")


def bg(c: Cell, threshold: float) -> str:
    b = c.bg_max
    return f"⚠ {b:.0%}" if b > threshold else f"{b:.0%}"


def _spread(side: Side, fmt: Any) -> str:
    if side.median is None:
        return "**failed**" if side.failures else "-"
    text = fmt(side.median)
    if len(side.values) > 1:
        text += f"<br><sub>{fmt(min(side.values))} - {fmt(max(side.values))}</sub>"
    if side.failures:
        text += f"<br><sub>{len(side.failures)} failed</sub>"
    return text


def _values(c: Cell, view: View, fmt: Any) -> list[str]:
    """One column per implementation (median, min-max under it), then the
    ratios to pyzmq."""
    return [_spread(c.side(i), fmt) for i in view.impls] + [
        ratio(c.ratio_of(b)) for b in view.ratios
    ]


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _failures(cells: list[Cell]) -> list[str]:
    out = []
    for c in cells:
        for impl, side in c.sides.items():
            for err in side.failures:
                first = err.strip().splitlines()[0] if err.strip() else "failed"
                out.append(f"- `{c.key}` on {label(impl)}: {first[:300]}")
    return ["", "Failed repetitions:", "", *out] if out else []


def _mode_title(what: str, mode: str) -> str:
    if mode == "sync":
        return f"### {what}, sync"
    return f"### {what}, asyncio (`purezmq.asyncio` vs `zmq.asyncio`)"


# ----------------------------------------------------------------- sections
def builds_section(docs: list[dict[str, Any]], view: View) -> list[str]:
    """What each column ran: its Python, purezmq.COMPILED, compiled modules,
    the digest of its source - and why a build was not measured. With
    several results files, a later file's build replaces an earlier one's,
    as its cells do (a partial run of two columns keeps the third's row)."""
    info: dict[str, Any] = {}
    for doc in docs:
        info.update(doc.get("builds") or {})
    if not info:
        return []
    rows, notes = [], []
    for name in view.impls:
        b = info.get(name)
        if not b:
            continue
        probe = b.get("probe", {})
        if name == PYZMQ:
            what = f"pyzmq {probe.get('pyzmq', '?')}, libzmq {probe.get('libzmq', '?')}"
            flag, mods = "-", "-"
        else:
            flag = str(probe.get("compiled", "-"))
            n = len(probe.get("compiled_modules") or [])
            mods = f"{n} extension modules" if n else "none"
            what = f"purezmq {probe.get('purezmq', '?')}"
            if probe.get("source_sha256"):
                what += f", .py sources sha256 `{probe['source_sha256']}`"
            if probe.get("editable"):
                what += " (editable: live source)"
        status = "measured" if not b.get("refused") else "**not measured**"
        rows.append([f"**{label(name)}**", f"`{b.get('python', '?')}`", what, flag, mods, status])
        if b.get("refused"):
            notes.append(f"- **{label(name)} not measured**: {b['refused']}")
        if b.get("changed"):
            notes.append(f"- **{label(name)} changed during the run**: {b['changed']}")
    for w in docs[-1].get("warnings", []):
        notes.append(f"- {w}")
    return [
        "## Builds",
        "",
        "Each purezmq build is its own install in its own virtualenv; every perf process "
        "reports `purezmq.COMPILED` and an attempt whose processes disagree with the "
        "build's name is refused (listed as failed), so no pure-Python number is "
        "filed under compiled.",
        "",
        *_table(
            ["column", "Python", "installed", "purezmq.COMPILED", "compiled modules", "status"],
            rows,
        ),
        *(["", *notes] if notes else []),
    ]


def targets_section(cells: list[Cell], view: View, docs: list[dict[str, Any]]) -> list[str]:
    judged = view.judged
    others = [b for b in view.ratios if b != judged]
    summaries = {b: target_summary(cells, b) for b in view.ratios}
    head = ["target", "required ratio", "cells"]
    for b in view.ratios:
        head += [f"met ({label(b)})", f"worst cell ({label(b)})"]
    rows = []
    for i, t in enumerate(TARGETS):
        row = [t.name, t.label, str(summaries[view.ratios[0]][i]["cells"] if view.ratios else 0)]
        for b in view.ratios:
            r = summaries[b][i]
            worst = r["worst"]
            worst_txt = f"{ratio(r['worst_ratio'])} (`{worst.key}`)" if worst else "-"
            if not r["measured"]:
                verdict = "-"
            elif r["met"] == r["measured"]:
                verdict = "**all met**"
            else:
                verdict = f"{r['met']} of {r['measured']}"
            row += [verdict, worst_txt]
        rows.append(row)
    out = ["## Targets", ""]
    if judged is None or judged not in view.ratios:
        return [*out, "No purezmq build and pyzmq in these results: no targets to judge."]
    s = summaries[judged]
    total, good = sum(r["measured"] for r in s), sum(r["met"] for r in s)
    lead = (
        f"Targets are judged on the **{label(judged)}** build"
        + (" (issue 11)" if judged == COMPILED else "")
        + ": its median / pyzmq's median, measured in the same run. For throughput higher "
        "is better, for latency lower is better."
    )
    if others:
        lead += " The " + " and ".join(label(o) for o in others) + " build's standing is shown "
        lead += "beside it for reference."
    out += [lead, ""]
    if not total:
        why = (docs[-1].get("builds", {}).get(judged) or {}).get("refused")
        out += [
            f"**The {label(judged)} build was not measured in this run"
            + (f"**: {why}" if why else ".**"),
            "",
        ]
    else:
        out += [f"**{good} of {total} target cells met ({label(judged)} build).**", ""]
    return out + _table(head, rows)


def thr_section(cells: list[Cell], mode: str, threshold: float, view: View) -> list[str]:
    mine = [c for c in cells if c.scn["group"] == "thr" and c.scn["mode"] == mode]
    if not mine:
        return []
    rows = []
    for c in mine:
        s = c.scn
        mbs = [c.side(i).median for i in view.impls]
        mb = " / ".join("-" if m is None else f"{m * s['size'] / 1e6:,.0f}" for m in mbs)
        rows.append(
            [
                s["transport"],
                size_label(s["size"]),
                f"{s['count']:,}",
                *_values(c, view, rate),
                c.target.label if c.target else "",
                met(c),
                mb,
                bg(c, threshold),
            ]
        )
    return [
        _mode_title("Throughput", mode),
        "",
        *_table(
            [
                "transport",
                "size",
                "messages",
                *view.heads("{} msg/s"),
                *view.ratio_heads(),
                "target",
                "met?",
                f"MB/s {view.joined()}",
                "bg",
            ],
            rows,
        ),
        *_failures(mine),
    ]


def lat_section(cells: list[Cell], mode: str, threshold: float, view: View) -> list[str]:
    mine = [c for c in cells if c.scn["group"] == "lat" and c.scn["mode"] == mode]
    if not mine:
        return []
    rows = []
    for c in mine:
        s = c.scn
        pct = []
        for impl in view.impls:
            side = c.side(impl)
            p50, p99 = side.med(lambda r: r["p50_us"]), side.med(lambda r: r["p99_us"])
            pct.append(f"{usec(p50)} / {usec(p99)}")
        rows.append(
            [
                s["transport"],
                size_label(s["size"]),
                f"{s['count']:,}",
                *_values(c, view, usec),
                c.target.label if c.target else "",
                met(c),
                *pct,
                bg(c, threshold),
            ]
        )
    return [
        _mode_title("REQ/REP latency", mode),
        "",
        "One-way latency in µs = mean round trip / 2 (libzmq's `remote_lat`); "
        "p50 / p99 are of the per-round-trip halves.",
        "",
        *_table(
            [
                "transport",
                "size",
                "round trips",
                *view.heads("{} µs"),
                *view.ratio_heads(),
                "target",
                "met?",
                *view.heads("{} p50 / p99"),
                "bg",
            ],
            rows,
        ),
        *_failures(mine),
    ]


def fanout_section(cells: list[Cell], threshold: float, view: View) -> list[str]:
    mine = [c for c in cells if c.scn["group"] == "fanout"]
    if not mine:
        return []
    from .procs import split_subs

    rows = []
    for c in mine:
        s = c.scn
        drops, pubs = [], []
        for impl in view.impls:
            side = c.side(impl)
            d = [r["dropped"] for r in side.results]
            drops.append("-" if not d else str(max(d)))
            pubs.append(rate(side.med(lambda r: r["pub_msg_per_s"])))
        rows.append(
            [
                str(s["subs"]),
                str(len(split_subs(s["subs"]))),
                f"{s['count']:,}",
                *_values(c, view, rate),
                c.target.label if c.target else "",
                met(c),
                " / ".join(drops),
                " / ".join(pubs),
                bg(c, threshold),
            ]
        )
    size = mine[0].scn["size"]
    return [
        "## PUB/SUB fan-out",
        "",
        f"One PUB over tcp sends N messages of {size} B; K SUB sockets (subscribed to "
        "everything) spread over ceil(K/25) subscriber processes count them. "
        "Rate = data messages delivered to all subscribers / (last subscriber done - first "
        "send), on the machine's monotonic clock. SNDHWM and RCVHWM are 0 (unbounded) on every "
        "implementation, so each delivers everything and the rate compares the fan-out work; "
        "`dropped` = N x K - delivered is reported anyway (max over repetitions). "
        "The publisher's own send rate shows where the time goes.",
        "",
        *_table(
            [
                "subscribers",
                "sub processes",
                "messages",
                *view.heads("{} delivered/s"),
                *view.ratio_heads(),
                "target",
                "met?",
                f"dropped {view.joined()}",
                f"PUB send rate {view.joined()}",
                "bg",
            ],
            rows,
        ),
        *_failures(mine),
    ]


def conn_section(cells: list[Cell], threshold: float, view: View) -> list[str]:
    mine = [c for c in cells if c.scn["group"] == "conn"]
    if not mine:
        return []
    rows = []
    for c in mine:
        s = c.scn
        pct, burst = [], []
        for impl in view.impls:
            side = c.side(impl)
            p50, p99 = side.med(lambda r: r["p50_us"]), side.med(lambda r: r["p99_us"])
            pct.append(f"{usec(p50)} / {usec(p99)}")
            burst.append(rate(side.med(lambda r: r["burst_per_s"])))
        rows.append(
            [
                s["transport"],
                f"{s['count']:,}",
                *_values(c, view, usec),
                c.target.label if c.target else "",
                met(c),
                *pct,
                " / ".join(burst),
                bg(c, threshold),
            ]
        )
    size, burst_n = mine[0].scn["size"], mine[0].scn.get("burst", 0)
    return [
        "## Connection set-up",
        "",
        "A ROUTER in one process echoes; the other process times N set-ups one after "
        f"another, each a fresh DEALER socket, `connect`, one round trip of {size} B and "
        "`close(linger=0)` (the context is made once, untimed; untimed set-ups go first). "
        "Set-up time in µs = the mean; it covers the TCP or IPC connect, the ZMTP greeting, "
        "the NULL handshake and the first message each way. Then the client opens "
        f"{burst_n:,} DEALERs at once, each sending one message: connects/s = {burst_n:,} / "
        "(time until the last answer).",
        "",
        *_table(
            [
                "transport",
                "set-ups",
                *view.heads("{} µs"),
                *view.ratio_heads(),
                "target",
                "met?",
                *view.heads("{} p50 / p99"),
                f"burst connects/s {view.joined()}",
                "bg",
            ],
            rows,
        ),
        *_failures(mine),
    ]


def _plateau(result: dict[str, Any]) -> bool:
    flood = [p for p in result.get("series", []) if p[0] <= result["sent"]][:101]
    flood = [p for p in flood if p[0] > 0]
    if len(flood) < 4:
        return True
    half = len(flood) // 2
    early = max(p[1] for p in flood[:half])
    late = max(p[1] for p in flood[half:])
    return late - early <= max(1024, 0.05 * result["rss_base_kib"])


def _idle_rows(c: Cell, view: View) -> list[list[str]]:
    rows = []
    for impl in view.impls:
        side = c.side(impl)
        if not side.results:
            rows.append([label(impl), "**failed**" if side.failures else "-"] + [""] * 6)
            continue
        cols = [label(impl)]
        for role in ("router", "dealers"):
            start = side.med(lambda r, role=role: r[role]["rss_start_kib"])
            end = side.med(lambda r, role=role: r[role]["rss_idle_kib"])
            growth = side.med(lambda r, role=role: r[role]["growth_kib"])
            per = side.med(lambda r, role=role: r[role]["per_connection_kib"])
            cols += [f"{kib(start)} → {kib(end)}", f"+{kib(growth)} ({per:.1f} KiB)"]
        roles = ("router", "dealers")
        cpu = [side.med(lambda r, role=role: r[role]["idle_cpu_pct"]) for role in roles]
        cols.append(" / ".join(f"{x:.1f} %" for x in cpu if x is not None))
        thr = [side.med(lambda r, role=role: r[role]["threads"]) for role in roles]
        fds = [side.med(lambda r, role=role: r[role]["open_fds"]) for role in roles]
        cols.append(" / ".join(f"{x:.0f}" for x in thr if x is not None))
        cols.append(" / ".join(f"{x:.0f}" for x in fds if x is not None))
        rows.append(cols)
    return rows


def _growth_ratios(c: Cell, view: View) -> list[str]:
    py_r = c.side(PYZMQ).med(lambda r: r["router"]["growth_kib"])
    py_d = c.side(PYZMQ).med(lambda r: r["dealers"]["growth_kib"])
    out = []
    for b in view.ratios:
        r = c.side(b).med(lambda r: r["router"]["growth_kib"])
        d = c.side(b).med(lambda r: r["dealers"]["growth_kib"])
        out.append(
            f"Growth ratio {label(b)} / pyzmq: ROUTER process "
            f"{ratio(r / py_r if r is not None and py_r else None)}, DEALER process "
            f"{ratio(d / py_d if d is not None and py_d else None)}."
        )
    return out


def _stall_rows(c: Cell, view: View) -> tuple[list[list[str]], float]:
    rows = []
    hwm_kib = 0.0
    for impl in view.impls:
        side = c.side(impl)
        if not side.results:
            rows.append([label(impl), "**failed**" if side.failures else "-"] + [""] * 8)
            continue
        hwm_kib = side.results[0]["hwm_bytes_kib"]
        plateaus = sum(_plateau(r) for r in side.results)
        rows.append(
            [
                label(impl),
                f"{side.med(lambda r: r['sent']):,.0f}",
                f"{side.med(lambda r: r['delivered']):,.0f}",
                f"{side.med(lambda r: r['dropped']):,.0f}",
                kib(side.med(lambda r: r["rss_base_kib"])),
                kib(side.med(lambda r: r["rss_peak_kib"])),
                kib(side.med(lambda r: r["rss_final_kib"])),
                "+" + kib(side.median),
                f"{'yes' if plateaus == len(side.results) else 'NO'} "
                f"({plateaus}/{len(side.results)})",
                kib(side.med(lambda r: r["sub"]["rss_stalled_kib"] - r["sub"]["rss_start_kib"])),
            ]
        )
    return rows, hwm_kib


def memory_section(cells: list[Cell], view: View) -> list[str]:
    out: list[str] = []
    idle = [c for c in cells if c.scn["group"] == "mem_idle"]
    stall = [c for c in cells if c.scn["group"] == "mem_stall"]
    if not idle and not stall:
        return []
    out += ["## Memory", ""]
    for c in idle:
        n = c.scn.get("connections", 0)
        out += [
            f"### {n:,} idle connections",
            "",
            f"A ROUTER process (one socket) and a DEALER process ({n:,} DEALER sockets in one "
            "context), connected over tcp; each DEALER says hello and gets an answer, then both "
            "stay idle and measure their RSS (VmRSS) and the CPU they use while idle (2 s). "
            "Growth = RSS with the connections idle - RSS after creating the context.",
            "",
            *_table(
                [
                    "implementation",
                    "ROUTER process RSS",
                    "ROUTER growth (per connection)",
                    "DEALER process RSS",
                    "DEALER growth (per connection)",
                    "idle CPU ROUTER / DEALERs",
                    "threads",
                    "open fds",
                ],
                _idle_rows(c, view),
            ),
            "",
            *_growth_ratios(c, view),
            *_failures([c]),
            "",
        ]
    for c in stall:
        rows, hwm_kib = _stall_rows(c, view)
        size = c.scn["size"]
        out += [
            "### PUB whose subscriber stopped reading",
            "",
            f"A PUB (SNDHWM 1000) sends {c.scn['count']:,} fresh {size} B messages as fast as "
            "it can to one SUB (RCVHWM 1000) that has stopped reading, sampling its RSS every "
            "1% of the messages; then the SUB drains what was kept for it and counts. "
            f"SNDHWM x size = {kib(hwm_kib)}. 'Plateaus' = the RSS in the second half of the "
            "flood is within max(1 MiB, 5 %) of the first half's peak. Medians of the "
            "repetitions.",
            "",
            *_table(
                [
                    "implementation",
                    "sent",
                    "delivered",
                    "dropped",
                    "PUB RSS before",
                    "peak",
                    "after",
                    "growth (peak)",
                    "plateaus?",
                    "SUB growth while stalled",
                ],
                rows,
            ),
            *_failures([c]),
            "",
        ]
    return out


def machine_section(
    docs: list[dict[str, Any]], sources: list[str], cells: list[Cell], threshold: float
) -> list[str]:
    m = docs[-1]["machine"]
    rows = [
        ["CPU", f"{m['cpu_model']} ({m['cpu_family_model']})"],
        [
            "CPUs",
            f"{m['cpus']} (affinity {m['affinity']}), {m['virtualization']}, "
            f"cpuidle `{m['cpuidle_driver']}`, clocksource `{m['clocksource']}`",
        ],
        ["memory", f"{m['memory_gib']} GiB"],
        ["OS / kernel", f"{m['os']} / {m['kernel']}"],
        ["Python", f"{m['python']}, switch interval {m['switch_interval_ms']:g} ms"],
        ["pyzmq / libzmq", f"{m['pyzmq']} / {m['libzmq']}"],
        ["uvloop", m["uvloop"] + " (not used: the asyncio runs use the standard loop)"],
    ]
    kept_bg = [b for c in cells for s in c.sides.values() for b in s.background]
    columns = [_run_column(doc, threshold) for doc in docs]
    names = [label for label, _ in columns[0]]
    run_rows = [[name] + [dict(col)[name] for col in columns] for name in names]
    return [
        "## Machine and run",
        "",
        *_table(["", ""], rows),
        "",
        *_table(["run", *[f"`{s}`" for s in sources]], run_rows),
        "",
        f"Background load of the kept attempts (all cells): {_dist(kept_bg)}."
        + (
            " Where files are merged, each scenario comes from the last file that has it."
            if len(docs) > 1
            else ""
        ),
    ]


def _run_column(doc: dict[str, Any], threshold: float) -> list[tuple[str, str]]:
    m, cfg = doc["machine"], doc["config"]
    attempts = doc.get("attempts", [])
    bgs = [a["background"] for a in attempts]
    disturbed = sum(1 for b in bgs if b > threshold)
    retried = sum(1 for a in attempts if a["attempt"] > 0)
    failed = sum(1 for a in attempts if not a["ok"])
    waited = sum(a.get("waited_s", 0.0) for a in attempts)
    loads = [a["loadavg"][0] for a in attempts if a.get("loadavg")]
    counts = "quick counts" if cfg["quick"] else "full counts"
    return [
        (
            "purezmq",
            f"{m['purezmq']}, git `{m['purezmq_git']}` ({m['purezmq_git_subject']})"
            + _worktree(doc),
        ),
        ("started / finished (UTC)", f"{doc['started']} / {doc.get('finished', '(unfinished)')}"),
        ("duration", f"{doc.get('duration_s', 0) / 60:.1f} min"),
        ("command", "`python benchmarks/run.py " + " ".join(doc.get("argv", [])) + "`"),
        ("scenarios", f"{len(doc.get('scenarios', []))}"),
        ("repetitions", f"{cfg['reps']}{_min_reps(cfg)} (interleaved; {counts})"),
        ("attempts", f"{len(attempts)} ({retried} re-runs of disturbed attempts, {failed} failed)"),
        ("background load (all attempts)", _dist(bgs) + f"; {disturbed} above {threshold:.0%}"),
        ("steal", _dist([a.get("steal", 0.0) for a in attempts])),
        ("1-min load average at attempts", _dist(loads, pct=False)),
        ("waiting for a quiet machine", f"{waited / 60:.1f} min in total"),
        ("patience left at the end", _patience(doc)),
    ]


def _min_reps(cfg: dict[str, Any]) -> str:
    """The groups that got more repetitions than the rest (run.py's MIN_REPS)."""
    more = {g: n for g, n in (cfg.get("min_reps") or {}).items() if n > cfg["reps"]}
    return "".join(f"; {n} for {g}" for g, n in sorted(more.items()))


def _patience(doc: dict[str, Any]) -> str:
    left, total = doc.get("patience_left_min"), doc["config"].get("patience_min")
    if left is None or total is None:
        return "-"
    if left <= 0:
        return f"none of {total:g} min (spent: later attempts neither waited nor re-ran)"
    return f"{left:.1f} of {total:g} min"


def _worktree(doc: dict[str, Any]) -> str:
    """The working tree measured: git revision plus uncommitted edits."""
    m = doc["machine"]
    source = str(doc.get("source", ""))
    if source.startswith("git "):
        return f"; the builds were installed from {source}, not the working tree"
    text = ""
    if m.get("purezmq_modified_files"):
        text += f"; {m['purezmq_modified_files']} tracked files modified"
    if doc.get("builds"):
        return text + "; each build installed from a copy of the working tree (see Builds)"
    sha = m.get("source_sha256")
    if sha == "live":
        text += "; measured live from src/ (no snapshot)"
    elif sha:
        text += f"; measured from a snapshot of src/purezmq, sha256 `{sha}`"
    return text


def _dist(xs: list[float], pct: bool = True) -> str:
    if not xs:
        return "-"
    f = (lambda x: f"{x:.0%}") if pct else (lambda x: f"{x:.2f}")
    return f"median {f(statistics.median(xs))}, max {f(max(xs))}"


METHOD = """## Method

- **One command**: `bash scripts/bench.sh` installs each purezmq build into
  its own virtualenv from one copy of the working tree (`--source REV`: from
  a commit instead) - `./.venv-bench` with `PUREZMQ_PGO=1 pip install
  '.[test,bench]'` (compiled by mypyc where a C compiler works, with a
  profile from a short training run where it is gcc: docs/design.md;
  `PUREZMQ_PGO=0` for a plain compiled build) and `./.venv-bench-pure` with
  `PUREZMQ_PURE=1` - reinstalling only when that source changed, then runs
  `python benchmarks/run.py`; `--quick` for a smoke run (1 repetition,
  counts / 10), `--only tcp,64` for a subset (which does not re-render
  this page unless `--doc` names one), `--impls pure,zmq` to leave a
  build out; `python benchmarks/render.py [results.json ...]` re-renders
  this page from saved results (later files replace the scenarios they
  contain, so `render.py FULL.json SUBSET.json` merges a subset; files from
  before the compiled build render with their two columns).
- **Builds**: the runner asks each venv's Python what it has before the run
  (`purezmq.COMPILED`, the compiled extension modules, a digest of the
  installed `.py` sources) and again at the end. A "compiled" venv whose
  `purezmq.COMPILED` is False (the compile failed or found no C compiler:
  the build then installs pure Python without an error) is not measured,
  and the page says so in Targets and Builds; every perf process reports the
  flag too, and an attempt that disagrees with its column is recorded as
  failed. `--strict-builds` stops instead. pyzmq runs from `./.venv-bench`.
- **Processes**: every scenario runs as separate processes started by the
  runner with `<venv>/bin/python -m purezmq.perf <tool> ... --impl
  purezmq|zmq --json`: the binding side first, which writes its endpoint to
  a ready file; then the connecting side(s). inproc runs in one process (two
  threads, or two tasks on one loop for asyncio), as libzmq's inproc tools
  do. Processes are not pinned to CPUs; each attempt has a timeout and is
  killed as a process group when it expires. The same tool code measures
  every implementation: only the imported module (and the venv) differs.
- **Throughput** (`local_thr`/`remote_thr`, libzmq's method): PULL binds,
  PUSH connects and sends N messages of one reused `bytes` object; the
  receiver times from the first message to the last, rate = (N-1)/elapsed.
  The sender ends with `close(linger=-1)` and `term()`.
- **Latency** (`local_lat`/`remote_lat`): REP binds and echoes, REQ does
  min(1000, N/5) untimed round trips, then times N; latency = mean RTT / 2.
- **asyncio** (`--async`): the same tools on `purezmq.asyncio` and
  `zmq.asyncio` on the standard asyncio loop, every `send`/`recv` awaited.
- **Fan-out** (`fanout_pub`/`fanout_sub`): see its section. Probes before the
  timed part make sure every SUB is subscribed (no slow-joiner losses).
- **Connection set-up** (`conn_server`/`conn_client`): see its section.
- **Memory** (`idle_router`/`idle_dealers`, `stall_pub`/`stall_sub`): see
  its section; RSS is VmRSS from /proc/self/status.
- **Repetitions and medians**: N repetitions (default 3; connection set-up
  at least 9, `MIN_REPS` in run.py, since after run 17: a process's
  fastest set-up moves between runs on this VM), interleaved - the
  repetition loop is outermost, so a slow spell of the machine hits every
  scenario rather than all repetitions of one; the order of the
  implementations rotates between repetitions, so each goes first once in
  three. Tables give the median, and min-max under it.
- **Background-load control** (as in the baseline note): before each
  attempt the runner waits (up to 20 s) until the machine is less than 15 %
  busy; it measures the background load during the attempt as (machine busy
  time - the benchmark's own CPU time) / (CPUs x wall time) and re-runs an
  attempt above 10 % up to twice, keeping the least disturbed. Failed
  attempts are reported, not retried. The `bg` column is the highest
  background load among a cell's kept attempts (⚠ above the threshold).
- **Targets** apply to the cells named in the Targets table and are judged
  on the compiled build (issue 11); the pure build's standing is shown
  beside it. The other cells are measured and reported without a target.
- **Instructions per message** (`bash scripts/bench.sh profile tcp,64`, or
  `python benchmarks/profile_cell.py tcp,64` once the venvs exist;
  `lat,tcp,1` for a REQ/REP cell, `conn,ipc` for instructions per
  connection set-up, `--help` for the rest): a missed cell's
  profile without the machine's timing noise. For each implementation the
  cell runs twice under `valgrind --tool=callgrind --fair-sched=yes` - 20,000
  messages (2,000 round trips) and a tenth of that - and instructions per
  message = (Ir of the long run - Ir of the short run) / the difference in
  messages, so start-up, imports and the handshake cancel. By default each
  side is profiled on its own against a pyzmq peer running at native speed
  (the profiled side is the bottleneck, as in a real run); `--peer same`
  puts both sides of one implementation under callgrind. It prints the
  instructions per message of each side and in total (and / pyzmq), the
  system calls per 1,000 messages (how many messages a `send` or `recv`
  carried; `futex wait`: a thread slept on a lock or condition) and the
  functions with the most self instructions per message (mypyc's compiled
  functions appear by name, `CPyDef_...`; the pure build's Python code is
  all `_PyEval_EvalFrameDefault`: use `py-spy` for its Python-level view).
  Counts are user-space only (the kernel's share of a system call is not
  in them) and are not free of timing either: how a process's threads
  interleave decides how many messages a system call carries, so a side
  whose batching depends on timing varies from run to run. With valgrind's
  default scheduling the pure build's tcp 64 B sender took about 10k
  instructions per message in some runs (2 `send` per 1,000 messages) and
  about 40k in others (660 `send` per 1,000: the application thread
  writing one or two messages at a time); with `--fair-sched=yes` (the
  default here) four runs gave 9.5k-13.8k. The system-call column says
  which mode a run was in; `--repeat 3` gives the median and spread, and
  builds or commits are compared on the same repeat count. A run of all
  three implementations with the defaults takes about four minutes here
  (`--keep DIR` keeps the callgrind files for `callgrind_annotate` or
  KCachegrind).

Caveats worth keeping in mind:

- Latency on a 2-vCPU VM is dominated by waking the other vCPU (see the
  baseline note): unpinned ping-pong pays a halted-vCPU wake-up per hop, and
  background load elsewhere can make latency *lower*. Compare latency only
  within one run.
- With only 2 vCPUs, libzmq's I/O thread competes with the application
  threads; so does purezmq's I/O thread. Fan-out with several subscriber
  processes oversubscribes the CPUs for both implementations alike.
- purezmq passes `bytes` objects by reference over inproc (Python objects
  are immutable, nothing is copied); pyzmq copies below 64 KiB on send and
  copies into a new `bytes` on `recv()`. Large inproc messages therefore
  favour purezmq by design, not by a measurement artefact.
- The throughput sender reuses one `bytes` object (as libzmq's tools reuse
  one buffer); the memory flood sends a fresh object per message, so an
  implementation that queues references cannot look lighter than one that
  copies.
"""

MICRO = """## Micro-benchmarks

`python benchmarks/micro/run.py [--quick] [codec] [routing]` runs the
sans-I/O micro-benchmarks (not part of the pytest run): ZMTP frame
encode/decode and large-frame receive (`codec`), and the routing layer -
lb, fq, dist, trie/mtrie matching and the socket patterns, in ns per message
(`routing`). They print to the terminal; they are for comparing a change
against its parent on the same machine, not for this page's tables.
"""


# ----------------------------------------------------------------- assembly
def _split_sections(text: str) -> list[tuple[str, str]]:
    """(heading line, whole section text) for each level-2 section."""
    out: list[tuple[str, str]] = []
    fence = False
    current: list[str] | None = None
    heading = ""
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            if current is not None:
                out.append((heading, "\n".join(current).rstrip() + "\n"))
            heading, current = line.strip(), [line]
        elif current is not None:
            current.append(line)
    if current is not None:
        out.append((heading, "\n".join(current).rstrip() + "\n"))
    return out


def preserved(existing: str, sections_dir: Path) -> tuple[str, list[str]]:
    """(design log, other owners' sections) to put back into the page."""
    old = _split_sections(existing)
    design = next((body for head, body in old if DESIGN_LOG.match(head)), DESIGN_LOG_TEMPLATE)
    files = sorted(p for p in sections_dir.glob("*.md") if p.name.lower() != "readme.md")
    included = [p.read_text().rstrip() + "\n" for p in files]
    headings = {h for text in included for h, _ in _split_sections(text)}
    kept = [body for head, body in old if OTHER_OWNED.match(head) and head not in headings]
    return design, included + kept


def render(
    docs: list[dict[str, Any]],
    cells: list[Cell],
    charts: dict[str, str],
    sources: list[str],
    existing: str,
    sections_dir: Path,
) -> str:
    doc = docs[-1]
    threshold = float(doc["config"].get("rerun_above", 0.10))
    design, others = preserved(existing, sections_dir)
    view = View.of(docs)
    described = [DESCRIBE.get(i, f"**{label(i)}**") for i in view.impls]
    names = ", ".join(described[:-1]) + " and " + described[-1] if len(described) > 1 else ""
    out = [
        "# Benchmarks: purezmq vs pyzmq (libzmq)",
        "",
        "<!-- Generated by benchmarks/render.py from " + ", ".join(sources) + ". Edit the "
        "'Design log' section here or add files to benchmarks/sections/: both survive "
        "re-rendering; everything else is regenerated. -->",
        "",
        (names or "Every implementation")
        + " measured in one run on one machine, same scenarios, same "
        "tools (`python -m purezmq.perf`), separate processes, medians of "
        f"{doc['config']['reps']} interleaved repetitions. Reproduce with "
        "`bash scripts/bench.sh` (see [Method](#method)). Numbers are what was measured: "
        "nothing is smoothed, failed runs are listed.",
        "",
    ]
    if doc["config"].get("quick"):
        out += [
            "> **Quick run** (1 repetition, counts / 10): a smoke test, not a measurement "
            "to quote.",
            "",
        ]
    out += [*targets_section(cells, view, docs), ""]
    out += [*builds_section(docs, view), ""]
    out += ["## Throughput: PUSH/PULL", ""]
    for mode in ("sync", "async"):
        out += [*thr_section(cells, mode, threshold, view), ""]
    if "throughput" in charts:
        out += [f"![throughput by size](img/{charts['throughput']})", ""]
    out += ["## Latency: REQ/REP", ""]
    for mode in ("sync", "async"):
        out += [*lat_section(cells, mode, threshold, view), ""]
    if "latency" in charts:
        out += [f"![latency by size](img/{charts['latency']})", ""]
    out += [*fanout_section(cells, threshold, view), ""]
    if "fanout" in charts:
        out += [f"![fan-out](img/{charts['fanout']})", ""]
    out += [*conn_section(cells, threshold, view), ""]
    out += memory_section(cells, view)
    if "stall" in charts:
        out += [f"![PUB RSS with a stalled subscriber](img/{charts['stall']})", ""]
    out += [*machine_section(docs, sources, cells, threshold), ""]
    out += [METHOD, MICRO, design.rstrip() + "\n"]
    out += [o.rstrip() + "\n" for o in others]
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


__all__ = ["TARGETS", "render"]
