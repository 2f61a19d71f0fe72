"""`purezmq.COMPILED` tells the truth, and the build under test is the one asked for.

The test scripts set ``PUREZMQ_EXPECT_COMPILED`` (1 for the compiled run, 0
for the pure one), so a wrong build - a compiled install that silently fell
back to pure Python, or tests importing the sources instead of the
installed package - fails here loudly instead of passing unnoticed.
"""

from __future__ import annotations

import ast
import importlib
import os
import pathlib
import types
from importlib.machinery import EXTENSION_SUFFIXES

import pytest

import purezmq
from purezmq import _build

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _compiled_modules() -> list[str]:
    """The module names listed in setup.py's COMPILED_MODULES (read, not run)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets
        ):
            paths = ast.literal_eval(node.value)
            return ["purezmq." + p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED_MODULES list")


def _compiled_classes() -> dict[str, str]:
    """Class name -> module, for the classes mypyc compiles as native classes
    that interpreted code may not subclass (Protocols and Enums excepted, and
    classes marked ``mypyc_attr(allow_interpreted_subclasses=True)``)."""
    found = {}
    for name in _compiled_modules():
        path = ROOT / "src" / (name.replace(".", "/") + ".py")
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {ast.unparse(b).split("[")[0].split(".")[-1] for b in node.bases}
            if bases & {"Protocol", "Enum", "IntEnum"}:
                continue
            if not _open_to_interpreted_subclasses(node):
                found[node.name] = name
    return found


def _open_to_interpreted_subclasses(node: ast.ClassDef) -> bool:
    return any(
        isinstance(d, ast.Call)
        and ast.unparse(d.func).endswith("mypyc_attr")
        and any(
            k.arg == "allow_interpreted_subclasses"
            and isinstance(k.value, ast.Constant)
            and k.value.value is True
            for k in d.keywords
        )
        for d in node.decorator_list
    )


def _expected() -> bool | None:
    value = os.environ.get("PUREZMQ_EXPECT_COMPILED")
    return None if value is None else value.strip() not in ("", "0")


def test_is_extension_tells_files_apart() -> None:
    ext = types.ModuleType("fake_ext")
    ext.__file__ = "/x/fake_ext" + EXTENSION_SUFFIXES[0]
    src = types.ModuleType("fake_src")
    src.__file__ = "/x/fake_src.py"
    assert _build.is_extension(ext)
    assert not _build.is_extension(src)
    assert not _build.is_extension(types.ModuleType("no_file"))


def test_compiled_matches_every_listed_module() -> None:
    """COMPILED is True exactly when every module setup.py compiles was
    imported as an extension module (no half-compiled install)."""
    names = _compiled_modules()
    assert "purezmq._routing.pipe" in names and "purezmq._zmtp.connection" in names
    loaded = {name: _build.is_extension(importlib.import_module(name)) for name in names}
    if purezmq.COMPILED:
        assert all(loaded.values()), [n for n, ext in loaded.items() if not ext]
    else:
        assert not any(loaded.values()), [n for n, ext in loaded.items() if ext]
    assert isinstance(purezmq.COMPILED, bool)


def test_no_interpreted_subclass_of_a_compiled_class() -> None:
    """Interpreted code cannot subclass a compiled class: instantiating the
    subclass fails at run time, in the compiled build only (an interpreted
    exception subclass of a compiled one did). Checked on the source, so
    the pure run catches it too."""
    compiled = _compiled_classes()
    assert "Pipe" in compiled and "LoadBalancer" in compiled  # the scan sees classes
    compiled_files = {ROOT / "src" / (m.replace(".", "/") + ".py") for m in _compiled_modules()}
    offenders = []
    for top in ("src", "tests", "benchmarks", "examples", "fuzz"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path in compiled_files:  # compiled together: subclassing is fine
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef):
                    for base in node.bases:
                        base_name = ast.unparse(base).split("[")[0].split(".")[-1]
                        if base_name in compiled:
                            rel = path.relative_to(ROOT)
                            offenders.append(f"{rel}: {node.name}({base_name})")
    assert not offenders, offenders


#: Parameter types mypyc passes unboxed with a "given" bitmap when they have
#: a default (int, bool and objects use an error value instead).
_BITMAP_TYPES = {"float", "i64", "i32", "i16", "u8"}


def test_no_unboxed_default_in_a_class_open_to_interpreted_subclasses() -> None:
    """A compiled class that interpreted code may subclass calls its methods
    through glue when the object is an interpreted subclass, and mypyc's glue
    ignores the bitmap that says a float (or fixed-width int) argument was
    left to its default: it passes 0.0 instead. `StreamDriver.run_and_wait`'s
    `timeout: float = 5.0` became a wait of 0 s in the compiled build, and
    close() returned before its listener was closed."""
    offenders = []
    for name in _compiled_modules():
        path = ROOT / "src" / (name.replace(".", "/") + ".py")
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef) or not _open_to_interpreted_subclasses(node):
                continue
            for fn in node.body:
                if not isinstance(fn, ast.FunctionDef):
                    continue
                args = fn.args
                positional = args.posonlyargs + args.args
                defaulted = positional[len(positional) - len(args.defaults) :] + [
                    a
                    for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                    if d is not None
                ]
                for a in defaulted:
                    if a.annotation is not None and ast.unparse(a.annotation) in _BITMAP_TYPES:
                        offenders.append(f"{name}.{node.name}.{fn.name}({a.arg})")
    assert not offenders, offenders


def test_the_build_under_test_is_the_one_asked_for() -> None:
    expected = _expected()
    if expected is None:
        pytest.skip("PUREZMQ_EXPECT_COMPILED is not set (scripts/test.sh sets it)")
    assert purezmq.COMPILED is expected, (
        f"PUREZMQ_EXPECT_COMPILED={os.environ['PUREZMQ_EXPECT_COMPILED']} but "
        f"purezmq.COMPILED is {purezmq.COMPILED} ({purezmq._routing.pipe.__file__})"
    )


def test_tests_import_the_installed_package() -> None:
    """With the scripts' installs, purezmq comes from the virtualenv, not src/
    (an editable or path install would test the sources, not the build)."""
    if _expected() is None:
        pytest.skip("PUREZMQ_EXPECT_COMPILED is not set (scripts/test.sh sets it)")
    package = pathlib.Path(purezmq.__file__).resolve().parent
    assert not package.is_relative_to(ROOT / "src"), package
