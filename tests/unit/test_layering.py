"""The layering rules of docs/design.md, checked on the source itself."""

from __future__ import annotations

import ast
import pathlib

import pytest

PKG = pathlib.Path(__file__).resolve().parents[2] / "src" / "purezmq"

#: Modules the sans-I/O layers must never import (I/O, threads, clocks, loops).
FORBIDDEN_IN_PURE = {"socket", "select", "selectors", "threading", "asyncio", "time", "ssl"}


def _imports(path: pathlib.Path) -> list[str]:
    """Absolute names of every module `path` imports (relative ones resolved)."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PKG.parent).with_suffix("")
    package = list(rel.parts[:-1])  # a module and an __init__ both live in their folder
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.append(mod)
            names.extend(f"{mod}.{a.name}" for a in node.names)
    return names


def _modules(sub: str) -> list[pathlib.Path]:
    return sorted((PKG / sub).rglob("*.py"))


@pytest.mark.parametrize("layer", ["_zmtp", "_routing"])
def test_pure_layers_import_only_stdlib_and_themselves(layer: str) -> None:
    for path in _modules(layer):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN_IN_PURE, f"{path}: imports {name}"
            if top == "purezmq":
                assert name.startswith(f"purezmq.{layer}"), f"{path}: imports {name}"


def test_core_never_imports_a_driver() -> None:
    for path in _modules("_core"):
        for name in _imports(path):
            assert not name.startswith("purezmq._io"), f"{path}: imports {name}"
            assert not name.startswith("purezmq.sugar"), f"{path}: imports {name}"


def test_drivers_do_not_import_each_other_or_the_facade() -> None:
    """_io/threaded and _io/aio are two reactors for the shared engine in _io/:
    neither imports the other, and the shared modules import neither."""
    for path in _modules("_io"):
        parts = path.relative_to(PKG / "_io").parts
        own = parts[0] if len(parts) > 1 else None
        for name in _imports(path):
            assert not name.startswith("purezmq.sugar"), f"{path}: imports {name}"
            assert not name.startswith("purezmq.asyncio"), f"{path}: imports {name}"
            for driver in ("threaded", "aio"):
                if own != driver:
                    assert not name.startswith(f"purezmq._io.{driver}"), f"{path}: imports {name}"


def test_routing_and_zmtp_do_not_know_each_other() -> None:
    for path in _modules("_routing"):
        assert not any(n.startswith("purezmq._zmtp") for n in _imports(path)), path
    for path in _modules("_zmtp"):
        assert not any(n.startswith("purezmq._routing") for n in _imports(path)), path


def test_the_checker_sees_imports() -> None:
    """Guard against a checker that passes because it parses nothing."""
    names = _imports(PKG / "_core" / "socket_core.py")
    assert "purezmq._routing.pipe" in names
    assert any(n.startswith("purezmq._zmtp") for n in names)
