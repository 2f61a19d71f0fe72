"""PNG charts for docs/benchmarks.md (matplotlib, Agg backend).

Each chart shows every implementation of the results (pure, compiled,
pyzmq; or purezmq and pyzmq for older results): medians as points joined by
lines, min-max over the repetitions as error bars, sync solid and asyncio
dashed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .builds import COMPILED, LABEL, LEGACY, ORDER, PURE, PYZMQ
from .matrix import SIZES, TRANSPORTS, size_label
from .summary import Cell

COLORS = {PURE: "#1f77b4", COMPILED: "#2ca02c", LEGACY: "#1f77b4", PYZMQ: "#d62728"}
STYLE = {"sync": "-", "async": "--"}
MARK = {"sync": "o", "async": "s"}


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _impls(cells: list[Cell]) -> list[str]:
    """The implementations with at least one measured value, in column order."""
    have = {i for c in cells for i, s in c.sides.items() if s.values}
    return [i for i in ORDER if i in have] + sorted(have - set(ORDER))


def _color(impl: str) -> str:
    return COLORS.get(impl, "#7f7f7f")


def _by_size(cells: list[Cell], group: str, img: Path, name: str, ylabel: str) -> str | None:
    plt = _plt()
    fig, axes = plt.subplots(1, len(TRANSPORTS), figsize=(15, 4.6), sharey=False)
    drawn = False
    for ax, transport in zip(axes, TRANSPORTS, strict=True):
        for mode in ("sync", "async"):
            for impl in _impls(cells):
                xs, ys, lo, hi = [], [], [], []
                for c in cells:
                    s = c.scn
                    if (s["group"], s["transport"], s["mode"]) != (group, transport, mode):
                        continue
                    side = c.side(impl)
                    if side.median is None:
                        continue
                    xs.append(s["size"])
                    ys.append(side.median)
                    lo.append(side.median - min(side.values))
                    hi.append(max(side.values) - side.median)
                if not xs:
                    continue
                drawn = True
                label = f"{LABEL.get(impl, impl)} {'asyncio' if mode == 'async' else 'sync'}"
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lo, hi],
                    label=label,
                    color=_color(impl),
                    linestyle=STYLE[mode],
                    marker=MARK[mode],
                    capsize=3,
                    markersize=5,
                )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(list(SIZES), [size_label(x) for x in SIZES])
        ax.set_title(transport)
        ax.set_xlabel("message size")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(ylabel)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if not drawn:
        plt.close(fig)
        return None
    fig.suptitle(f"{ylabel} by message size (median of repetitions; bars: min-max)")
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(img / name, dpi=90)
    plt.close(fig)
    return name


def _fanout(cells: list[Cell], img: Path) -> str | None:
    rows = [c for c in cells if c.scn["group"] == "fanout"]
    if not rows:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    impls = _impls(rows)
    width = 0.8 / max(1, len(impls))
    for i, impl in enumerate(impls):
        xs = [j + (i - (len(impls) - 1) / 2) * width for j in range(len(rows))]
        ys = [c.side(impl).median or 0.0 for c in rows]
        ax.bar(xs, ys, width, label=LABEL.get(impl, impl), color=_color(impl))
    ax.set_xticks(range(len(rows)), [f"{c.scn['subs']} subscribers" for c in rows])
    ax.set_yscale("log")
    ax.set_ylabel("messages delivered / s (all subscribers)")
    ax.set_title(f"PUB/SUB fan-out over tcp, {rows[0].scn['size']} B messages")
    ax.legend()
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(img / "fanout.png", dpi=90)
    plt.close(fig)
    return "fanout.png"


def _stall(cells: list[Cell], img: Path) -> str | None:
    rows = [c for c in cells if c.scn["group"] == "mem_stall"]
    if not rows:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    cell = rows[0]
    for impl in _impls(rows):
        for k, r in enumerate(cell.side(impl).results):
            series = r.get("series") or []
            xs = [p[0] for p in series]
            ys = [(p[1] - r["rss_base_kib"]) / 1024 for p in series]
            label = LABEL.get(impl, impl) if k == 0 else None
            ax.plot(xs, ys, color=_color(impl), alpha=0.85, label=label)
    r0 = next((r for s in cell.sides.values() for r in s.results), None)
    if r0:
        ax.axhline(
            r0["hwm_bytes_kib"] / 1024,
            color="gray",
            linestyle=":",
            label=f"SNDHWM x size = {r0['hwm_bytes_kib'] / 1024:.1f} MiB",
        )
    ax.set_xlabel("messages sent (the subscriber reads none)")
    ax.set_ylabel("PUB RSS growth [MiB]")
    ax.set_title(f"PUB memory with a stalled subscriber, {cell.scn['size']} B messages")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(img / "stall_rss.png", dpi=90)
    plt.close(fig)
    return "stall_rss.png"


def draw(cells: list[Cell], img: Path) -> dict[str, str]:
    """Write the charts into `img`; returns {chart: file name} of those drawn."""
    img.mkdir(parents=True, exist_ok=True)
    made = {
        "throughput": _by_size(cells, "thr", img, "throughput_by_size.png", "messages / s"),
        "latency": _by_size(cells, "lat", img, "latency_by_size.png", "one-way latency [us]"),
        "fanout": _fanout(cells, img),
        "stall": _stall(cells, img),
    }
    return {k: v for k, v in made.items() if v}
