#!/usr/bin/env bash
# The test command of the README: lint, type-check, then the whole test suite.
# Installs what it needs into ./.venv on first use. Extra arguments go to pytest.
PUREZMQ_EXTRAS="test,lint,curve,spark"
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
source "$ROOT/scripts/_java.sh"  # the Spark integration tests need it
echo "[test] ruff";  ruff check src tests examples benchmarks
echo "[test] mypy --strict"; mypy
echo "[test] pytest"
exec python -m pytest "$@"
