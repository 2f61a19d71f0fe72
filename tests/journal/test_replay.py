"""Replay: a journaled range served back onto PUSH and PUB sockets."""

from __future__ import annotations

import threading

import pytest

import purezmq as zmq
from purezmq.journal import DataLossError, Journal, ReplayTarget, replay

from .conftest import fill


def test_replay_a_range_to_pull_with_seq_frames(journal: Journal, ctx: zmq.Context) -> None:
    fill(journal, "s", 40, per_segment=7)
    pull = ctx.socket(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    n = replay(journal, "s", ReplayTarget("PUSH", connect=[f"tcp://127.0.0.1:{port}"]), 10, 25,
               with_seq=True, context=ctx)  # fmt: skip
    got = [pull.recv_multipart() for _ in range(n)]
    assert n == 15
    assert got == [[b"s:%d" % i, b"s-%d" % i] for i in range(10, 25)]
    assert not pull.poll(50)


def test_replay_to_pub_waits_for_a_subscriber(journal: Journal, ctx: zmq.Context) -> None:
    with journal.writer("t") as w:
        for i in range(10):
            w.append([b"topic", b"%d" % i], topic=b"topic")
    sub = ctx.socket(zmq.SUB)
    sub.subscribe(b"topic")
    port = sub.bind_to_random_port("tcp://127.0.0.1")
    result: list[int] = []
    th = threading.Thread(target=lambda: result.append(replay(
        journal, "t", ReplayTarget("PUB", connect=[f"tcp://127.0.0.1:{port}"]),
        with_seq=True, context=ctx)))  # fmt: skip
    th.start()
    got = [sub.recv_multipart() for _ in range(10)]
    th.join(10)
    assert result == [10]
    assert got[3] == [b"topic", b"t:3", b"3"]  # the seq frame comes after the topic


def test_replay_refuses_lost_ranges_before_sending(journal: Journal, ctx: zmq.Context) -> None:
    fill(journal, "s", 30, per_segment=10)
    journal.apply_retention(max_bytes=0)
    with pytest.raises(DataLossError):
        replay(journal, "s", ReplayTarget("PUSH", connect=["tcp://127.0.0.1:1"]), 0, 30,
               context=ctx)  # fmt: skip


def test_missing_push_peer_fails_instead_of_hanging(journal: Journal, ctx: zmq.Context) -> None:
    fill(journal, "s", 3)
    target = ReplayTarget("PUSH", connect=["tcp://127.0.0.1:1"], send_timeout_ms=200)
    with pytest.raises(zmq.Again):
        replay(journal, "s", target, context=ctx)


def test_bad_targets() -> None:
    with pytest.raises(ValueError, match="PUSH or PUB"):
        ReplayTarget("ROUTER", bind=["inproc://x"])
    with pytest.raises(ValueError, match="no endpoint"):
        ReplayTarget("PUSH")
