"""A short run of every fuzz target in fuzz/targets.py (issue 12's standing
fuzz suite): hypothesis feeds each target random bytes and mutations of its
valid seeds; a target fails when anything but its allowed exception escapes.
The long runs (atheris where it installs, or fuzz/run.py's mutation loop)
are described in docs/reliability.md.

PUREZMQ_FUZZ_EXAMPLES raises the number of inputs per target (CI: 150).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("PUREZMQ_FUZZ_EXAMPLES", "150"))
FUZZ = Path(__file__).resolve().parents[2] / "fuzz"


def _targets_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("purezmq_fuzz_targets", FUZZ / "targets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


TARGETS = _targets_module().all_targets()
#: Targets whose dependencies this run installed (scripts/test.sh says which
#: extras in PUREZMQ_EXTRAS): missing under CI, they fail.
REQUIRED = {"greeting", "frames", "commands", "null", "plain-server", "plain-client"}
REQUIRED |= {"zap-reply", "z85", "curve-server", "curve-client", "pgm"}
_EXTRAS = set(os.environ.get("PUREZMQ_EXTRAS", "").split(","))
if _EXTRAS & {"journal", "spark"}:  # the extras that bring pyarrow
    REQUIRED.add("journal-segment")


@st.composite
def inputs(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """Random bytes, or a seed with a few random edits (flip, cut, insert)."""
    if not seeds or draw(st.booleans()):
        return draw(st.binary(max_size=2048))
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "cut", "insert", "byte"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=32))
        elif data:
            data[at] = draw(st.integers(0, 255))
    return bytes(data)


def test_every_target_is_here_under_ci() -> None:
    missing = REQUIRED - set(TARGETS)
    if missing and os.environ.get("CI") != "true":
        pytest.skip(f"targets without their dependencies here: {sorted(missing)}")
    assert not missing, f"fuzz targets missing (PyNaCl, pyarrow installed?): {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_target_raises_only_what_it_may(name: str) -> None:
    target = TARGETS[name]
    for seed in target.seeds:  # the seeds themselves must pass
        target.run(seed)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(inputs(target.seeds))
    def run(data: bytes) -> None:
        target.run(data)

    run()
