# Sourced by test.sh: the draft-type interop tests (tests/interop/test_draft_libzmq.py)
# build libzmq with the draft API from the source pyzmq 25.1.2's sdist bundles
# (tests/interop/draft_libzmq.py; about a minute, cached in .draft-libzmq/),
# which needs g++. Installs it when missing and we are root; otherwise those
# tests skip and say why (under CI they fail).
if ! command -v g++ >/dev/null 2>&1; then
  _pz_apt g++ || echo "[setup] no g++: the draft libzmq interop tests will skip (apt-get install g++)" >&2
fi
