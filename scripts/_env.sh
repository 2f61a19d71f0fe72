# Sourced by the scripts in this folder: makes a virtualenv with purezmq and the
# extras named in $PUREZMQ_EXTRAS installed. Every command a user runs installs
# what it needs through this file.
#
# Which build: the compiled one (the hot modules built by mypyc) in ./.venv;
# with PUREZMQ_PURE=1, the pure-Python one in ./.venv-pure, so both can live
# side by side (PUREZMQ_VENV=DIR moves them to DIR and DIR-pure). purezmq is
# installed as a package, never in editable mode: a compiled module beside its
# source would shadow it, and the tests must import what was built. The
# package is rebuilt whenever the sources (src/, setup.py, pyproject.toml,
# build_backend/) change; dependencies are reinstalled only when pyproject.toml
# changes or new extras are asked for. A rebuild reuses build/ (mypyc's C and
# its compiled objects), without build isolation: a change that leaves the
# compiled modules alone costs seconds. PUREZMQ_BUILD_DIR=DIR builds from a
# copy of the build inputs in DIR instead, with a build/ of its own: mypyc's
# C differs between Python versions, so each version (scripts/versions.sh)
# keeps its own and none recompiles another's. PUREZMQ_PGO=1 asks for the
# compiled build with a profile (build_backend/purezmq_pgo.py: two compiles
# and a short training run, minutes rather than seconds): a build installed
# with one is kept while the sources are the same, whatever is asked next.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
EXTRAS="${PUREZMQ_EXTRAS:-}"
case "${PUREZMQ_PURE:-}" in
  ""|0|false|no) PUREZMQ_BUILD=compiled; VENV="${PUREZMQ_VENV:-$ROOT/.venv}" ;;
  *) PUREZMQ_BUILD=pure; VENV="${PUREZMQ_VENV:-$ROOT/.venv}-pure" ;;
esac
export PUREZMQ_BUILD
SRC="${PUREZMQ_BUILD_DIR:-$ROOT}"  # what pip builds from: the tree, or a copy of it

_pz_apt() {  # install Debian packages when we may (root with apt-get)
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing $*"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    return 1
  fi
}

if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV"
  if ! "$PY" -m venv "$VENV"; then
    # Debian/Ubuntu ship venv separately; install it when we may.
    rm -rf "$VENV"
    if _pz_apt python3-venv; then
      "$PY" -m venv "$VENV"
    else
      echo "cannot create a virtualenv: install python3-venv (Python 3.11+)" >&2
      exit 1
    fi
  fi
fi

# One installer at a time per virtualenv, and none while a run uses it: an
# install takes the lock exclusively, then keeps it shared for the rest of the
# calling script (fd 9 is inherited by the command it execs).
exec 9>"$VENV/.purezmq-lock"
if ! flock -n -x 9; then
  echo "[setup] waiting for another run that uses $VENV"
  flock -x 9
fi

STAMP="$VENV/.purezmq-installed"
_pz_stamp() { [ -f "$STAMP" ] && sed -n "s/^$1=//p" "$STAMP" || true; }
WANT_DEPS="$(sha256sum "$ROOT/pyproject.toml" | cut -c1-16)"
WANT_SRC="$( (cd "$ROOT" && echo "$PUREZMQ_BUILD" \
  && find src build_backend setup.py pyproject.toml MANIFEST.in -type f \
       ! -path '*/__pycache__/*' ! -path '*.egg-info/*' ! -name '*.so' -print0 \
     | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16)"
HAVE_DEPS="$(_pz_stamp deps)"
HAVE_EXTRAS="$(_pz_stamp extras)"
HAVE_SRC="$(_pz_stamp src)"
WANT_PGO=0
case "${PUREZMQ_PGO:-}" in
  ""|0|false|no) ;;
  *) if [ "$PUREZMQ_BUILD" = compiled ]; then WANT_PGO=1; fi ;;
esac
HAVE_PGO="$(_pz_stamp pgo)"

NEED_DEPS=0
if [ "$HAVE_DEPS" != "$WANT_DEPS" ]; then
  NEED_DEPS=1
  HAVE_EXTRAS=""
else
  for extra in ${EXTRAS//,/ }; do
    case ",$HAVE_EXTRAS," in *",$extra,"*) ;; *) NEED_DEPS=1 ;; esac
  done
fi

if [ "$NEED_DEPS" = 1 ] || [ "$HAVE_SRC" != "$WANT_SRC" ] || [ "$WANT_PGO" = 1 -a "$HAVE_PGO" != 1 ]; then
  PIP=("$VENV/bin/python" -m pip install --quiet --no-build-isolation)
  if [ "$NEED_DEPS" = 1 ]; then
    echo "[setup] installing purezmq${EXTRAS:+[$EXTRAS]} ($PUREZMQ_BUILD build) into $VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    # The build requirements, installed once so that rebuilds need no isolated
    # environment (pyproject.toml's, plus the pinned mypy for the compiled build).
    BUILD_REQS=("setuptools>=77" wheel)
    if [ "$PUREZMQ_BUILD" = compiled ]; then
      BUILD_REQS+=("$(sed -n 's/^MYPY_REQUIREMENT = "\(.*\)"$/\1/p' "$ROOT/build_backend/purezmq_backend.py")")
    fi
    "$VENV/bin/python" -m pip install --quiet "${BUILD_REQS[@]}"
    TARGET="$SRC${EXTRAS:+[$EXTRAS]}"
    ALL_EXTRAS="$(echo "$HAVE_EXTRAS,$EXTRAS" | tr ',' '\n' | sed '/^$/d' | sort -u | paste -sd, -)"
  else
    echo "[setup] rebuilding purezmq ($PUREZMQ_BUILD build$([ "$WANT_PGO" = 1 ] && echo ", with a profile")): the sources or the build asked for changed"
    PIP+=(--no-deps)
    TARGET="$SRC"
    ALL_EXTRAS="$HAVE_EXTRAS"
  fi
  if [ "$PUREZMQ_BUILD" = compiled ]; then
    if ! (cd "$ROOT/build_backend" && "$VENV/bin/python" -c \
          'import sys, purezmq_backend as b; sys.exit(0 if b.compiler_works() else 1)'); then
      _pz_apt gcc python3-dev || {
        echo "no C compiler for the compiled build: install gcc and the Python headers," >&2
        echo "or use the pure build: PUREZMQ_PURE=1 bash $0" >&2
        exit 1
      }
    fi
  fi
  # build/ is shared by both builds (and by every run in this tree): one
  # build at a time.
  mkdir -p "$SRC/build"
  (
    flock -x 8
    if [ "$SRC" != "$ROOT" ]; then  # refresh the copy (mtimes kept: no needless recompiling)
      (cd "$SRC" && rm -rf src build_backend)
      (cd "$ROOT" && cp -a src build_backend setup.py pyproject.toml MANIFEST.in README.md \
        LICENSE "$SRC/")
    fi
    cd "$SRC"
    # A compile error must show, not fall back to pure Python quietly.
    [ "$PUREZMQ_BUILD" = compiled ] && export PUREZMQ_REQUIRE_COMPILED=1
    export PUREZMQ_PGO="$WANT_PGO"
    "${PIP[@]}" "$TARGET"
  ) 8>"$SRC/build/.purezmq-build-lock"
  printf 'deps=%s\nextras=%s\nsrc=%s\npgo=%s\n' "$WANT_DEPS" "$ALL_EXTRAS" "$WANT_SRC" "$WANT_PGO" > "$STAMP"
fi
flock -s 9
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
