"""The implementations a run compares, and where each one runs from.

Three columns: the two builds of purezmq - **pure** (Python source) and
**compiled** (the hot modules compiled by mypyc) - and **pyzmq** (libzmq).
Each purezmq build is a separate install in its own virtualenv (see
scripts/bench.sh), so the harness runs its processes with that venv's
Python. pyzmq runs from one of them.

A compile that fails installs the pure build without an error, so a venv
called "compiled" proves nothing: the harness asks each Python what it has
(``probe``) before the run and refuses a build whose ``purezmq.COMPILED``
is not what its name says (``refusal``); every perf process reports the
flag again and an attempt that disagrees is recorded as failed
(``attempt_refusal``), so no pure number is ever filed under "compiled".

Results written before the compiled build existed have one purezmq
implementation, ``purezmq``; it is kept as its own label (``LEGACY``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PURE, COMPILED, PYZMQ, LEGACY = "pure", "compiled", "zmq", "purezmq"
#: Column order on the page: purezmq builds first, pyzmq last.
ORDER = (PURE, COMPILED, LEGACY, PYZMQ)
LABEL = {PURE: "pure", COMPILED: "compiled", PYZMQ: "pyzmq", LEGACY: "purezmq"}
#: The module each implementation's perf tools import (``--impl``).
TOOL_IMPL = {PURE: "purezmq", COMPILED: "purezmq", LEGACY: "purezmq", PYZMQ: "zmq"}
#: What ``purezmq.COMPILED`` must be in a process measuring this build.
EXPECT_COMPILED = {PURE: False, COMPILED: True}
#: The virtualenvs scripts/bench.sh makes (non-editable installs).
DEFAULT_VENV = {COMPILED: ROOT / ".venv-bench", PURE: ROOT / ".venv-bench-pure"}
#: The file scripts/bench.sh leaves in a venv: the digest of the source it installed.
STAMP = ".purezmq-bench-installed"

_PROBE = r"""
import hashlib, json, os, sys
from pathlib import Path
out = {"python": sys.executable, "prefix": sys.prefix,
       "version": sys.version.split()[0]}
try:
    import purezmq
except Exception as e:
    out["error"] = f"import purezmq: {e!r}"
else:
    pkg = Path(purezmq.__file__).resolve().parent
    out["compiled"] = bool(getattr(purezmq, "COMPILED", False))
    out["purezmq"] = str(getattr(purezmq, "__version__", "?"))
    out["location"] = str(pkg)
    ext = (".so", ".pyd")
    out["compiled_modules"] = sorted(
        str(p.relative_to(pkg.parent)) for p in pkg.rglob("*") if p.suffix in ext)
    # mypyc puts its shared runtime beside the package, not inside it.
    out["compiled_modules"] += sorted(
        p.name for p in pkg.parent.glob("*__mypyc*") if p.suffix in ext)
    digest = hashlib.sha256()
    files = sorted(p for p in pkg.rglob("*.py") if "__pycache__" not in p.parts)
    for f in files:
        digest.update(str(f.relative_to(pkg)).encode() + b"\0" + f.read_bytes())
    out["source_sha256"] = digest.hexdigest()[:16]
    out["source_files"] = len(files)
    out["editable"] = not str(pkg).startswith(os.path.realpath(sys.prefix))
    stamp = Path(sys.prefix) / STAMP
    out["installed_from"] = stamp.read_text().strip() if stamp.exists() else None
try:
    import zmq
    out["pyzmq"] = zmq.pyzmq_version()
    out["libzmq"] = zmq.zmq_version()
except Exception:
    out["pyzmq"] = None
print(json.dumps(out))
""".replace("STAMP", repr(STAMP))


@dataclass
class Build:
    """One implementation of the run: its name and the Python it runs with."""

    name: str
    python: str

    @property
    def label(self) -> str:
        return LABEL.get(self.name, self.name)

    @property
    def tool_impl(self) -> str:
        return TOOL_IMPL[self.name]


def default_python(name: str) -> str:
    """The Python of `name` when none is given on the command line: the venv
    scripts/bench.sh makes for a purezmq build, the runner's own for pyzmq."""
    venv = DEFAULT_VENV.get(name)
    # normpath, not resolve(): a venv's python is a symlink out of the venv.
    return str(venv / "bin" / "python") if venv else os.path.normpath(sys.executable)


def probe(python: str, timeout: float = 60.0) -> dict[str, Any]:
    """What `python` has: purezmq's build (COMPILED, compiled modules, a
    digest of its .py files, editable or not) and pyzmq's version."""
    if not Path(python).exists():
        return {"python": python, "error": f"{python} does not exist"}
    try:
        out = subprocess.run(
            [python, "-c", _PROBE], capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError) as e:
        return {"python": python, "error": f"cannot run {python}: {e}"}
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {"python": python, "error": f"probe failed: {out.stderr.strip()[-500:]}"}
    data: dict[str, Any] = json.loads(lines[-1])
    return data


