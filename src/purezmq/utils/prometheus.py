"""Socket statistics as Prometheus metrics (a purezmq extension; needs the
``prometheus`` extra, which brings ``prometheus_client``).

``Socket.get_stats()`` runs on the socket's own thread, like every socket
call, while Prometheus scrapes from its HTTP server's thread. So the two
meet through snapshots: the application hands its socket to
:meth:`StatsCollector.observe` from the thread that owns it, every second or
so (a loop that already wakes up for timeouts is the place), and a scrape
reports the latest snapshot of each observed socket. A scrape never touches
a socket, and observing costs one ``get_stats()``::

    from prometheus_client import start_http_server
    from purezmq.utils.prometheus import StatsCollector

    stats = StatsCollector()            # registered with prometheus_client's REGISTRY
    start_http_server(9100)
    while True:
        if pull.poll(1000):
            handle(pull.recv_multipart())
        stats.observe(pull, "ingest")   # at most once per poll timeout, on pull's thread

The metric names and labels are listed in docs/statistics.md. Every series
is per socket (label ``socket``: the name given to ``observe``, and
``type``): totals include connections that have ended, so the counters never
go backwards, as Prometheus requires. Per connection there are only gauges
(queue depths), and only with ``per_connection=True``:
a connection's counters would vanish when it ends, and a busy ROUTER would
make a series per peer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

try:
    from prometheus_client.core import (
        REGISTRY,
        CounterMetricFamily,
        GaugeMetricFamily,
        Metric,
    )
    from prometheus_client.registry import CollectorRegistry
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "purezmq.utils.prometheus needs prometheus_client: pip install 'purezmq[prometheus]'"
    ) from exc

__all__ = ["StatsCollector"]

#: The counters: metric name, help, and the snapshot key for each value of
#: the ``direction`` label (``None``: the metric has no such label).
_COUNTERS: tuple[tuple[str, str, tuple[tuple[str, str | None], ...]], ...] = (
    ("messages", "Messages: in, received by the application; out, queued for the peers.",
     (("msgs_in", "in"), ("msgs_out", "out"))),
    ("bytes", "Bytes on the wire, ZMTP framing included (0 for inproc).",
     (("bytes_in", "in"), ("bytes_out", "out"))),
    ("dropped_messages", "Messages dropped at a peer's high-water mark (PUB, XPUB, XSUB, ROUTER).",
     (("drops_hwm", None),)),
    ("reconnects", "Times a connect-side connection was lost and retried.",
     (("reconnects", None),)),
    ("handshake_failures", "Handshakes that failed (socket type, security, timeout).",
     (("handshake_failures", None),)),
)  # fmt: skip


class StatsCollector:
    """A prometheus_client collector of purezmq socket statistics.

    ``registry``: where to register (prometheus_client's default REGISTRY;
    ``None`` registers nowhere, for use with ``registry.register`` later).
    ``namespace``: the metric name prefix. ``per_connection``: also export
    each connection's queue depths (see the module docstring for why
    counters are per socket only).
    """

    def __init__(
        self,
        registry: CollectorRegistry | None = REGISTRY,
        *,
        namespace: str = "purezmq",
        per_connection: bool = False,
    ) -> None:
        self.namespace = namespace
        self.per_connection = per_connection
        self._lock = threading.Lock()
        self._snapshots: dict[str, Mapping[str, Any]] = {}
        self._owners: dict[str, int] = {}  # name -> id() of the socket observed
        if registry is not None:
            registry.register(self)

    def observe(self, socket: Any, name: str) -> dict[str, Any]:
        """Take ``socket``'s statistics now, to be reported as ``name``.

        Call it from the thread that owns the socket (it calls
        ``socket.get_stats()``); the snapshot is returned too. The same name
        again replaces that socket's snapshot; another socket under a name
        in use is a mistake (its counters would seem to jump) and raises
        ValueError, unless the first was forgotten.
        """
        snapshot: dict[str, Any] = socket.get_stats()
        with self._lock:
            if self._owners.setdefault(name, id(socket)) != id(socket):
                raise ValueError(
                    f"another socket is already reported as {name!r}: give each socket its "
                    "own name, or forget() the first"
                )
            self._snapshots[name] = snapshot
        return snapshot

    def forget(self, name: str) -> None:
        """Stop reporting ``name`` (a closed socket's last snapshot is
        otherwise reported until then, so that its final counts are seen)."""
        with self._lock:
            self._snapshots.pop(name, None)
            self._owners.pop(name, None)

    def names(self) -> list[str]:
        """The sockets reported, by name."""
        with self._lock:
            return sorted(self._snapshots)

    # ------------------------------------------------ prometheus_client API
    def describe(self) -> list[Metric]:
        """The metric families, without samples: lets the registry check
        names for collisions at registration."""
        return list(self._families({}))

    def collect(self) -> Iterator[Metric]:
        """One family per metric, with a sample per observed socket."""
        with self._lock:
            snapshots = dict(self._snapshots)
        yield from self._families(snapshots)

    def _families(self, snapshots: Mapping[str, Mapping[str, Any]]) -> Iterator[Metric]:
        ns = self.namespace
        for metric, doc, values in _COUNTERS:
            directed = values[0][1] is not None
            labels = ["socket", "type"] + (["direction"] if directed else [])
            family = CounterMetricFamily(f"{ns}_socket_{metric}", doc, labels=labels)
            for name, s in sorted(snapshots.items()):
                for key, direction in values:
                    extra = [direction] if direction is not None else []
                    family.add_metric([name, s["socket_type"], *extra], s[key])
            yield family

        queued = GaugeMetricFamily(
            f"{ns}_socket_queued_messages",
            "Messages waiting now: in, for the application; out, for the peers.",
            labels=["socket", "type", "direction"],
        )
        conns = GaugeMetricFamily(
            f"{ns}_socket_connections",
            "The socket's connections: up (handshake done), or down (connecting or retrying).",
            labels=["socket", "type", "state"],
        )
        for name, s in sorted(snapshots.items()):
            queued.add_metric([name, s["socket_type"], "in"], s["queued_in"])
            queued.add_metric([name, s["socket_type"], "out"], s["queued_out"])
            up = sum(1 for c in s["connections"] if c["connected"])
            conns.add_metric([name, s["socket_type"], "up"], up)
            conns.add_metric([name, s["socket_type"], "down"], len(s["connections"]) - up)
        yield queued
        yield conns
        if self.per_connection:
            yield self._connection_queues(snapshots)

    def _connection_queues(self, snapshots: Mapping[str, Mapping[str, Any]]) -> Metric:
        """Queue depth per connection, summed over connections that look the
        same from here (two peers of one host on one endpoint)."""
        family = GaugeMetricFamily(
            f"{self.namespace}_connection_queued_messages",
            "Messages waiting now per connection (same endpoint and peer address summed).",
            labels=["socket", "endpoint", "peer_address", "direction"],
        )
        for name, s in sorted(snapshots.items()):
            sums: dict[tuple[str, str, str], int] = {}
            for c in s["connections"]:
                for direction in ("in", "out"):
                    k = (c["endpoint"], c["peer_address"], direction)
                    sums[k] = sums.get(k, 0) + c[f"queued_{direction}"]
            for (endpoint, peer, direction), n in sorted(sums.items()):
                family.add_metric([name, endpoint, peer, direction], n)
        return family
