"""Run pyzmq's own test suite against purezmq.

1. Download pyzmq's source distribution from the package registry with pip
   (``pip download --no-binary pyzmq --no-deps pyzmq==27.3.0``), cached in
   ``<repo>/.dropin/`` and checked against its sha256. ``--no-binary pyzmq``
   rather than ``:all:``: both fetch the same sdist, but ``:all:`` also makes
   pip compile the sdist's build dependencies (Cython) from source just to
   read its metadata - six minutes on a 2-core machine with a cold cache.
   Only its ``tests/`` folder and ``pytest.ini`` are unpacked: pyzmq's own
   ``zmq/`` package never reaches the disk, so it cannot shadow the shim.
2. Build the shim in a temporary directory: a ``zmq`` package whose import
   hook makes every ``zmq.X`` module *be* ``purezmq.X`` (`shim_zmq_init.py`),
   and the result-collecting pytest plugin (`plugin.py`).
3. Run pytest on pyzmq's tests in a subprocess (the shim first on
   PYTHONPATH), streaming one JSON line per test report.
4. Summarise per file and render the table for ``docs/compatibility.md``.

Everything that is not run, and why, is in `EXCLUDED_FILES` and
`EXCLUDED_TESTS` below; tests that are run but counted by another issue are
in `DEFERRED_FILES` / `DEFERRED_TESTS`. Nothing else is filtered.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CACHE = ROOT / ".dropin"
PYZMQ_VERSION = "27.3.0"
SDIST = f"pyzmq-{PYZMQ_VERSION}.tar.gz"
#: The sdist's sha256 as published on PyPI.
SDIST_SHA256 = "bbedb3d1d99babc625f1dd9d7438acefd442b36b75073fd6bc1ef7c0a4b96d56"

#: The pass-rate bar of the issue: passed / (passed + failed) over the
#: applicable tests (not excluded, not deferred).
BAR = 0.95
#: Per-test timeout (pytest-timeout, SIGALRM). pyzmq's unittest-style tests
#: also set their own 60 s SIGALRM in setUp.
PER_TEST_TIMEOUT = 60
#: The whole run is killed after this long (the results streamed so far are kept).
RUN_TIMEOUT = 900

# ---------------------------------------------------------------------------
# The exclusion table. Only things that are not ZeroMQ behaviour belong here:
# backend internals (Cython/CFFI), C extension builds, ssh tunnels, win32,
# pyzmq's mypy self-checks. (test_draft.py runs: purezmq has the draft API.)
# ---------------------------------------------------------------------------
EXCLUDED_FILES: dict[str, str] = {
    "test_cffi_backend.py": "CFFI backend internals: raw libzmq C calls through cffi",
    "test_cython.py": "C extension build: compiles a Cython module against pyzmq's .pxd files",
    "test_includes.py": (
        "C extension build: get_includes()/get_library_dirs() must point a compiler "
        "at pyzmq's headers and libzmq; purezmq has neither (both return [])"
    ),
    "test_mypy.py": "mypy self-check of pyzmq's own stubs, examples and mypy_tests/",
    "test_ssh.py": "ssh tunnels (zmq.ssh: paramiko/pexpect tooling, not ZeroMQ)",
    "test_win32_shim.py": "win32 only (console Ctrl-C handler)",
}

EXCLUDED_TESTS: dict[str, str] = {
    "tests/test_imports.py::test_ssh": "ssh tunnels (imports zmq.ssh.tunnel)",
    "tests/test_message.py::TestFrame::test_above_30": (
        "Cython backend internals: asserts sys.getrefcount() of a buffer held by "
        "pyzmq's zero-copy garbage-collector thread"
    ),
    "tests/test_message.py::TestFrame::test_lifecycle1": (
        "Cython backend internals: exact sys.getrefcount() bookkeeping of zmq_msg_t copies"
    ),
    "tests/test_message.py::TestFrame::test_lifecycle2": (
        "Cython backend internals: exact sys.getrefcount() bookkeeping of zmq_msg_t copies"
    ),
}

# ---------------------------------------------------------------------------
# Run and reported, but counted by the issues that implement them.
# ---------------------------------------------------------------------------
DEFERRED_FILES: dict[str, str] = {
    "test_security.py": "security issue (PLAIN, CURVE, curve_keypair)",
    "test_auth.py": "security issue (ZAP, zmq.auth)",
    "test_z85.py": "security issue (zmq.utils.z85)",
    "test_curve_keygen.py": "security issue (CURVE, python -m zmq.curve_keygen)",
    "test_asyncio.py": "asyncio issue (zmq.asyncio)",
    "test_future.py": "asyncio issue (zmq.eventloop.future)",
}
#: nodeid prefix -> issue. The asyncio variants of parametrised tests elsewhere.
DEFERRED_TESTS: dict[str, str] = {
    "tests/test_monitor.py::test_monitor[asyncio]": "asyncio issue (zmq.asyncio)",
    "tests/test_monitor.py::test_monitor_repeat[asyncio]": "asyncio issue (zmq.asyncio)",
    "tests/test_monitor.py::test_monitor_connected[asyncio]": "asyncio issue (zmq.asyncio)",
    "tests/test_zmqstream.py::test_shadow_socket": "asyncio issue (zmq.asyncio.Socket)",
}

#: Known upstream flakiness, noted in the table rather than hidden.
FLAKY_NOTES: dict[str, str] = {
    "test_log.py": (
        "upstream flaky: waits a bare 0.1 s for the SUB subscription to reach the PUB "
        "(slow joiner) before logging"
    ),
    "test_poll.py": "two tests carry pyzmq's own @flaky(reruns=3) (timing)",
    "test_retry_eintr.py": "test_retry_poll carries pyzmq's own @flaky(reruns=3) (signal timing)",
}

#: Why a file's tests skip or what they need, where pyzmq's skip message does not say.
NOTES: dict[str, str] = {}

#: Causes of the failures that remain, by nodeid (rendered in the docs).
KNOWN_FAILURES: dict[str, str] = {
    "tests/test_context.py::TestContext::test_instance_subclass_second": (
        "purezmq's Context.instance() keeps one instance per class; pyzmq's is "
        "inherited by subclasses unless they set `_instance = None` (as "
        "zmq.asyncio.Context does)"
    ),
}


# ===========================================================================
# download and unpack
# ===========================================================================
def download_sdist(cache: Path = CACHE) -> Path:
    """The cached sdist, downloaded with pip on first use."""
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / SDIST
    if target.exists() and _sha256(target) == SDIST_SHA256:
        return target
    target.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-binary",
        "pyzmq",
        "--no-deps",
        f"pyzmq=={PYZMQ_VERSION}",
        "-d",
        str(cache),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0 or not target.exists():
        raise RuntimeError(
            f"could not download pyzmq {PYZMQ_VERSION}'s sdist:\n{proc.stdout}\n{proc.stderr}"
        )
    digest = _sha256(target)
    if digest != SDIST_SHA256:
        target.unlink()
        raise RuntimeError(f"{SDIST}: sha256 {digest}, expected {SDIST_SHA256}")
    return target


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unpack_tests(sdist: Path, cache: Path = CACHE) -> Path:
    """Unpack only tests/ and pytest.ini (never pyzmq's zmq/ package)."""
    dest = cache / f"pyzmq-{PYZMQ_VERSION}-tests"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    prefix = f"pyzmq-{PYZMQ_VERSION}/"
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            if not member.name.startswith(prefix):
                continue
            rel = member.name[len(prefix) :]
            if not (rel == "pytest.ini" or rel.startswith("tests/")):
                continue
            if not (member.isfile() or member.isdir()):
                continue
            out = dest / rel
            if member.isdir():
                out.mkdir(parents=True, exist_ok=True)
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None
            out.write_bytes(src.read())
    return dest


def build_shim(shim_dir: Path) -> None:
    """The `zmq` package and the pytest plugin, in `shim_dir`."""
    pkg = shim_dir / "zmq"
    pkg.mkdir(parents=True)
    shutil.copyfile(HERE / "shim_zmq_init.py", pkg / "__init__.py")
    shutil.copyfile(HERE / "plugin.py", shim_dir / "purezmq_dropin_plugin.py")


def shim_env(shim_dir: Path) -> dict[str, str]:
    """The environment of a process in which `import zmq` gives purezmq."""
    env = dict(os.environ)
    for var in ("ZMQ_TEST_TIMEOUT", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST", "PYZMQ_BACKEND"):
        env.pop(var, None)  # ZMQ_TEST_TIMEOUT breaks pyzmq's conftest (passes a str)
    # purezmq itself comes from this interpreter's environment: the installed
    # build under test (compiled or pure), not the sources in src/.
    env["PYTHONPATH"] = str(shim_dir)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# ===========================================================================
# run
# ===========================================================================
@dataclasses.dataclass
class CaseResult:
    nodeid: str
    outcome: str  # passed / failed / skipped
    phases: dict[str, str]
    message: str = ""
    duration: float = 0.0
    reruns: int = 0

    @property
    def file(self) -> str:
        return self.nodeid.split("::", 1)[0].rsplit("/", 1)[-1]


@dataclasses.dataclass
class RunResult:
    tests: dict[str, CaseResult]
    collect_errors: dict[str, str]
    collect_skips: dict[str, str]
    started: bool
    finished: bool
    exitstatus: int | None
    foreign_modules: list[str]
    zmq_file: str
    seconds: float
    log: Path
    all_files: list[str]


def _deferred(nodeid: str) -> str | None:
    file = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    if file in DEFERRED_FILES:
        return DEFERRED_FILES[file]
    for prefix, why in DEFERRED_TESTS.items():
        if nodeid == prefix or nodeid.startswith(prefix + "["):
            return why
    return None


def run_suite(
    extra_args: list[str] | None = None,
    run_timeout: float = RUN_TIMEOUT,
    verbose: bool = False,
) -> RunResult:
    """Download (cached), shim, run pyzmq's suite and collect the results."""
    sdist = download_sdist()
    suite = unpack_tests(sdist)
    all_files = sorted(p.name for p in (suite / "tests").glob("test_*.py"))
    log = CACHE / "last-run.log"
    results = CACHE / "last-run.jsonl"
    if results.exists():
        results.unlink()
    with tempfile.TemporaryDirectory(prefix="purezmq-dropin-") as tmp:
        shim = Path(tmp)
        build_shim(shim)
        env = shim_env(shim)
        env["PUREZMQ_DROPIN_RESULTS"] = str(results)
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "tests",
            "-p",
            "purezmq_dropin_plugin",
            "-p",
            "no:cacheprovider",
            f"--timeout={PER_TEST_TIMEOUT}",
            "-q",
            "-rfE",
            "--continue-on-collection-errors",
        ]
        for name in EXCLUDED_FILES:
            cmd.append(f"--ignore=tests/{name}")
        for nodeid in EXCLUDED_TESTS:
            cmd.append(f"--deselect={nodeid}")
        cmd.extend(extra_args or [])
        t0 = time.monotonic()
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                cmd,
                cwd=suite,
                env=env,
                stdout=None if verbose else out,
                stderr=subprocess.STDOUT if not verbose else None,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            _wait(proc, results, run_timeout)
        seconds = time.monotonic() - t0
    return _parse(results, seconds, log, all_files)


def _finished(results: Path) -> bool:
    if not results.exists():
        return False
    with open(results, encoding="utf-8") as f:
        return any('"kind": "finish"' in line for line in f)


def _wait(proc: subprocess.Popen[bytes], results: Path, run_timeout: float) -> None:
    """Wait for the run; kill its process group if it overruns or hangs at exit."""
    deadline = time.monotonic() + run_timeout
    finished_at: float | None = None
    while proc.poll() is None:
        now = time.monotonic()
        if finished_at is None and _finished(results):
            finished_at = now
        if now > deadline or (finished_at is not None and now - finished_at > 30):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            return
        time.sleep(0.2)


def _parse(results: Path, seconds: float, log: Path, all_files: list[str]) -> RunResult:
    tests: dict[str, CaseResult] = {}
    reruns: Counter[str] = Counter()
    collect_errors: dict[str, str] = {}
    collect_skips: dict[str, str] = {}
    started = finished = False
    exitstatus: int | None = None
    foreign: list[str] = []
    zmq_file = ""
    lines = results.read_text(encoding="utf-8").splitlines() if results.exists() else []
    for line in lines:
        rec = json.loads(line)
        kind = rec["kind"]
        if kind == "start":
            started = True
            zmq_file = rec["zmq_file"]
        elif kind == "finish":
            finished = True
            exitstatus = rec["exitstatus"]
            foreign = rec["foreign_modules"]
        elif kind == "collect" and rec["outcome"] == "skipped":
            collect_skips[rec["nodeid"]] = rec["longrepr"]
        elif kind == "collect":
            collect_errors[rec["nodeid"]] = rec["longrepr"]
        elif kind == "test":
            nodeid = rec["nodeid"]
            if rec["outcome"] == "rerun":
                reruns[nodeid] += 1
                tests.pop(nodeid, None)
                continue
            t = tests.setdefault(nodeid, CaseResult(nodeid, "passed", {}))
            t.phases[rec["when"]] = rec["outcome"]
            t.duration += rec["duration"]
            if rec["outcome"] in ("failed",) and not t.message:
                t.message = rec["longrepr"]
            if rec["outcome"] in ("skipped", "xfailed") and not t.message:
                t.message = rec["longrepr"]
    for nodeid, t in tests.items():
        t.reruns = reruns[nodeid]
        phases = set(t.phases.values())
        if "failed" in phases:
            t.outcome = "failed"
        elif "skipped" in phases or "xfailed" in phases:
            t.outcome = "skipped"
        elif "call" not in t.phases:
            t.outcome = "failed"  # started but never finished (the run was killed)
            t.message = t.message or "did not finish (run killed)"
        else:
            t.outcome = "passed"
    return RunResult(
        tests,
        collect_errors,
        collect_skips,
        started,
        finished,
        exitstatus,
        foreign,
        zmq_file,
        seconds,
        log,
        all_files,
    )


# ===========================================================================
# summarise
# ===========================================================================
@dataclasses.dataclass
class FileRow:
    file: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    excluded: int = 0
    deferred: str = ""
    excluded_reason: str = ""
    collect_error: str = ""
    collect_skip: str = ""
    skip_reasons: Counter[str] = dataclasses.field(default_factory=Counter)


@dataclasses.dataclass
class Summary:
    rows: list[FileRow]
    passed: int
    failed: int
    skipped: int
    excluded: int
    deferred_passed: int
    deferred_failed: int
    deferred_skipped: int
    failures: list[CaseResult]
    deferred_failures: list[CaseResult]

    @property
    def rate(self) -> float:
        ran = self.passed + self.failed
        return self.passed / ran if ran else 0.0


def summarise(run: RunResult) -> Summary:
    rows: dict[str, FileRow] = {f: FileRow(f) for f in run.all_files}
    for name, why in EXCLUDED_FILES.items():
        if name in rows:
            rows[name].excluded_reason = why
    for nodeid in EXCLUDED_TESTS:
        name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        if name in rows:
            rows[name].excluded += 1
    for nodeid, why in run.collect_skips.items():
        name = nodeid.rsplit("/", 1)[-1]
        if name in rows:
            rows[name].collect_skip = _skip_reason(why)
    for nodeid, err in run.collect_errors.items():
        name = nodeid.rsplit("/", 1)[-1]
        if name in rows:
            rows[name].collect_error = err.strip().splitlines()[-1] if err.strip() else "error"
    passed = failed = skipped = 0
    dp = df = ds = 0
    failures: list[CaseResult] = []
    deferred_failures: list[CaseResult] = []
    for t in sorted(run.tests.values(), key=lambda t: t.nodeid):
        row = rows.setdefault(t.file, FileRow(t.file))
        deferred = _deferred(t.nodeid)
        if t.outcome == "passed":
            row.passed += 1
        elif t.outcome == "failed":
            row.failed += 1
        else:
            row.skipped += 1
            row.skip_reasons[_skip_reason(t.message)] += 1
        if deferred:
            if t.file not in DEFERRED_FILES:
                row.deferred = "asyncio variants deferred"
            else:
                row.deferred = deferred
            if t.outcome == "passed":
                dp += 1
            elif t.outcome == "failed":
                df += 1
                deferred_failures.append(t)
            else:
                ds += 1
            continue
        if t.outcome == "passed":
            passed += 1
        elif t.outcome == "failed":
            failed += 1
            failures.append(t)
        else:
            skipped += 1
    for name, row in rows.items():
        if row.collect_error and not _deferred(f"tests/{name}") and not row.excluded_reason:
            failed += 1  # a file that cannot even be imported counts as one failure
    excluded = sum(r.excluded for r in rows.values())
    return Summary(
        sorted(rows.values(), key=lambda r: r.file),
        passed,
        failed,
        skipped,
        excluded,
        dp,
        df,
        ds,
        failures,
        deferred_failures,
    )


def _skip_reason(message: str) -> str:
    msg = message.strip().splitlines()[-1] if message.strip() else "skipped"
    for prefix in ("Skipped: ",):
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    return msg[:120]


def first_line(message: str) -> str:
    """The most telling line of a failure report: the exception line, if any."""
    lines = [ln.strip() for ln in message.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith(("E ", "E\t")):
            return ln[1:].strip()[:200]
    for ln in reversed(lines):
        if "Error" in ln or "assert" in ln:
            return ln[:200]
    return (lines[-1] if lines else "")[:200]


# ===========================================================================
# render
# ===========================================================================
def render(summary: Summary) -> str:
    out: list[str] = []
    w = out.append
    ran = summary.passed + summary.failed
    w(
        f"pyzmq {PYZMQ_VERSION}'s own test suite (the `tests/` folder of its sdist), run "
        "unchanged against purezmq by `tests/dropin` (`python -m tests.dropin` "
        "regenerates this section; CI runs it as `tests/dropin/test_dropin.py`)."
    )
    w("")
    w(
        f"**Applicable tests: {summary.passed} passed, {summary.failed} failed, "
        f"{summary.skipped} skipped; pass rate {100 * summary.rate:.1f}% "
        f"({summary.passed}/{ran}, bar {100 * BAR:.0f}%).** "
        f"Deferred to other issues: {summary.deferred_passed} passed, "
        f"{summary.deferred_failed} failed, {summary.deferred_skipped} skipped. "
        f"Excluded: {len(EXCLUDED_FILES)} files and {summary.excluded} tests (reasons below)."
    )
    w("")
    w(
        "The pass rate is passed / (passed + failed) over the applicable tests: every "
        "test except the exclusions and the deferred ones. Skips are pyzmq's own "
        "(optional dependencies, version gates) and are listed with their reasons."
    )
    w("")
    w("| file | passed | failed | skipped | excluded | notes |")
    w("|---|---:|---:|---:|---:|---|")
    for r in summary.rows:
        notes: list[str] = []
        if r.excluded_reason:
            w(f"| {r.file} | - | - | - | whole file | excluded: {r.excluded_reason} |")
            continue
        if r.deferred:
            notes.append(f"deferred: {r.deferred}")
        if r.collect_error:
            notes.append(f"import error: `{_md(r.collect_error[:150])}`")
        if r.collect_skip:
            notes.append(f"whole file skipped by pyzmq: {_md(r.collect_skip)}")
        if r.file in NOTES:
            notes.append(NOTES[r.file])
        if r.file in FLAKY_NOTES:
            notes.append(FLAKY_NOTES[r.file])
        if r.skip_reasons:
            reasons = "; ".join(
                f"{_md(k)} ({v})" if v > 1 else _md(k) for k, v in sorted(r.skip_reasons.items())
            )
            notes.append(f"skips: {reasons}")
        w(
            f"| {r.file} | {r.passed} | {r.failed} | {r.skipped} | {r.excluded or ''} | "
            f"{'<br>'.join(notes)} |"
        )
    w("")
    w("### Exclusions")
    w("")
    w("| file or test | reason |")
    w("|---|---|")
    for name, why in EXCLUDED_FILES.items():
        w(f"| {name} | {why} |")
    for nodeid, why in EXCLUDED_TESTS.items():
        w(f"| {nodeid.removeprefix('tests/')} | {why} |")
    w("")
    w("### Remaining failures")
    w("")
    if not summary.failures:
        w("None.")
    for t in summary.failures:
        cause = KNOWN_FAILURES.get(t.nodeid) or first_line(t.message)
        w(f"- `{t.nodeid.removeprefix('tests/')}`: {_md(cause)}")
    w("")
    if summary.deferred_failures:
        w("### Deferred failures (counted by the security and asyncio issues)")
        w("")
        by_file: dict[str, list[CaseResult]] = defaultdict(list)
        for t in summary.deferred_failures:
            by_file[t.file].append(t)
        for file, cases in sorted(by_file.items()):
            why = DEFERRED_FILES.get(file) or _deferred(cases[0].nodeid) or ""
            w(f"- {file} ({len(cases)}): {why}")
            for t in cases:
                cause = KNOWN_FAILURES.get(t.nodeid) or first_line(t.message)
                w(f"  - `{t.nodeid.split('::', 1)[1]}`: {_md(cause)}")
        w("")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def update_section(path: Path, name: str, content: str) -> bool:
    """Replace the text between the BEGIN/END markers of `name`; True if it changed."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    text = path.read_text(encoding="utf-8")
    i, j = text.index(begin), text.index(end)
    new = text[: i + len(begin)] + "\n" + content.rstrip() + "\n" + text[j:]
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


DOC = ROOT / "docs" / "compatibility.md"
