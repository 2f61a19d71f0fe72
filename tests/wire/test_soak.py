"""A short run of fuzz/soak.py (issue 12): hostile peers of seven kinds at
once against one ROUTER while healthy peers round-trip through it. The soak
asserts itself: every healthy round trip answered, descriptors released,
nothing logged above DEBUG. The long run is in docs/reliability.md."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def test_hostile_peer_soak() -> None:
    path = Path(__file__).resolve().parents[2] / "fuzz" / "soak.py"
    spec = importlib.util.spec_from_file_location("purezmq_fuzz_soak", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    result = module.soak(5.0, attackers=4, healthy=2)
    assert result["attacks"] > 0 and result["healthy_roundtrips"] > 0, result
