"""`_pgm` is sans-I/O: standard library and `_zmtp` only, no sockets,
threads, selectors, loops or clocks (time is passed in)."""

from __future__ import annotations

import ast
import pathlib

PKG = pathlib.Path(__file__).resolve().parents[3] / "src" / "purezmq" / "_pgm"
FORBIDDEN = {"socket", "select", "selectors", "threading", "asyncio", "time", "ssl", "random"}


def _imported(path: pathlib.Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


def test_pgm_is_sans_io() -> None:
    modules = sorted(PKG.glob("*.py"))
    assert len(modules) >= 5
    for path in modules:
        for name in _imported(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN, f"{path.name} imports {name}"
            if top == "purezmq":
                assert name.startswith(("purezmq._pgm", "purezmq._zmtp")), name


def test_checker_sees_imports() -> None:
    assert "socket" in _imported(pathlib.Path(__file__).parents[3] / "src/purezmq/_io/engine.py")
