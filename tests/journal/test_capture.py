"""Capture: live purezmq sockets into the journal (in-process, real sockets)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import purezmq as zmq
from purezmq.journal import Capture, CaptureSource, Journal, StreamStats
from tests.conftest import wait_until


@contextmanager
def running(cap: Capture) -> Iterator[dict[str, StreamStats]]:
    """Run `cap` in a thread; stop it (sealing everything) on exit."""
    out: dict[str, StreamStats] = {}
    t = threading.Thread(target=lambda: out.update(cap.run()), daemon=True)
    t.start()
    assert cap.wait_ready(10)
    try:
        yield out
    finally:
        cap.stop()
        t.join(10)
        assert not t.is_alive()


def test_pull_capture_keeps_order_and_frames(journal: Journal, ctx: zmq.Context) -> None:
    cap = Capture(journal, [CaptureSource("jobs", "PULL", bind=["tcp://127.0.0.1:*"])],
                  seal_age_s=0.05, context=ctx)  # fmt: skip
    with running(cap) as stats:
        push = ctx.socket(zmq.PUSH)
        push.connect(cap.endpoints["jobs"][0])
        for i in range(500):
            push.send_multipart([b"job", str(i).encode()])
        wait_until(lambda: cap.stats["jobs"].received == 500)
    push.close()
    assert stats["jobs"].received == 500 and stats["jobs"].sealed == 500
    msgs = list(journal.messages("jobs"))
    assert [m.seq for m in msgs] == list(range(500))
    assert [m.frames for m in msgs] == [[b"job", str(i).encode()] for i in range(500)]
    assert all(m.topic is None for m in msgs)


def test_sub_capture_filters_topics(journal: Journal, ctx: zmq.Context) -> None:
    pub = ctx.socket(zmq.PUB)
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    src = CaptureSource("md", "SUB", connect=[f"tcp://127.0.0.1:{port}"], topics=[b"eur", b"usd"])
    cap = Capture(journal, [src], seal_age_s=0.05, context=ctx)
    with running(cap):
        # Slow joiner: publish until the subscription is surely in place.
        wait_until(
            lambda: (pub.send_multipart([b"usd.sync", b"x"]), cap.stats["md"].received)[1] > 0
        )
        before = cap.stats["md"].received
        for i in range(100):
            pub.send_multipart([b"eur.fx", b"%d" % i])
            pub.send_multipart([b"jpy.fx", b"%d" % i])
        pub.send_multipart([b"usd.end", b"end"])
        wait_until(lambda: cap.stats["md"].received >= before + 101)
    pub.close()
    topics = [m.topic for m in journal.messages("md")]
    assert b"jpy.fx" not in topics
    assert topics.count(b"eur.fx") == 100 and topics[-1] == b"usd.end"


def test_router_capture_acks_only_durable_messages(journal: Journal, ctx: zmq.Context) -> None:
    src = CaptureSource("in", "ROUTER", bind=["tcp://127.0.0.1:*"], ack=True)
    cap = Capture(journal, [src], seal_age_s=0.2, context=ctx)
    with running(cap):
        dealer = ctx.socket(zmq.DEALER)
        dealer.connect(cap.endpoints["in"][0])
        for i in range(20):
            dealer.send_multipart([b"id-%d" % i, b"payload"])
        acks = []
        while len(acks) < 20:
            assert dealer.poll(5000), "no acknowledgement"
            acks.append(dealer.recv_multipart())
            # Every acknowledged message is already in a sealed segment.
            assert journal.count("in") >= len(acks)
        dealer.close()
    assert sorted(a[0] for a in acks) == sorted(b"id-%d" % i for i in range(20))
    assert cap.stats["in"].acked == 20
    assert [m.frames[0] for m in journal.messages("in")] == [b"id-%d" % i for i in range(20)]


def test_several_sources_and_max_messages(journal: Journal, ctx: zmq.Context) -> None:
    cap = Capture(journal, [
        CaptureSource("a", "PULL", bind=["inproc://cap-a"]),
        CaptureSource("b", "PULL", bind=["inproc://cap-b"]),
    ], context=ctx)  # fmt: skip
    out: dict[str, StreamStats] = {}
    t = threading.Thread(target=lambda: out.update(cap.run(max_messages=30)))
    t.start()
    assert cap.wait_ready(5)
    pa_, pb = ctx.socket(zmq.PUSH), ctx.socket(zmq.PUSH)
    pa_.connect("inproc://cap-a")
    pb.connect("inproc://cap-b")
    for i in range(15):
        pa_.send(b"a%d" % i)
        pb.send(b"b%d" % i)
    t.join(10)
    assert not t.is_alive()
    pa_.close()
    pb.close()
    assert journal.count("a") + journal.count("b") == 30 == out["a"].received + out["b"].received


def test_bad_sources_are_refused() -> None:
    with pytest.raises(ValueError, match="SUB, PULL or ROUTER"):
        CaptureSource("s", "PUB", bind=["tcp://*:1"])
    with pytest.raises(ValueError, match="no endpoint"):
        CaptureSource("s", "PULL")
    with pytest.raises(ValueError, match="SUB sources only"):
        CaptureSource("s", "PULL", bind=["inproc://x"], topics=[b"a"])
    with pytest.raises(ValueError, match="ROUTER sources only"):
        CaptureSource("s", "PULL", bind=["inproc://x"], ack=True)


def test_two_sources_cannot_share_a_stream(journal: Journal) -> None:
    s = CaptureSource("s", "PULL", bind=["inproc://x"])
    with pytest.raises(ValueError, match="own stream"):
        Capture(journal, [s, s])
