# Sourced by test.sh: the interop tests against JeroMQ 0.3.6 (a ZMTP/2.0 peer)
# need Debian's libjeromq-java and a JDK (javac compiles the small Java peer
# at test time). Installs them when missing and we are root, so a fresh
# machine needs nothing done by hand; otherwise the tests skip and say why.
if ! command -v javac >/dev/null 2>&1 || [ ! -f /usr/share/java/jeromq.jar ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing JeroMQ 0.3.6 and a JDK for the interop tests (libjeromq-java, openjdk-17-jdk-headless)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      libjeromq-java openjdk-17-jdk-headless >/dev/null
  else
    echo "[setup] no JDK or JeroMQ: the JeroMQ interop tests will skip (apt-get install libjeromq-java openjdk-17-jdk-headless)" >&2
  fi
fi
