"""purezmq as a user installs it: the sdist, the compiled wheel and the pure
wheel, each installed into a clean virtualenv outside the checkout, where a
tiny PUSH/PULL and REQ/REP over tcp must run on the build that was asked for.

The sdist is built once for the module and each wheel is built from it, as
``python -m build`` does; wheels are built by pip with build isolation, so
the build requirements come from the registry exactly as for a user. Slow
(mypyc compiles for about half a minute).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
#: What a build needs from the checkout (the rest of it is not packaged).
BUILD_INPUTS = [
    "src",
    "build_backend",
    "setup.py",
    "pyproject.toml",
    "MANIFEST.in",
    "README.md",
    "LICENSE",
]

SMOKE = r"""
import sys
import purezmq as zmq

want = sys.argv[1] == "1"
assert zmq.COMPILED is want, f"COMPILED is {zmq.COMPILED}, wanted {want}"
ctx = zmq.Context()
try:
    pull = ctx.socket(zmq.PULL)
    pull.rcvtimeo = 20000
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    push = ctx.socket(zmq.PUSH)
    push.connect(f"tcp://127.0.0.1:{port}")
    push.send_multipart([b"a", b"bc"])
    assert pull.recv_multipart() == [b"a", b"bc"]

    rep = ctx.socket(zmq.REP)
    rep.rcvtimeo = 20000
    port = rep.bind_to_random_port("tcp://127.0.0.1")
    req = ctx.socket(zmq.REQ)
    req.rcvtimeo = 20000
    req.connect(f"tcp://127.0.0.1:{port}")
    for i in range(3):
        req.send(b"ping %d" % i)
        assert rep.recv() == b"ping %d" % i
        rep.send(b"pong %d" % i)
        assert req.recv() == b"pong %d" % i
finally:
    ctx.destroy(linger=0)
print(zmq.__file__)
"""


def _env(**extra: str) -> dict[str, str]:
    """This environment without anything that would steer a build or an
    import toward the checkout or the build under test (pip's own settings,
    such as where to find packages, are kept)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PUREZMQ_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(extra)
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc


def _pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]


def _venv(where: Path) -> Path:
    """A clean virtualenv (no pip of its own: this interpreter's pip installs
    into it); returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def _smoke(python: Path, cwd: Path, compiled: bool) -> str:
    """Run SMOKE with `python` from `cwd` (outside the checkout, isolated
    mode: neither the current directory nor PYTHONPATH is on sys.path)."""
    out = _run([str(python), "-I", "-c", SMOKE, "1" if compiled else "0"], cwd, _env())
    location = Path(out.stdout.strip().splitlines()[-1]).resolve()
    assert location.is_relative_to(python.parent.parent), location
    return str(location)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("packaging")
    assert not path.resolve().is_relative_to(ROOT)
    return path


@pytest.fixture(scope="module")
def sdist(work: Path) -> Path:
    """The sdist, made by the project's build backend from a copy of the
    checkout's build inputs (the checkout itself is left untouched)."""
    tree = work / "tree"
    tree.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so", "*.pyc")
    for name in BUILD_INPUTS:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, tree / name, ignore=ignore)
        else:
            shutil.copy2(src, tree / name)
    dist = work / "sdist"
    dist.mkdir()
    hook = "import sys, purezmq_backend as b; print(b.build_sdist(sys.argv[1]))"
    out = _run([sys.executable, "-c", hook, str(dist)], tree, _env(PYTHONPATH="build_backend"))
    return dist / out.stdout.strip().splitlines()[-1]


def _wheel(sdist: Path, out: Path, env: dict[str, str]) -> Path:
    out.mkdir()
    _run(_pip("wheel", "--no-deps", "-w", str(out), str(sdist)), out, env)
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def compiled_wheel(sdist: Path, work: Path) -> Path:
    return _wheel(sdist, work / "compiled", _env())


