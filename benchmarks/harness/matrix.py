"""The benchmark matrix: every scenario, its message counts, and filters.

Counts are the same for every implementation (a rate does not depend on
the count once the run is long enough, and equal counts keep the runs
alike). They aim at about 1 s of timed work for the slower side on an idle
2-core machine; ``--quick`` divides them by 10.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

SIZES = (1, 64, 1024, 65536, 1048576)
TRANSPORTS = ("tcp", "ipc", "inproc")
FANOUT_SUBS = (1, 10, 100)
FANOUT_SIZE = 64
#: SUB sockets per subscriber process in the fan-out (processes = ceil(K / this)).
SUBS_PER_PROC = 25
IDLE_CONNECTIONS = 1000
STALL_SIZE = 4096
STALL_COUNT = 200_000
#: Connection set-up: sequential set-ups (socket, connect, 1 B round trip,
#: close) timed one by one, untimed ones before them, and the connections
#: then opened all at once for the connects-per-second figure - no more than
#: the listen backlog (ZMQ_BACKLOG, 100 by default on both sides): beyond it
#: the kernel drops SYNs and a connect waits a second for its retry.
CONN_TRANSPORTS = ("tcp", "ipc")
CONN_COUNT = 1000
CONN_WARMUP = 50
CONN_BURST = 100
CONN_SIZE = 1

_THR = {
    ("sync", "net"): {1: 1_000_000, 64: 1_000_000, 1024: 500_000, 65536: 30_000, 1048576: 3_000},
    ("sync", "inproc"): {
        1: 1_000_000,
        64: 1_000_000,
        1024: 1_000_000,
        65536: 100_000,
        1048576: 20_000,
    },
    ("async", "net"): {1: 100_000, 64: 100_000, 1024: 100_000, 65536: 20_000, 1048576: 2_000},
    ("async", "inproc"): {1: 100_000, 64: 100_000, 1024: 100_000, 65536: 20_000, 1048576: 2_000},
}
_LAT = {
    ("sync", "net"): {1: 10_000, 64: 10_000, 1024: 10_000, 65536: 5_000, 1048576: 1_000},
    ("sync", "inproc"): {1: 20_000, 64: 20_000, 1024: 20_000, 65536: 10_000, 1048576: 2_000},
    ("async", "net"): {1: 5_000, 64: 5_000, 1024: 5_000, 65536: 3_000, 1048576: 1_000},
    ("async", "inproc"): {1: 5_000, 64: 5_000, 1024: 5_000, 65536: 3_000, 1048576: 1_000},
}
_FANOUT = {1: 500_000, 10: 100_000, 100: 10_000}


@dataclass(frozen=True)
class Scenario:
    """One cell of the matrix, run once per implementation per repetition."""

    group: str  # thr | lat | fanout | conn | mem_idle | mem_stall
    mode: str = "sync"  # sync | async
    transport: str = "tcp"
    size: int = 0
    count: int = 0
    subs: int = 0
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def key(self) -> str:
        if self.group == "fanout":
            return f"fanout/{self.mode}/{self.transport}/{self.size}/subs{self.subs}"
        if self.group == "mem_idle":
            return f"mem_idle/{self.transport}/{self.extra['connections']}"
        if self.group == "mem_stall":
            return f"mem_stall/{self.transport}/{self.size}"
        if self.group == "conn":
            return f"conn/{self.transport}"
        return f"{self.group}/{self.mode}/{self.transport}/{self.size}"

    @property
    def warmup(self) -> int:
        """Untimed round trips before a latency run (libzmq uses 1000).

        ``extra["warmup"]`` fixes it: profile_cell.py subtracts a short run
        from a long one, and equal warm-ups cancel out."""
        if "warmup" in self.extra:
            return int(self.extra["warmup"])
        return min(1000, max(10, self.count // 5))

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "group": self.group,
            "mode": self.mode,
            "transport": self.transport,
            "size": self.size,
            "count": self.count,
            "subs": self.subs,
            **self.extra,
        }


def size_label(size: int) -> str:
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return f"{size >> 20} MiB"
    if size >= 1024 and size % 1024 == 0:
        return f"{size >> 10} KiB"
    return f"{size} B"


def parse_size(token: str) -> int | None:
    t = token.strip().lower().replace(" ", "")
    for suffix, mult in (("mib", 1 << 20), ("kib", 1024), ("m", 1 << 20), ("k", 1024)):
        if t.endswith(suffix) and t[: -len(suffix)].isdigit():
            return int(t[: -len(suffix)]) * mult
    if t.endswith("b") and t[:-1].isdigit():
        return int(t[:-1])
    return int(t) if t.isdigit() else None


def build(quick: bool = False) -> list[Scenario]:
    """Every scenario, in the order a repetition runs them."""
    scale = 10 if quick else 1
    out: list[Scenario] = []
    for group, table in (("thr", _THR), ("lat", _LAT)):
        for mode in ("sync", "async"):
            for transport in TRANSPORTS:
                counts = table[(mode, "inproc" if transport == "inproc" else "net")]
                for size in SIZES:
                    count = max(200 if group == "lat" else 1000, counts[size] // scale)
                    if group == "thr" and size >= 1 << 20:
                        count = max(200, counts[size] // scale)
                    out.append(Scenario(group, mode, transport, size, count))
    for subs in FANOUT_SUBS:
        count = max(200, _FANOUT[subs] // scale)
        out.append(Scenario("fanout", "sync", "tcp", FANOUT_SIZE, count, subs))
    for transport in CONN_TRANSPORTS:
        burst = max(20, CONN_BURST // scale)
        extra = {"warmup": CONN_WARMUP, "burst": burst}
        out.append(Scenario("conn", "sync", transport, CONN_SIZE, CONN_COUNT // scale, extra=extra))
    out.append(Scenario("mem_idle", extra={"connections": IDLE_CONNECTIONS}))
    out.append(Scenario("mem_stall", size=STALL_SIZE, count=STALL_COUNT // (2 if quick else 1)))
    return out


_GROUP_ALIASES = {
    "thr": "thr",
    "throughput": "thr",
    "lat": "lat",
    "latency": "lat",
    "fanout": "fanout",
    "fan-out": "fanout",
    "pubsub": "fanout",
    "conn": "conn",
    "connect": "conn",
    "setup": "conn",
    "mem": "mem",
    "memory": "mem",
    "idle": "mem_idle",
    "stall": "mem_stall",
}


def select(scenarios: Iterable[Scenario], only: str | None) -> list[Scenario]:
    """Keep the scenarios matching ``--only``: comma-separated tokens; tokens
    of one kind (transport, size, group, mode, subscribers) are alternatives,
    kinds must all match. ``tcp,64`` = tcp at 64 B; ``tcp,ipc,lat`` = latency
    over tcp or ipc; ``fanout,subs=100``; ``conn,ipc``; ``mem``; ``async,1k``."""
    scenarios = list(scenarios)
    if not only:
        return scenarios
    want: dict[str, set[Any]] = {}
    for raw in only.split(","):
        tok = raw.strip().lower()
        if not tok:
            continue
        if tok in TRANSPORTS:
            want.setdefault("transport", set()).add(tok)
        elif tok in ("sync", "async"):
            want.setdefault("mode", set()).add(tok)
        elif tok in _GROUP_ALIASES:
            want.setdefault("group", set()).add(_GROUP_ALIASES[tok])
        elif tok.startswith("subs") and tok.removeprefix("subs").lstrip("=").isdigit():
            want.setdefault("subs", set()).add(int(tok.removeprefix("subs").lstrip("=")))
        elif (size := parse_size(tok)) is not None:
            want.setdefault("size", set()).add(size)
        else:
            raise ValueError(f"--only: unknown token {raw!r}")

    def ok(s: Scenario) -> bool:
        for dim, values in want.items():
            if dim == "group":
                group = {s.group, "mem"} if s.group.startswith("mem") else {s.group}
                if not group & values:
                    return False
            elif getattr(s, dim) not in values:
                return False
        return True

    return [s for s in scenarios if ok(s)]
