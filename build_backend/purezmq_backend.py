"""purezmq's build backend: setuptools, asking for mypy only when it will compile.

The PEP 517/660 hooks are setuptools' own; only the wheel's build
requirements differ. mypy (whose mypyc compiles the hot modules, see
setup.py) is requested only when the wheel will be compiled: a pure build
(``PUREZMQ_PURE=1``) or a machine without a working C compiler needs
nothing beyond setuptools, so installing the sdist there works offline from
a mirror of setuptools alone, and never depends on mypy's own compiled
dependencies having a wheel for the platform.

setup.py imports this module for the same decision (`compile_wanted`), so
the two cannot disagree.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # the hooks that need no change
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "MYPY_REQUIREMENT",
    "build_editable",
    "build_sdist",
    "build_wheel",
    "compile_wanted",
    "compiler_works",
    "flag",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

#: The compiler's version is pinned: mypyc's output (and what it accepts)
#: changes between releases, and the compiled build is tested with this one.
MYPY_REQUIREMENT = "mypy==2.4.1"


def flag(name: str) -> bool:
    """Is the environment variable `name` set to a true value?"""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def note(message: str) -> None:
    print(f"purezmq build: {message}", file=sys.stderr)


def compiler_works() -> bool:
    """Can the compiler setuptools would use build a Python extension here?

    Compiles a trivial file that includes Python.h with the same compiler
    object, flags and include directories as build_ext, so a missing
    compiler, a broken ``CC`` and missing Python headers all count as "no".
    """
    try:
        from setuptools import Distribution
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler
        from setuptools.command.build_ext import build_ext

        cmd = build_ext(Distribution())
        cmd.finalize_options()
        compiler = new_compiler(compiler=cmd.compiler, force=True)
        customize_compiler(compiler)
        with tempfile.TemporaryDirectory(prefix="purezmq-cc-") as tmp:
            source = Path(tmp, "probe.c")
            source.write_text(
                "#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n"
                "int purezmq_probe(void) { return (int)sizeof(PyObject); }\n"
            )
            compiler.compile([str(source)], output_dir=tmp, include_dirs=cmd.include_dirs)
    except Exception as exc:  # any failure at all means "build pure"
        note(f"no usable C compiler ({type(exc).__name__}: {exc}); building pure Python")
        return False
    return True


def compile_wanted() -> bool:
    """Should this build compile the hot modules? (Prints why not.)"""
    if flag("PUREZMQ_PURE"):
        note("PUREZMQ_PURE is set: building pure Python")
        return False
    if compiler_works():
        return True
    if flag("PUREZMQ_REQUIRE_COMPILED"):
        sys.exit("purezmq build: PUREZMQ_REQUIRE_COMPILED is set but no C compiler works")
    return False


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires: list[str] = _setuptools.get_requires_for_build_wheel(config_settings)
    if compile_wanted():
        requires.append(MYPY_REQUIREMENT)
    return requires
