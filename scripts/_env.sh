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
  "$PY" -m venv "$VENV"
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
