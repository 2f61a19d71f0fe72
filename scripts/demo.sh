#!/usr/bin/env bash
# The main job of the README: the data pipeline end to end on embedded Spark.
# producers -> capture -> journal -> Spark Structured Streaming -> zmq sink -> consumer
# (the classic ZeroMQ topologies demo stays available: python -m purezmq.demo).
# Runs on the compiled build in ./.venv; PUREZMQ_PURE=1 runs it on the pure one.
PUREZMQ_EXTRAS="spark"
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
source "$ROOT/scripts/_java.sh"
export PYSPARK_PYTHON="$VENV/bin/python" PYSPARK_DRIVER_PYTHON="$VENV/bin/python"
exec python -m purezmq.spark.demo "$@"
