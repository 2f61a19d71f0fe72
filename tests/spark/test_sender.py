"""The sink's sending side over real purezmq sockets: delivery, timeouts, acks."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

import purezmq as zmq
from purezmq.spark.consumer import SinkReceiver
from purezmq.spark.options import SinkOptions
from purezmq.spark.protocol import HeaderPrefix
from purezmq.spark.sender import Sender, SinkError


def opts(endpoint: str, **kw: str) -> SinkOptions:
    return SinkOptions.parse({"endpoint": endpoint, **kw})


@pytest.fixture
def serve(ctx: zmq.Context) -> Iterator[Callable[..., tuple[str, SinkReceiver]]]:
    """serve(type, drop_first=0) -> (endpoint, receiver) polled by a thread until teardown."""
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def make(stype: int, drop_first: int = 0) -> tuple[str, SinkReceiver]:
        sock = ctx.socket(stype)
        if stype == zmq.SUB:
            sock.subscribe(b"")
        port = sock.bind_to_random_port("tcp://127.0.0.1")
        recv = SinkReceiver(sock)
        dropped = [0]

        def loop() -> None:
            while not stop.is_set():
                if dropped[0] < drop_first and sock.poll(50):
                    sock.recv_multipart()  # lost in transit: neither kept nor acknowledged
                    dropped[0] += 1
                    continue
                recv.poll(50)
            sock.close(linger=0)

        t = threading.Thread(target=loop, daemon=True)
        t.start()
        threads.append(t)
        return f"tcp://127.0.0.1:{port}", recv

    yield make
    stop.set()
    for t in threads:
        t.join(5)


def send_all(o: SinkOptions, n: int, token: str = "tok") -> Sender:
    hp = HeaderPrefix("q", 0, 0, 0, token)
    s = Sender(o)
    for i in range(n):
        msg = [hp.encode(i), b"v%d" % i]
        s.send([o.topic or b"", *msg] if o.socket_type == "PUB" else msg, i)
    s.close()
    return s


def test_push_delivers_everything(serve: Callable[..., tuple[str, SinkReceiver]]) -> None:
    ep, recv = serve(zmq.PULL)
    send_all(opts(ep), 500)
    from tests.conftest import wait_until

    wait_until(lambda: recv.stats.messages == 500)


def test_missing_peer_fails_within_send_timeout() -> None:
    with pytest.raises(SinkError, match="sendTimeoutMs=200"):
        send_all(opts("tcp://127.0.0.1:1", sendTimeoutMs="200"), 1)


def test_router_acks_every_message(serve: Callable[..., tuple[str, SinkReceiver]]) -> None:
    ep, recv = serve(zmq.ROUTER)
    s = send_all(opts(ep, ackMode="router", ackWindow="50"), 300)
    assert not s.unacked and s.resends == 0
    assert recv.stats.messages == 300 and recv.acks_sent == 300


def test_lost_messages_are_resent_and_deduplicated(
    serve: Callable[..., tuple[str, SinkReceiver]],
) -> None:
    ep, recv = serve(zmq.ROUTER, drop_first=5)
    s = send_all(opts(ep, ackMode="router", ackTimeoutMs="300", ackWindow="20"), 40)
    assert s.resends >= 5 and not s.unacked
    # Resends of messages that had arrived are duplicates: the receiver drops them.
    assert recv.stats.messages - recv.stats.duplicates == 40


def test_no_acks_fails_the_task(ctx: zmq.Context) -> None:
    silent = ctx.socket(zmq.ROUTER)  # takes messages, never acknowledges
    port = silent.bind_to_random_port("tcp://127.0.0.1")
    o = opts(f"tcp://127.0.0.1:{port}", ackMode="router", ackTimeoutMs="100", ackRetries="2")
    with pytest.raises(SinkError, match="unacknowledged after 2 resends"):
        send_all(o, 3)
    got = 0
    while silent.poll(100):
        silent.recv_multipart()
        got += 1
    assert got == 9  # 3 messages, sent 3 times each
    silent.close()


def test_pub_waits_for_a_subscriber_or_fails(
    serve: Callable[..., tuple[str, SinkReceiver]],
) -> None:
    ep, recv = serve(zmq.SUB)
    send_all(opts(ep, socketType="PUB", topic="t"), 100)
    from tests.conftest import wait_until

    wait_until(lambda: recv.stats.messages == 100)  # none lost to the slow joiner
    with pytest.raises(SinkError, match="0 of 1 subscribers"):
        send_all(opts("tcp://127.0.0.1:1", socketType="PUB", topic="t", subscribeWaitMs="100"), 1)
