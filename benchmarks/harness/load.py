"""Background-load gating and accounting, as in the baseline note:

1. before a run, wait (up to ``max_wait`` s) until the whole machine is
   less than ``quiet`` busy over a 0.5 s window;
2. during the run, background load = (machine busy time - the benchmark's
   own CPU time) / (CPUs x wall time), from /proc/stat and the rusage of the
   runner and its children;
3. the runner re-runs an attempt whose background load is above a
   threshold (see run.py) and the summary keeps the least disturbed one.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
NCPU = os.cpu_count() or 1


def _stat() -> tuple[float, float, float]:
    """(busy, total, steal) seconds summed over all CPUs, from /proc/stat.

    busy is user + nice + system time. irq and softirq time are left out: the
    kernel charges loopback networking to softirq rather than to the process
    that caused it, so counting it would call the benchmark's own traffic
    background load (7 % of the CPU time of a 64 KiB tcp run here)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0, 0.0, 0.0
    fields += [0] * (8 - len(fields))
    user, nice, system, idle, iowait, irq, softirq, steal = fields[:8]
    busy = user + nice + system
    total = busy + idle + iowait + irq + softirq + steal
    return busy / _TICK, total / _TICK, steal / _TICK


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def busy_fraction(window: float = 0.25) -> float:
    b0, t0, _ = _stat()
    time.sleep(window)
    b1, t1, _ = _stat()
    return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0


def wait_quiet(quiet: float, max_wait: float) -> tuple[float, float]:
    """Wait until the machine is less than `quiet` busy: (waited s, last busy)."""
    start = time.monotonic()
    busy = busy_fraction()
    while busy >= quiet and time.monotonic() - start < max_wait:
        busy = busy_fraction()
    return time.monotonic() - start, busy


@dataclass
class Meter:
    """Measures one attempt: wall time, own CPU, background load, steal."""

    t0: float = 0.0
    busy0: float = 0.0
    steal0: float = 0.0
    own0: float = 0.0
    wall: float = 0.0
    own: float = 0.0
    background: float = 0.0
    steal: float = 0.0

    def start(self) -> None:
        self.busy0, _, self.steal0 = _stat()
        self.own0 = _own_cpu()
        self.t0 = time.monotonic()

    def stop(self) -> None:
        self.wall = time.monotonic() - self.t0
        busy, _, steal = _stat()
        self.own = _own_cpu() - self.own0
        cap = NCPU * self.wall if self.wall > 0 else 1.0
        self.background = max(0.0, (busy - self.busy0 - self.own) / cap)
        self.steal = max(0.0, (steal - self.steal0) / cap)

    def to_json(self) -> dict[str, float]:
        return {
            "wall_s": round(self.wall, 3),
            "own_cpu_s": round(self.own, 3),
            "background": round(self.background, 4),
            "steal": round(self.steal, 4),
        }


def loadavg() -> list[float]:
    try:
        return [float(x) for x in open("/proc/loadavg", encoding="ascii").read().split()[:3]]
    except OSError:
        return []
