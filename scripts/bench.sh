#!/usr/bin/env bash
# The benchmark command of the README: purezmq's pure and compiled builds
# against pyzmq (libzmq), side by side in one run, writing
# benchmarks/results/<stamp>.json and docs/benchmarks.md (+ charts).
#
# Each purezmq build runs from its own virtualenv, a normal (not editable)
# install of one copy of the working tree taken here, so both builds are the
# same source and edits made during the run do not leak into it:
#   ./.venv-bench       PUREZMQ_PGO=1 pip install '.[test,bench]'    compiled where a C compiler is
#                       (profile-guided with gcc: build_backend/purezmq_pgo.py; PUREZMQ_PGO=0
#                       in the environment measures a plain compiled build)
#   ./.venv-bench-pure  PUREZMQ_PURE=1 pip install '.[test,bench]'   the pure-Python build
# pyzmq (the test extra) and the runner itself use ./.venv-bench. A venv is
# reinstalled only when the copied source differs from what it holds. The
# runner checks purezmq.COMPILED in every process: a "compiled" venv holding
# the pure build (failed compile, no compiler) is reported, not measured.
# Arguments go to benchmarks/run.py, e.g.
#   bash scripts/bench.sh --quick            # smoke run: 1 repetition, counts / 10
#   bash scripts/bench.sh --only tcp,64      # a subset
#   bash scripts/bench.sh --impls pure,zmq   # skip a build (and its install)
#   bash scripts/bench.sh --source HEAD      # measure a commit, not the working tree
#   bash scripts/bench.sh --help
# and, with "profile" first, benchmarks/profile_cell.py on the same venvs:
#   bash scripts/bench.sh profile tcp,64     # instructions per message under callgrind
# PUREZMQ_BENCH_VENV / PUREZMQ_BENCH_PURE_VENV choose other venv paths.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
EXTRAS="test,bench"
VENV_COMPILED="${PUREZMQ_BENCH_VENV:-$ROOT/.venv-bench}"
VENV_PURE="${PUREZMQ_BENCH_PURE_VENV:-$ROOT/.venv-bench-pure}"
PGO="${PUREZMQ_PGO:-1}"
cd "$ROOT"
SCRIPT=benchmarks/run.py
if [ "${1:-}" = profile ]; then
  SCRIPT=benchmarks/profile_cell.py
  shift
fi

# --help and --list need no build.
for a in "$@"; do
  case "$a" in -h|--help|--list) exec "$PY" "$SCRIPT" "$@" ;; esac
done
# The builds asked for (--impls), so a pure-only run compiles nothing; and
# --source REV (ours, not run.py's): install that commit instead of the
# working tree, which others may be half-way through editing.
IMPLS="pure,compiled,zmq"
SOURCE=""
ARGS=()
prev=""
for a in "$@"; do
  case "$a" in
    --impls=*) IMPLS="${a#--impls=}" ;;
    --source=*) SOURCE="${a#--source=}"; prev=""; continue ;;
    --source) prev="--source"; continue ;;
  esac
  if [ "$prev" = "--source" ]; then SOURCE="$a"; prev=""; continue; fi
  [ "$prev" = "--impls" ] && IMPLS="$a"
  ARGS+=("$a")
  prev="$a"
