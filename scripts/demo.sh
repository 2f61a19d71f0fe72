#!/usr/bin/env bash
# The main job of the README: runs the demo of the classic ZeroMQ topologies.
PUREZMQ_EXTRAS=""
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
exec python -m purezmq.demo "$@"
