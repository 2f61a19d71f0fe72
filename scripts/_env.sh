# Sourced by the scripts in this folder: makes ./.venv with the project and the
# extras named in $PUREZMQ_EXTRAS installed, reinstalling only when pyproject.toml
# changes. Every command a user runs installs what it needs through this file.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${PUREZMQ_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
EXTRAS="${PUREZMQ_EXTRAS:-}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV"
  if ! "$PY" -m venv "$VENV"; then
    # Debian/Ubuntu ship venv separately; install it when we may.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "[setup] installing python3-venv"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      rm -rf "$VENV"
      "$PY" -m venv "$VENV"
    else
      echo "cannot create a virtualenv: install python3-venv (Python 3.11+)" >&2
      exit 1
    fi
  fi
fi
STAMP="$VENV/.purezmq-installed"
WANT="$( (cat "$ROOT/pyproject.toml"; echo "extras=$EXTRAS") | sha256sum | cut -c1-16)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  echo "[setup] installing purezmq${EXTRAS:+[$EXTRAS]} into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  if [ -n "$EXTRAS" ]; then
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT[$EXTRAS]"
  else
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT"
  fi
  echo "$WANT" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
