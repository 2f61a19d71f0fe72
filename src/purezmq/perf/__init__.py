"""libzmq's perf tools, on purezmq's public API (or any pyzmq-compatible module).

``python -m purezmq.perf local_thr tcp://127.0.0.1:5555 64 1000000`` and so on,
with libzmq's names, arguments and methods:

- throughput: PULL binds and times from the first to the last message
  (``local_thr``); PUSH connects and sends (``remote_thr``);
- latency: REP echoes (``local_lat``); REQ times round trips and reports half
  the mean round trip, as libzmq does, plus p50/p99 (``remote_lat``);
- ``inproc_thr`` / ``inproc_lat`` run both ends in one process on two threads.

``--impl zmq`` runs the same tool on pyzmq (libzmq) for side-by-side numbers;
``--json`` prints one JSON object instead of libzmq's text; ``--async`` runs
the six tools above on ``<impl>.asyncio`` with awaited sends and receives
(``--loop uvloop`` for uvloop); ``--ready-file F`` makes a binding tool write
its endpoint(s) to F once bound, for harnesses.

Beyond libzmq's set, for benchmarks/run.py:

- ``fanout_pub`` / ``fanout_sub``: one PUB to K SUB sockets in several
  processes, delivered rate and drops (``perf.fanout``);
- ``idle_router`` / ``idle_dealers``: RSS and idle CPU of 1,000 idle
  connections; ``stall_pub`` / ``stall_sub``: RSS of a PUB whose subscriber
  stopped reading (``perf.memory``);
- ``conn_server`` / ``conn_client``: connection set-up time (fresh socket,
  connect, handshake, first round trip, close) and connects per second
  (``perf.connect``).
"""

from __future__ import annotations

from .tools import main

__all__ = ["main"]
