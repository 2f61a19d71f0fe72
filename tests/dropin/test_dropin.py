"""pyzmq's own test suite, run against purezmq (see harness.py).

One test: it downloads pyzmq's sdist (cached in .dropin/), runs the suite
through the `zmq` -> purezmq shim in a subprocess, rewrites the drop-in and
feature sections of docs/compatibility.md, and holds purezmq to the bar.
Skip it with ``-m "not dropin"`` (or ``PUREZMQ_SKIP_DROPIN=1``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import purezmq

from . import features, harness

pytestmark = [pytest.mark.dropin, pytest.mark.slow]


@pytest.mark.timeout(harness.RUN_TIMEOUT + 300)
@pytest.mark.skipif(bool(os.environ.get("PUREZMQ_SKIP_DROPIN")), reason="PUREZMQ_SKIP_DROPIN set")
def test_pyzmq_suite_passes_against_purezmq() -> None:
    run = harness.run_suite()
    summary = harness.summarise(run)
    text = harness.render(summary)
    harness.update_section(harness.DOC, "dropin", text)
    features.write_docs()  # the generated feature tables, kept current too
    print(text)
    print(f"\nzmq was {run.zmq_file}; ran in {run.seconds:.1f} s; log: {run.log}")

    assert run.started, f"the drop-in run did not start; see {run.log}"
    assert Path(run.zmq_file).resolve() == Path(purezmq.__file__).resolve(), run.zmq_file
    assert run.finished, f"the drop-in run did not finish in time; see {run.log}"
    assert not run.foreign_modules, f"pyzmq's own modules were imported: {run.foreign_modules}"
    import_errors = [
        row.file
        for row in summary.rows
        if row.collect_error and not row.excluded_reason and not harness._deferred(row.file)
    ]
    assert not import_errors, f"applicable files failed to import: {import_errors}"
    failures = "\n".join(f"  {t.nodeid}: {harness.first_line(t.message)}" for t in summary.failures)
    assert summary.rate >= harness.BAR, (
        f"pass rate {100 * summary.rate:.1f}% is below {100 * harness.BAR:.0f}%:\n{failures}"
    )
