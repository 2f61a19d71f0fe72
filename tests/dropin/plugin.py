"""pytest plugin loaded into the drop-in run (copied as ``purezmq_dropin_plugin.py``).

It checks that ``zmq`` really is purezmq (and that pyzmq's own modules are
never imported), and streams every test report as one JSON line to the file
named by ``PUREZMQ_DROPIN_RESULTS``, so the harness gets the results of every
test that finished even if the run has to be killed.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import pytest

_RESULTS = os.environ.get("PUREZMQ_DROPIN_RESULTS", "")


def _write(record: dict[str, Any]) -> None:
    if not _RESULTS:
        return
    with open(_RESULTS, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def _foreign_zmq_modules() -> list[str]:
    """zmq.* modules loaded from somewhere other than purezmq (the real pyzmq)."""
    import purezmq

    root = os.path.dirname(purezmq.__file__)
    bad = []
    for name, mod in list(sys.modules.items()):
        if name != "zmq" and not name.startswith("zmq."):
            continue
        file = getattr(mod, "__file__", None)
        if file and not os.path.abspath(file).startswith(root):
            bad.append(f"{name} from {file}")
    return bad


def pytest_configure(config: pytest.Config) -> None:
    import zmq

    import purezmq

    if zmq is not purezmq:
        raise pytest.UsageError(f"zmq is not purezmq: zmq.__file__ = {zmq.__file__}")
    _write(
        {
            "kind": "start",
            "zmq_file": zmq.__file__,
            "python": sys.version.split()[0],
            "time": time.time(),
        }
    )


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed or report.skipped:
        longrepr = report.longrepr
        text = str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
        _write(
            {
                "kind": "collect",
                "nodeid": report.nodeid,
                "outcome": "failed" if report.failed else "skipped",
                "longrepr": text[-3000:],
            }
        )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    longrepr = ""
    if report.longrepr is not None and outcome not in ("passed",):
        if report.skipped and isinstance(report.longrepr, tuple):
            longrepr = str(report.longrepr[2])
        else:
            longrepr = str(report.longrepr)[-3000:]
    _write(
        {
            "kind": "test",
            "nodeid": report.nodeid,
            "when": report.when,
            "outcome": outcome,
            "duration": round(report.duration, 3),
            "longrepr": longrepr,
        }
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _write(
        {
            "kind": "finish",
            "exitstatus": int(exitstatus),
            "foreign_modules": _foreign_zmq_modules(),
            "time": time.time(),
        }
    )
