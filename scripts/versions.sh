#!/usr/bin/env bash
# The unit and behaviour layers on each CPython purezmq supports, compiled.
#
#   bash scripts/versions.sh                    # every version pyproject.toml's classifiers list
#   bash scripts/versions.sh 3.13               # these versions only
#   bash scripts/versions.sh 3.12 -- -k hwm -x  # pytest arguments after --
#
# scripts/test.sh runs it for every supported version other than the default
# python3's (which the whole suite covers). Each version gets its own
# virtualenv (./.venv-py3.X, or $PUREZMQ_VENV-py3.X) and its own build tree
# (build/py3.X: mypyc's C differs between versions), rebuilt when the sources
# change, like the main one. The compiled build must build on each: a compile
# error fails the run (PUREZMQ_REQUIRE_COMPILED), and tests/unit/test_build.py
# checks that the compiled modules are the ones that got imported.
#
# A version that cannot be found fails the run: CI claims to cover it. The
# interpreter is looked for under pyenv (~/.pyenv/versions/3.X.*), then as
# python3.X on the PATH; PUREZMQ_PYTHON_3_12=/path/to/python picks one.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

VERSIONS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do VERSIONS+=("$1"); shift; done
[ $# -gt 0 ] && shift  # the "--"
if [ ${#VERSIONS[@]} -eq 0 ]; then
  mapfile -t VERSIONS < <(sed -n 's/.*"Programming Language :: Python :: \(3\.[0-9]*\)".*/\1/p' \
    "$ROOT/pyproject.toml")
fi

find_python() {  # find_python 3.12 -> the path of a working python3.12
  local v=$1 override candidate
  override="PUREZMQ_PYTHON_${v//./_}"
  for candidate in "${!override:-}" "$HOME"/.pyenv/versions/"$v".*/bin/python"$v" \
                   "$(command -v "python$v" || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" -c 'import sys' 2>/dev/null
    then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

run_version() {  # run_version 3.12 pytest-args...: set up, build and test one version
  local v=$1 py
  shift
  if ! py="$(find_python "$v")"; then
    echo "[versions] Python $v: not found (pyenv install $v, or PUREZMQ_PYTHON_${v//./_}=PATH)"
    return 1
  fi
  echo "[versions] Python $v ($py): unit and behaviour, compiled build"
  (
    unset PUREZMQ_PURE
    export PYTHON="$py" PUREZMQ_EXTRAS="test,curve"
    export PUREZMQ_VENV="${PUREZMQ_VENV:-$ROOT/.venv}-py$v" PUREZMQ_BUILD_DIR="$ROOT/build/py$v"
    source "$HERE/_env.sh"
    PUREZMQ_EXPECT_COMPILED=1 python -m pytest tests/unit tests/behaviour -q "$@"
  )
}

# The versions run side by side (PUREZMQ_VERSIONS_JOBS at a time, default 2:
# each is one process compiling or testing, so two share a 2-core machine
# without waiting on each other); each one's output is printed whole when it
# is done, in order.
JOBS="${PUREZMQ_VERSIONS_JOBS:-2}"
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
FAILED=0
report() {  # report INDEX: print a finished version's log and its status
  local i=$1 v=${VERSIONS[$1]} status
  status="$(cat "$LOGS/$i.status")"
  cat "$LOGS/$i.log"
  echo "[versions] Python $v: $(cat "$LOGS/$i.seconds") s, $([ "$status" = 0 ] && echo passed || echo FAILED)"
  [ "$status" = 0 ] || FAILED=1
}
pids=()
next=0  # the next version to report
for i in "${!VERSIONS[@]}"; do
  (
    t=$SECONDS
    status=0
    run_version "${VERSIONS[$i]}" "$@" > "$LOGS/$i.log" 2>&1 || status=$?
    echo $(( SECONDS - t )) > "$LOGS/$i.seconds"
    echo "$status" > "$LOGS/$i.status"
  ) &
  pids[i]=$!
  while (( i + 1 - next >= JOBS )); do  # at most JOBS at a time: wait for the oldest
    wait "${pids[$next]}" || true
    report "$next"
    next=$(( next + 1 ))
  done
done
while (( next < ${#VERSIONS[@]} )); do
  wait "${pids[$next]}" || true
  report "$next"
  next=$(( next + 1 ))
done
exit $FAILED