done
want() { case ",$IMPLS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

make_venv() {  # $1: path. As scripts/_env.sh: python3-venv is installed when missing.
  [ -x "$1/bin/python" ] && return 0
  echo "[bench] creating $1"
  if ! "$PY" -m venv "$1"; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "[bench] installing python3-venv"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      rm -rf "$1"
      "$PY" -m venv "$1"
    else
      echo "cannot create a virtualenv: install python3-venv (Python 3.11+)" >&2
      exit 1
    fi
  fi
  echo '*' > "$1/.gitignore"  # the repository's .gitignore knows only .venv/
}

# One copy of what a build of the package reads: the tracked and untracked
# (not ignored) files outside the folders no build uses - or, with --source,
# that commit's files.
NOBUILD=(tests docs examples benchmarks fuzz scripts .ci)
SNAP="$(mktemp -d "${TMPDIR:-/tmp}/purezmq-bench-src.XXXXXX")"
trap 'rm -rf "$SNAP"' EXIT
if [ -n "$SOURCE" ]; then
  REV="$(git rev-parse --short=12 "$SOURCE^{commit}")"
  git archive "$REV" | tar -x -C "$SNAP"
  for d in "${NOBUILD[@]}"; do rm -rf "${SNAP:?}/$d"; done
  export PUREZMQ_BENCH_SOURCE="git $REV ($(git log -1 --format=%s "$REV" | cut -c1-80))"
else
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do
      for d in "${NOBUILD[@]}"; do case "$f" in "$d"/*) continue 2 ;; esac; done
      [ -f "$f" ] || continue  # deleted in the working tree
      mkdir -p "$SNAP/$(dirname "$f")" && cp -p "$f" "$SNAP/$f"
    done
  REV="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown) + working tree"
  unset PUREZMQ_BENCH_SOURCE
fi
DIGEST="$(cd "$SNAP" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"

install_build() {  # $1: venv, $2: 1 for the pure build
  local venv="$1" pure="$2" stamp="$1/.purezmq-bench-installed" fd
  local want_stamp="source $DIGEST (git $REV), extras $EXTRAS, PUREZMQ_PURE=$pure"
  [ "$pure" = 1 ] || want_stamp="$want_stamp, PUREZMQ_PGO=$PGO"
  make_venv "$venv"
  # A shared lock for as long as this run lasts (the fd is inherited by the
  # runner): another bench.sh measuring from this venv keeps it; one that has
  # to reinstall it waits for the exclusive lock instead of swapping the
  # package under a running measurement.
  exec {fd}>"$venv/.purezmq-bench-lock"
  flock -s "$fd"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then
    echo "[bench] $venv is up to date (source $DIGEST)"
    return 0
  fi
  if ! flock -n -x "$fd"; then
    echo "[bench] waiting for another benchmark run that uses $venv"
    flock -x "$fd"
  fi
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then  # installed meanwhile
    flock -s "$fd"
    return 0
  fi
  echo "[bench] installing purezmq[$EXTRAS] into $venv ($([ "$pure" = 1 ] && echo pure || echo compiled) build, source $DIGEST)"
  rm -f "$stamp"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  # Same version number as what may be there: uninstall first so pip builds
  # this source (once) instead of calling the requirement satisfied.
  "$venv/bin/python" -m pip uninstall --quiet --yes purezmq 2>/dev/null || true
  # The build's own notes ("purezmq build: ...", e.g. why it fell back to
  # pure Python) only show with -v: keep the whole log, print the notes. No
  # PUREZMQ_REQUIRE_COMPILED: a failed compile installs the pure build, which
  # the runner then refuses to call "compiled" and says why.
  local log="$venv/purezmq-build.log" ok=0
  if [ "$pure" = 1 ]; then
    PUREZMQ_PURE=1 "$venv/bin/python" -m pip install -v "$SNAP[$EXTRAS]" >"$log" 2>&1 || ok=$?
  else
    env -u PUREZMQ_PURE -u PUREZMQ_REQUIRE_COMPILED PUREZMQ_PGO="$PGO" \
      "$venv/bin/python" -m pip install -v "$SNAP[$EXTRAS]" >"$log" 2>&1 || ok=$?
  fi
  grep -a "purezmq build:" "$log" | awk '!seen[$0]++' | sed 's/^ */[bench]   /' || true
  if [ "$ok" != 0 ]; then
    tail -n 40 "$log" >&2
    echo "[bench] installing into $venv failed (log: $log)" >&2
    exit 1
  fi
  echo "$want_stamp" > "$stamp"
  flock -s "$fd"
}

# The runner and pyzmq live in the compiled build's venv (made even when only
# pyzmq is measured); a run of the pure build alone runs from its own venv.
if want compiled || want zmq || ! want pure; then
  install_build "$VENV_COMPILED" 0
  RUNNER="$VENV_COMPILED/bin/python"
else
  RUNNER=""
fi
if want pure; then
  install_build "$VENV_PURE" 1
  RUNNER="${RUNNER:-$VENV_PURE/bin/python}"
fi
rm -rf "$SNAP"
trap - EXIT
exec "$RUNNER" "$SCRIPT" \
  --python-compiled "$VENV_COMPILED/bin/python" \
  --python-pure "$VENV_PURE/bin/python" \
  --python-pyzmq "$RUNNER" ${ARGS[@]+"${ARGS[@]}"}
