# Sourced by test.sh: the multicast tests (tests/multicast) make two network
# namespaces joined by a veth pair (iproute2), inject loss with nftables, and
# talk to Debian's libzmq 4.3.4 built with OpenPGM through the system
# Python's pyzmq (python3-zmq; the pyzmq wheel's libzmq has no PGM); capsh
# (libcap2-bin) runs a peer without CAP_NET_RAW.
# Installs them when missing and we are root (through _pz_apt); otherwise the
# tests skip and say why - under CI=true they fail instead.
_pz_pgm_ready() {
  command -v ip >/dev/null 2>&1 && command -v nft >/dev/null 2>&1 \
    && command -v capsh >/dev/null 2>&1 \
    && /usr/bin/python3 -c "import zmq, sys; sys.exit(0 if zmq.has('pgm') else 1)" >/dev/null 2>&1
}
if ! _pz_pgm_ready; then
  _pz_apt iproute2 nftables libcap2-bin python3-zmq \
    || echo "[setup] no ip/nft/capsh/python3-zmq: the multicast tests will skip (apt-get install iproute2 nftables libcap2-bin python3-zmq)" >&2
fi
