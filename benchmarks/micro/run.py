"""The micro-benchmarks' one entry point (outside the pytest run).

    .venv/bin/python benchmarks/micro/run.py [--quick] [codec] [routing]

- ``codec``: the sans-I/O ZMTP codec - parsing frames out of a receive
  buffer (1/64/1024 B), encoding batches, and 1 MiB frames through a
  socketpair against a raw ``recv_into`` baseline (M msg/s, MB/s);
- ``routing``: lb, fq, dist, trie/mtrie matching and every socket pattern's
  send/recv, in ns per message through real pipes.

With no name, runs both. Numbers are best-of-N on this machine: compare a
change with its parent, run back to back, rather than with other machines.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import codec
import routing

SUITES = {"codec": codec.main, "routing": routing.main}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    flags = [a for a in args if a.startswith("-")]
    names = [a for a in args if not a.startswith("-")] or list(SUITES)
    unknown = [n for n in names if n not in SUITES]
    if unknown or any(f not in ("--quick",) for f in flags):
        print(__doc__)
        return 2
    for name in names:
        print(f"== {name} ==", flush=True)
        t0 = time.perf_counter()
        SUITES[name](flags)
        print(f"({name}: {time.perf_counter() - t0:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
