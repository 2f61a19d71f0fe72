"""The Prometheus exporter: purezmq.utils.prometheus and `purezmq stats
--prometheus`, scraped as Prometheus would and parsed with prometheus_client's
own parser. The counts must be exactly what the test sent."""

from __future__ import annotations

import os
import socket
import urllib.request
from collections.abc import Callable, Iterator

import pytest

import purezmq as zmq
from tests.conftest import wait_until

from .helpers import Command

if os.environ.get("CI") and not os.environ.get("PUREZMQ_PURE"):
    import prometheus_client  # CI installs the prometheus extra: a skip would hide these tests
else:
    prometheus_client = pytest.importorskip("prometheus_client", reason="the prometheus extra")

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from purezmq.utils.prometheus import StatsCollector

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _samples(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _get(samples: Samples, name: str, **labels: str) -> float:
    """A sample of purezmq_socket_<name>."""
    return samples[(f"purezmq_socket_{name}", frozenset(labels.items()))]


@pytest.fixture
def pair() -> Iterator[tuple[zmq.Socket, zmq.Socket]]:
    ctx = zmq.Context()
    pull = ctx.socket(zmq.PULL)
    push = ctx.socket(zmq.PUSH)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    push.connect(f"tcp://127.0.0.1:{port}")
    yield pull, push
    ctx.destroy(linger=0)


def test_scrape_reports_exactly_what_was_sent(pair: tuple[zmq.Socket, zmq.Socket]) -> None:
    pull, push = pair
    registry = CollectorRegistry()
    stats = StatsCollector(registry, per_connection=True)
    for i in range(25):
        push.send_multipart([b"k", b"v%d" % i])
    for _ in range(20):
        pull.recv_multipart()
    wait_until(lambda: pull.get_stats()["queued_in"] == 5)
    stats.observe(pull, "ingest")
    stats.observe(push, "feeder")
    got = _samples(generate_latest(registry).decode())
    assert _get(got, "messages_total", socket="ingest", type="PULL", direction="in") == 20
    assert _get(got, "messages_total", socket="feeder", type="PUSH", direction="out") == 25
    assert _get(got, "queued_messages", socket="ingest", type="PULL", direction="in") == 5
    assert _get(got, "connections", socket="ingest", type="PULL", state="up") == 1
    assert _get(got, "dropped_messages_total", socket="ingest", type="PULL") == 0
    wire_in = _get(got, "bytes_total", socket="ingest", type="PULL", direction="in")
    assert wire_in == pull.get_stats()["bytes_in"] > 25 * 3
    conn_queue = [v for (name, labels), v in got.items()
                  if name == "purezmq_connection_queued_messages" and ("direction", "in") in labels
                  and ("socket", "ingest") in labels]  # fmt: skip
    assert conn_queue == [5]
    assert stats.names() == ["feeder", "ingest"]


def test_a_scrape_sees_the_last_observation_only(pair: tuple[zmq.Socket, zmq.Socket]) -> None:
    """Scrapes never touch the socket (another thread): what they report is
    the snapshot observed last, and a forgotten socket disappears."""
    pull, push = pair
    registry = CollectorRegistry()
    stats = StatsCollector(registry)
    push.send(b"1")
    pull.recv()
    stats.observe(pull, "p")
    push.send(b"2")
    pull.recv()
    got = _samples(generate_latest(registry).decode())
    assert _get(got, "messages_total", socket="p", type="PULL", direction="in") == 1
    stats.observe(pull, "p")
    got = _samples(generate_latest(registry).decode())
    assert _get(got, "messages_total", socket="p", type="PULL", direction="in") == 2
    stats.forget("p")
    assert not any(labels for (_, labels) in _samples(generate_latest(registry).decode()))


def test_one_name_per_socket(pair: tuple[zmq.Socket, zmq.Socket]) -> None:
    pull, push = pair
    stats = StatsCollector(CollectorRegistry())
    stats.observe(pull, "x")
    with pytest.raises(ValueError, match="already reported as 'x'"):
        stats.observe(push, "x")
    stats.forget("x")
    stats.observe(push, "x")


def test_metric_names_collide_at_registration() -> None:
    registry = CollectorRegistry()
    StatsCollector(registry)
    with pytest.raises(ValueError, match="Duplicated timeseries"):
        StatsCollector(registry)
    StatsCollector(registry, namespace="other")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return _samples(r.read().decode())


def test_cli_serves_the_metrics(start: Callable[..., Command]) -> None:
    port = _free_port()
    stats = start(
        "stats", "-t", "PULL", "-b", "tcp://127.0.0.1:*", "--interval", "0.2",
        "--prometheus", f"127.0.0.1:{port}", "--name", "sink",
    )  # fmt: skip
    sender = start("send", "-c", stats.endpoint(), stdin=b"m\n" * 7, close_stdin=False)
    key = ("purezmq_socket_messages_total",
           frozenset({"socket": "sink", "type": "PULL", "direction": "in"}.items()))  # fmt: skip
    seen: Samples = {}

    def counted() -> bool:
        nonlocal seen
        try:
            seen = _scrape(port)
        except OSError:  # the server is not up yet
            return False
        return seen.get(key) == 7

    wait_until(counted, timeout=30, interval=0.1)
    sender.kill()
    stats.kill()
    assert seen.get(key) == 7, sorted(seen)
    assert ("process_cpu_seconds_total", frozenset()) in seen  # the default registry's own


def test_cli_refuses_a_bad_address() -> None:
    from .helpers import purezmq as run

    got = run("stats", "-t", "PULL", "-b", "tcp://127.0.0.1:*", "--prometheus", "70000")
    assert got.status != 0
    assert "PORT in 1-65535" in got.stderr
