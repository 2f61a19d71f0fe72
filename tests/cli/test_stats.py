"""stats and top: a socket's counters, read by the CLI from Socket.get_stats()."""

from __future__ import annotations

import json
from collections.abc import Callable

from .helpers import Command
from .helpers import purezmq as run

Start = Callable[..., Command]
ANY = "tcp://127.0.0.1:*"


def test_stats_counts_exactly_what_was_received(start: Start) -> None:
    stats = start("stats", "-t", "PULL", "-b", ANY, "-n", "10", "--interval", "60")
    # The sender stays connected (its input is still open) while stats reads
    # the counters at the tenth message.
    sender = start("send", "-c", stats.endpoint(), stdin=b"hello\n" * 10, close_stdin=False)
    got = stats.finish()
    sender.kill()
    assert got.status == 0, got
    last = json.loads(got.lines[-1])
    assert last["socket_type"] == "PULL"
    assert last["msgs_in"] == 10
    assert last["bytes_in"] >= 10 * len(b"hello")
    assert last["msgs_out"] == 0 and last["drops_hwm"] == 0
    (conn,) = last["connections"]
    assert conn["connected"] and conn["msgs_in"] == 10


def test_stats_keep_the_count_of_a_sender_that_left(start: Start) -> None:
    stats = start("stats", "-t", "PULL", "-b", ANY, "-n", "10", "--interval", "60")
    sent = run("send", "-c", stats.endpoint(), "-m", "hello", "--repeat", "10")
    assert sent.status == 0, sent
    got = stats.finish()
    assert got.status == 0, got
    assert json.loads(got.lines[-1])["msgs_in"] == 10


def test_stats_snapshots_are_json_lines_with_connections(start: Start) -> None:
    stats = start("stats", "-t", "PULL", "-b", ANY, "--interval", "0.2", "--iterations", "3")
    ep = stats.endpoint()
    sender = start("send", "-c", ep, "--rate", "20", "-m", "x", "--repeat", "1000")
    got = stats.finish()
    sender.kill()
    assert got.status == 0, got
    snapshots = [json.loads(line) for line in got.lines]
    assert len(snapshots) >= 3
    assert [s["socket_type"] for s in snapshots] == ["PULL"] * len(snapshots)
    keys = {"endpoint", "peer_address", "connected", "msgs_in", "msgs_out", "bytes_in",
            "bytes_out", "queued_in", "queued_out", "reconnects", "handshake_failures"}  # fmt: skip
    connections = [c for s in snapshots for c in s["connections"]]
    assert connections and all(keys <= set(c) for c in connections)
    assert [s["msgs_in"] for s in snapshots] == sorted(s["msgs_in"] for s in snapshots)


def test_top_draws_a_table_per_interval(start: Start) -> None:
    top = start("top", "-t", "PULL", "-b", ANY, "--interval", "0.2", "-n", "5", "--plain")
    sender = start("send", "-c", top.endpoint(), stdin=b"m\n" * 5, close_stdin=False)
    got = top.finish()
    sender.kill()
    assert got.status == 0, got
    text = got.stdout.decode()
    tables = [t for t in text.split("\n\n") if t.strip()]
    assert tables and all(t.startswith("PULL socket: ") for t in tables)
    header = tables[-1].splitlines()[1].split()
    assert header[:4] == ["endpoint", "peer", "up", "msgs"]
    total = tables[-1].splitlines()[2].split()
    assert total[:2] == ["(total)", "5"]
