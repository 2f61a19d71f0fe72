#!/usr/bin/env bash
# The test command of the README: lint, type-check, then the tests on the
# compiled build (./.venv), then the core layers again on the pure build
# (./.venv-pure), then unit and behaviour on the other supported Pythons
# (scripts/versions.sh). Installs what it needs on first use and rebuilds purezmq
# when its sources change (see _env.sh).
#
#   bash scripts/test.sh                      # what CI runs: both builds
#   bash scripts/test.sh tests/unit -q        # these pytest arguments, compiled build
#   PUREZMQ_PURE=1 bash scripts/test.sh ...   # the same on the pure build
#                                             # (no arguments: the whole suite, pure)
#
# Each pytest run sets PUREZMQ_EXPECT_COMPILED, so tests/unit/test_build.py
# fails if the build that got installed is not the one asked for.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ALL=$(( $# == 0 ))
START=$SECONDS
FAILED=0

_took() { echo "[test] $1: $(( SECONDS - $2 )) s"; }

run_pytest() {  # run_pytest EXPECT_COMPILED pytest-args...
  local expect=$1 t=$SECONDS status=0
  shift
  echo "[test] pytest on the $PUREZMQ_BUILD build ($(python -c 'import purezmq; print(purezmq.__file__)'))"
  PUREZMQ_EXPECT_COMPILED=$expect python -m pytest "$@" || status=$?
  _took "pytest, $PUREZMQ_BUILD build" "$t"
  return $status
}

t=$SECONDS
PUREZMQ_EXTRAS="test,lint,curve,spark,cli,prometheus"
# The whole suite (CI) tests the compiled build the benchmarks measure and
# wheels ship: profile-guided (build_backend/purezmq_pgo.py). A run of some
# tests keeps whichever compiled build is installed, or builds a plain one.
if [ "$ALL" = 1 ]; then export PUREZMQ_PGO="${PUREZMQ_PGO:-1}"; fi
source "$HERE/_env.sh"
source "$ROOT/scripts/_java.sh"  # the Spark integration tests need it
source "$ROOT/scripts/_jeromq.sh"  # the JeroMQ (ZMTP/2.0) interop tests need it
source "$ROOT/scripts/_pgm.sh"  # the multicast tests: iproute2, nftables, python3-zmq (OpenPGM)
source "$ROOT/scripts/_draft_libzmq.sh"  # g++: the draft types against a libzmq built with drafts
_took "setup, $PUREZMQ_BUILD build" "$t"

t=$SECONDS
echo "[test] ruff";  ruff check src tests examples benchmarks setup.py build_backend
echo "[test] mypy --strict"; mypy
_took "ruff and mypy" "$t"

if [ "$PUREZMQ_BUILD" = pure ]; then
  run_pytest 0 "$@" || FAILED=1
  _took "all" "$START"
  exit $FAILED
fi
run_pytest 1 "$@" || FAILED=1
if [ "$ALL" = 0 ]; then
  _took "all" "$START"
  exit $FAILED
fi

# The pure build: the layers whose code the compiled build replaces, and
# behaviour and interop on top of them.
t=$SECONDS
export PUREZMQ_PURE=1 PUREZMQ_EXTRAS="test,curve"
source "$HERE/_env.sh"
_took "setup, $PUREZMQ_BUILD build" "$t"
run_pytest 0 tests/unit tests/behaviour tests/wire tests/interop || FAILED=1

# The other supported Pythons (pyproject.toml's classifiers, less this one):
# unit and behaviour, compiled, two versions at a time (scripts/versions.sh).
# Plain compiled builds there: what they check is the Python version.
unset PUREZMQ_PGO
t=$SECONDS
DEFAULT="$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
mapfile -t OTHERS < <(sed -n 's/.*"Programming Language :: Python :: \(3\.[0-9]*\)".*/\1/p' \
  "$ROOT/pyproject.toml" | grep -vxF "$DEFAULT" || true)
if [ ${#OTHERS[@]} -gt 0 ]; then
  bash "$HERE/versions.sh" "${OTHERS[@]}" || FAILED=1
fi
_took "other Pythons (${OTHERS[*]})" "$t"
_took "all" "$START"
exit $FAILED
