"""``python -m tests.dropin``: run pyzmq's suite against purezmq and rewrite the
drop-in section of docs/compatibility.md (and the feature tables).

Options: ``--no-docs`` only prints; any other arguments go to the inner pytest
(e.g. ``python -m tests.dropin -- -k test_socket``).
"""

from __future__ import annotations

import sys

from . import harness


def main(argv: list[str]) -> int:
    write_docs = "--no-docs" not in argv
    args = [a for a in argv if a not in ("--no-docs", "--")]
    run = harness.run_suite(extra_args=args)
    summary = harness.summarise(run)
    text = harness.render(summary)
    print(text)
    print(f"\nzmq was {run.zmq_file}; ran in {run.seconds:.1f} s; log: {run.log}")
    if write_docs and not args:
        from . import features

        features.write_docs()
        changed = harness.update_section(harness.DOC, "dropin", text)
        print(f"{harness.DOC}: {'updated' if changed else 'unchanged'}")
    return 0 if summary.rate >= harness.BAR and run.finished else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
