# Sourced by the scripts that run Spark (the demo, the tests): makes sure a
# Java runtime (17+) is there, installing Debian's when it is missing and we
# are root, so a fresh machine needs nothing done by hand.
if [ -z "${JAVA_HOME:-}" ] && ! command -v java >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing a Java runtime for Spark (openjdk-17-jre-headless)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "Spark needs Java 17 or newer: install a JDK/JRE (e.g. openjdk-17-jre-headless) or set JAVA_HOME" >&2
    exit 1
  fi
fi
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
