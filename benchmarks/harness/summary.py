"""From raw attempts to cells: kept attempts, medians, ratios, targets.

Per (scenario, implementation, repetition) the least disturbed successful
attempt is kept (lowest background load); a repetition with no success
counts as a failure and is listed. Medians are over the kept repetitions.
Ratios are always a purezmq build / pyzmq, for throughput (higher is
better) and latency (lower is better) alike. The targets are judged on one
build (``judged``): the compiled one when the results asked for it, else
the only purezmq build they have (older results: ``purezmq``).

Several results files can be merged: a scenario present in a later file
replaces that scenario from the earlier ones, so a subset re-run updates
only its own cells.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from .builds import COMPILED, LEGACY, ORDER, PURE, PYZMQ


@dataclass(frozen=True)
class Target:
    name: str
    op: str  # ">=" | "<="
    value: float

    def met(self, ratio: float | None) -> bool | None:
        if ratio is None:
            return None
        return ratio >= self.value if self.op == ">=" else ratio <= self.value

    @property
    def label(self) -> str:
        return f"{'≥' if self.op == '>=' else '≤'} {self.value:.1f}x"


T_THR = Target("sync throughput, tcp and ipc, below 1 MiB", ">=", 1.0)
T_THR_1M = Target("sync throughput, tcp and ipc, at 1 MiB", ">=", 1.5)
T_INPROC = Target("sync inproc throughput", ">=", 1.0)
T_LAT = Target("sync REQ/REP one-way latency, tcp and ipc", "<=", 1.0)
T_FANOUT = Target("PUB/SUB fan-out to 10 and 100 subscribers", ">=", 1.0)
T_ASYNC_LAT = Target("async REQ/REP latency vs zmq.asyncio", "<=", 0.8)
T_CONN = Target("connection set-up time, tcp and ipc", "<=", 1.5)
TARGETS = (T_THR, T_THR_1M, T_INPROC, T_LAT, T_FANOUT, T_ASYNC_LAT, T_CONN)


def target_for(scn: dict[str, Any]) -> Target | None:
    g, mode, tr, size = scn["group"], scn["mode"], scn["transport"], scn["size"]
    if g == "thr" and mode == "sync":
        if tr == "inproc":
            return T_INPROC
        return T_THR_1M if size >= 1 << 20 else T_THR
    if g == "lat" and mode == "sync" and tr in ("tcp", "ipc"):
        return T_LAT
    if g == "lat" and mode == "async":
        return T_ASYNC_LAT
    if g == "fanout" and scn["subs"] in (10, 100):
        return T_FANOUT
    if g == "conn":
        return T_CONN
    return None


def metric(group: str, result: dict[str, Any]) -> float:
    """The headline number of one attempt."""
    if group in ("thr", "fanout"):
        return float(result["msg_per_s"])
    if group == "lat":
        return float(result["latency_us"])
    if group == "conn":
        return float(result["setup_us"])
    if group == "mem_idle":
        return float(result["router"]["growth_kib"])
    if group == "mem_stall":
        return float(result["growth_kib"])
    raise KeyError(group)


@dataclass
class Side:
    """One implementation's repetitions of one scenario."""

    values: list[float] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    background: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    retried: int = 0

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None

    def med(self, fn: Any) -> float | None:
        """Median over repetitions of fn(result)."""
        vals = [float(fn(r)) for r in self.results]
        return statistics.median(vals) if vals else None


@dataclass
class Cell:
    scn: dict[str, Any]
    sides: dict[str, Side]
    target: Target | None
    #: The build its target is judged on (None: no purezmq build in the results).
    judged: str | None = COMPILED

    @property
    def key(self) -> str:
        return str(self.scn["key"])

    def side(self, impl: str) -> Side:
        return self.sides.get(impl) or Side()

    def ratio_of(self, impl: str) -> float | None:
        """Median of `impl` / median of pyzmq (None when either is missing)."""
        a, b = self.side(impl).median, self.side(PYZMQ).median
        if a is None or b is None or b == 0:
            return None
        return a / b

    @property
    def ratio(self) -> float | None:
        """The judged build's ratio, the one its target applies to."""
        return self.ratio_of(self.judged) if self.judged else None

    @property
    def met(self) -> bool | None:
        return self.target.met(self.ratio) if self.target else None

    @property
    def bg_max(self) -> float:
        return max((b for s in self.sides.values() for b in s.background), default=0.0)


def merge(docs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(scenarios, attempts): later documents replace whole scenarios."""
    scenarios: dict[str, dict[str, Any]] = {}
    attempts: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        seen = {a["key"] for a in doc["attempts"]}
        for s in doc["scenarios"]:
            if s["key"] in seen:
                scenarios[s["key"]] = s
                attempts[s["key"]] = [a for a in doc["attempts"] if a["key"] == s["key"]]
    order = [s["key"] for doc in docs for s in doc["scenarios"]]
    keys = list(dict.fromkeys(k for k in order if k in scenarios))
    return [scenarios[k] for k in keys], [a for k in keys for a in attempts[k]]


def implementations(docs: list[dict[str, Any]]) -> list[str]:
    """The page's columns, in order: every implementation a run asked for
    (a build refused at the start keeps its column, empty, so its absence
    shows) and every one that has attempts."""
    names: set[str] = set()
    for doc in docs:
        names.update(doc.get("config", {}).get("impls", []))
        names.update(a["impl"] for a in doc.get("attempts", []))
    return [n for n in ORDER if n in names] + sorted(names - set(ORDER))


def judged_build(impls: list[str]) -> str | None:
    """The build the targets are judged on: compiled if the results asked
    for it (measured or not), else the only purezmq build there is."""
    for name in (COMPILED, PURE, LEGACY):
        if name in impls:
            return name
    return next((n for n in impls if n != PYZMQ), None)


def cells(docs: list[dict[str, Any]]) -> list[Cell]:
    judged = judged_build(implementations(docs))
    scenarios, attempts = merge(docs)
    out = []
    for scn in scenarios:
        per_rep: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for a in attempts:
            if a["key"] == scn["key"]:
                per_rep.setdefault((a["impl"], a["rep"]), []).append(a)
        sides: dict[str, Side] = {}
        for (impl, _rep), tries in sorted(per_rep.items()):
            side = sides.setdefault(impl, Side())
            side.retried += len(tries) - 1
            ok = [t for t in tries if t["ok"]]
            if not ok:
                side.failures.append(tries[-1].get("error", "failed"))
                continue
            kept = min(ok, key=lambda t: t["background"])
            side.values.append(metric(scn["group"], kept["result"]))
            side.results.append(kept["result"])
            side.background.append(kept["background"])
        out.append(Cell(scn, sides, target_for(scn), judged))
    return out


def target_summary(all_cells: list[Cell], impl: str | None = None) -> list[dict[str, Any]]:
    """Per target: cells, how many measured and met, and the worst cell, for
    `impl` (default: the judged build)."""

    def r(c: Cell) -> float | None:
        return c.ratio_of(impl) if impl else c.ratio

    rows = []
    for t in TARGETS:
        mine = [c for c in all_cells if c.target is t]
        measured = [c for c in mine if r(c) is not None]
        met = [c for c in measured if t.met(r(c))]
        worst = None
        if measured:
            pick = min if t.op == ">=" else max
            worst = pick(measured, key=lambda c: r(c) or 0.0)
        rows.append(
            {
                "target": t,
                "cells": len(mine),
                "measured": len(measured),
                "met": len(met),
                "worst": worst,
                "worst_ratio": r(worst) if worst else None,
            }
        )
    return rows