@pytest.fixture(scope="module")
def pure_wheel(sdist: Path, work: Path) -> Path:
    return _wheel(sdist, work / "pure", _env(PUREZMQ_PURE="1"))


def _compiled_module_paths() -> list[str]:
    """setup.py's COMPILED_MODULES (read, not run), as paths in a wheel."""
    from tests.unit.test_build import _compiled_modules

    return [name.replace(".", "/") for name in _compiled_modules()]


def test_sdist_carries_the_sources_and_the_backend_only(sdist: Path) -> None:
    import tarfile

    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    for needed in (
        "setup.py",
        "pyproject.toml",
        "build_backend/purezmq_backend.py",
        "src/purezmq/_routing/pipe.py",
        "src/purezmq/py.typed",
    ):
        assert needed in names, needed
    assert not [n for n in names if n.endswith((".c", ".h", ".so", ".pyc"))]


def test_compiled_wheel_installs_and_runs_compiled(compiled_wheel: Path, work: Path) -> None:
    assert "-cp3" in compiled_wheel.name and not compiled_wheel.name.endswith("-none-any.whl")
    with zipfile.ZipFile(compiled_wheel) as zf:
        names = zf.namelist()
    for module in _compiled_module_paths():
        assert f"{module}.py" in names, module  # the source ships too
        assert any(n.startswith(module + ".") and n.endswith(".so") for n in names), module
    assert not [n for n in names if n.endswith((".c", ".h"))]
    python = _venv(work / "venv-compiled")
    _run(_pip("--python", str(python), "install", "--no-deps", str(compiled_wheel)), work, _env())
    _smoke(python, work, compiled=True)


def test_pure_wheel_installs_and_runs_pure(pure_wheel: Path, work: Path) -> None:
    assert pure_wheel.name.endswith("-py3-none-any.whl"), pure_wheel.name
    with zipfile.ZipFile(pure_wheel) as zf:
        assert not [n for n in zf.namelist() if n.endswith(".so")]
    python = _venv(work / "venv-pure")
    _run(_pip("--python", str(python), "install", "--no-deps", str(pure_wheel)), work, _env())
    _smoke(python, work, compiled=False)


def test_sdist_without_a_compiler_installs_pure(sdist: Path, work: Path) -> None:
    """No working C compiler: the sdist still installs, pure, without error,
    and without asking for mypy (only setuptools is needed to build it)."""
    python = _venv(work / "venv-nocc")
    no_cc = _env(CC="/bin/false", CXX="/bin/false", LDSHARED="/bin/false", CPP="/bin/false")
    proc = _run(
        _pip("--python", str(python), "install", "-v", "--no-deps", str(sdist)), work, no_cc
    )
    log = proc.stdout + proc.stderr
    assert "no usable C compiler" in log
    # What pip fetched and installed: the build environment's packages, then purezmq.
    fetched = " ".join(
        re.findall(r"^\s*(?:Collecting|Processing|Installing collected packages:)(.*)$", log, re.M)
    )
    assert "setuptools" in fetched and "mypy" not in fetched, fetched
    _smoke(python, work, compiled=False)


def test_the_tutorial_runs_from_the_installed_wheel(compiled_wheel: Path, work: Path) -> None:
    """What a user does after `pip install purezmq-*.whl`: the tutorial's
    programs and its shell session (the installed `purezmq` command), copied
    outside the checkout, print what docs/tutorial.md shows."""
    from tests.tutorial.test_tutorial import _blocks

    venv = work / "venv-tutorial"
    python = _venv(venv)
    _run(_pip("--python", str(python), "install", "--no-deps", str(compiled_wheel)), work, _env())
    here = work / "user"
    shutil.copytree(ROOT / "examples" / "tutorial", here / "examples" / "tutorial")
    env = _env()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    outputs = _blocks("output")
    assert outputs
    for path, shown in sorted(outputs.items()):
        cmd = ["bash", path] if path.endswith(".sh") else [str(python), "-I", path]
        assert _run(cmd, here, env).stdout == shown, path
