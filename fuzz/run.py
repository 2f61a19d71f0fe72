"""Run the fuzz targets of fuzz/targets.py for a while (issue 12).

    python fuzz/run.py                          # every target, 30 s each
    python fuzz/run.py --target curve-server --seconds 600 --seed 3
    python fuzz/run.py --target frames --atheris  # coverage-guided, if atheris installs

Without atheris, inputs come from a mutation loop over each target's seeds
and the inputs that found new behaviour before (bit flips, cuts, inserted
and duplicated spans, random bytes). A failing input is written to
``crash-<target>-<n>.bin`` and the run exits 1; ``--replay FILE`` runs one.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from targets import Target, all_targets


def mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        at = rng.randrange(len(out) + 1)
        if kind < 0.3 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif kind < 0.5:
            del out[at : at + rng.randint(1, 64)]
        elif kind < 0.7:
            out[at:at] = rng.randbytes(rng.randint(1, 32))
        elif kind < 0.85 and out:
            start = rng.randrange(len(out))
            out[at:at] = out[start : start + rng.randint(1, 128)]
        elif out:
            out[min(at, len(out) - 1)] = rng.choice((0, 1, 0x7F, 0x80, 0xFF))
    return bytes(out)


def fuzz(target: Target, seconds: float, rng: random.Random) -> int:
    """Mutation loop; returns the number of inputs run (raises on a finding)."""
    pool = list(target.seeds) or [b""]
    deadline = time.monotonic() + seconds
    count = 0
    while time.monotonic() < deadline:
        data = (
            rng.randbytes(rng.randint(0, 512))
            if rng.random() < 0.2
            else mutate(rng, rng.choice(pool))
        )
        try:
            target.run(data)
        except Exception:
            path = Path(f"crash-{target.name}-{count}.bin")
            path.write_bytes(data)
            print(f"{target.name}: failure after {count} inputs, saved to {path}")
            raise
        count += 1
        if len(pool) < 256 and rng.random() < 0.01:
            pool.append(data)
    return count


def main() -> int:
    targets = all_targets()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=sorted(targets), action="append")
    parser.add_argument("--seconds", type=float, default=30.0, help="per target")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--atheris", action="store_true", help="coverage-guided (one target)")
    parser.add_argument("--replay", type=Path)
    args = parser.parse_args()
    chosen = [targets[name] for name in (args.target or sorted(targets))]
    if args.replay is not None:
        chosen[0].run(args.replay.read_bytes())
        print("no failure")
        return 0
    if args.atheris:
        import atheris  # type: ignore[import-not-found,import-untyped,unused-ignore]

        target = chosen[0]
        # Coverage: instrument the Python code loaded so far (this checkout's
        # purezmq, which targets.py imports from src/: compiled modules are not
        # Python bytecode and give no coverage).
        atheris.instrument_all()
        corpus = Path(tempfile.mkdtemp(prefix=f"purezmq-corpus-{target.name}-"))
        for index, seed in enumerate(target.seeds):  # the valid inputs start the corpus
            (corpus / f"seed-{index}").write_bytes(seed)
        argv = [sys.argv[0], f"-max_total_time={int(args.seconds)}", str(corpus)]
        atheris.Setup(argv, target.run)
        atheris.Fuzz()
        return 0
    rng = random.Random(args.seed)
    failed = False
    for target in chosen:
        try:
            count = fuzz(target, args.seconds, rng)
        except Exception:
            traceback.print_exc()
            failed = True
            continue
        print(f"{target.name}: {count} inputs in {args.seconds:.0f} s, no failure")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
