#!/usr/bin/env bash
# The main job of the README: the data pipeline end to end on embedded Spark.
# producers -> capture -> journal -> Spark Structured Streaming -> zmq sink -> consumer
# (the classic ZeroMQ topologies demo stays available: python -m purezmq.demo).
PUREZMQ_EXTRAS="spark"
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
# Spark needs a Java runtime (17+); install Debian's when there is none.
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
export PYSPARK_PYTHON="$VENV/bin/python" PYSPARK_DRIVER_PYTHON="$VENV/bin/python"
exec python -m purezmq.spark.demo "$@"
