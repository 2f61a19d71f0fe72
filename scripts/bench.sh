#!/usr/bin/env bash
# The benchmark command of the README: purezmq against pyzmq (libzmq), side by
# side, writing benchmarks/results/<stamp>.json and docs/benchmarks.md (+ charts).
# Installs what it needs into ./.venv on first use (pyzmq from the test extra,
# matplotlib from the bench extra). Arguments go to benchmarks/run.py, e.g.
#   bash scripts/bench.sh --quick          # ~3-minute smoke run
#   bash scripts/bench.sh --only tcp,64    # a subset
#   bash scripts/bench.sh --help
PUREZMQ_EXTRAS="test,bench"
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
exec python benchmarks/run.py "$@"