def refusal(name: str, info: dict[str, Any]) -> str | None:
    """Why `name` cannot be measured with the Python `info` describes, or None."""
    if info.get("error"):
        return str(info["error"])
    if name == PYZMQ:
        return None if info.get("pyzmq") else f"pyzmq is not installed in {info['python']}"
    want = EXPECT_COMPILED.get(name)
    if want is not None and info.get("compiled") is not want:
        if want:
            return (
                f"purezmq.COMPILED is False in {info['python']}: that venv has the pure build "
                "(the compile failed or found no C compiler: scripts/bench.sh prints the "
                "build's notes, the whole log is purezmq-build.log in the venv), so it is not "
                "measured as 'compiled'"
            )
        return f"purezmq.COMPILED is True in {info['python']}: not the pure build"
    return None


def attempt_refusal(name: str, flags: dict[str, Any]) -> str | None:
    """Why an attempt of `name` cannot be kept: a process of it reported a
    ``purezmq_compiled`` other than the build's (a venv changed under the
    run, or a wrong Python). `flags`: process name -> reported flag."""
    want = EXPECT_COMPILED.get(name)
    if want is None:
        return None
    wrong = {p: f for p, f in flags.items() if bool(f) is not want}
    if not wrong:
        return None
    said = ", ".join(f"{p}: {f}" for p, f in sorted(wrong.items()))
    return f"refused: a '{name}' attempt whose processes report purezmq.COMPILED {said}"


def same_source(infos: dict[str, dict[str, Any]]) -> str | None:
    """A warning when the purezmq builds were not installed from one source."""
    digests = {
        n: i.get("source_sha256") for n, i in infos.items() if n != PYZMQ and not i.get("error")
    }
    if len(set(digests.values())) <= 1:
        return None
    listed = ", ".join(f"{n} {d}" for n, d in sorted(digests.items()))
    return f"the purezmq builds have different .py sources ({listed}): not one version of the code"


def add_arguments(p: argparse.ArgumentParser, default: str) -> None:
    """``--impls`` and ``--python-<build>``, shared by run.py and profile_cell.py."""
    p.add_argument(
        "--impls",
        default=default,
        help=f"implementations: pure, compiled, zmq (pyzmq); default {default}",
    )
    for name, what in (
        (PURE, "the pure build (default ./.venv-bench-pure/bin/python)"),
        (COMPILED, "the compiled build (default ./.venv-bench/bin/python)"),
        ("pyzmq", "pyzmq (default: the Python running this script)"),
    ):
        p.add_argument(f"--python-{name}", metavar="PYTHON", help=f"the Python of {what}")


def chosen_names(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check ``--impls``; set ``args.impl_list`` and ``args.pythons``."""
    args.impl_list = [i.strip() for i in args.impls.split(",") if i.strip()]
    unknown = [i for i in args.impl_list if i not in (PURE, COMPILED, PYZMQ)]
    if unknown or not args.impl_list:
        p.error(f"--impls: unknown {', '.join(unknown)} (pure, compiled, zmq)")
    args.pythons = {
        PURE: args.python_pure,
        COMPILED: args.python_compiled,
        PYZMQ: args.python_pyzmq,
    }


def resolve(
    names: list[str], pythons: dict[str, str | None], tag: str
) -> tuple[list[Build], dict[str, dict[str, Any]], list[str]]:
    """(builds to measure, what each asked-for build is, warnings).

    Each build's Python is probed; a refused build is said on stderr (with
    `tag`) and left out, its reason kept for the results."""
    chosen, info = [], {}
    for name in names:
        python = pythons.get(name) or default_python(name)
        found = probe(python)
        why = refusal(name, found)
        info[name] = {"python": python, "probe": found, "refused": why}
        if why:
            print(f"{tag} NOT MEASURING {LABEL[name]}: {why}", file=sys.stderr, flush=True)
            continue
        mods = len(found.get("compiled_modules") or [])
        what = (
            f"pyzmq {found.get('pyzmq')}"
            if name == PYZMQ
            else f"purezmq.COMPILED={found.get('compiled')}, {mods} extension modules, "
            f".py sha256 {found.get('source_sha256')}"
        )
        print(f"{tag} {LABEL[name]:<8} {python}: {what}", flush=True)
        chosen.append(Build(name, python))
    warnings = []
    same = same_source({n: i["probe"] for n, i in info.items() if not i["refused"]})
    if same:
        warnings.append(same)
        print(f"{tag} WARNING: {same}", file=sys.stderr, flush=True)
    return chosen, info, warnings
