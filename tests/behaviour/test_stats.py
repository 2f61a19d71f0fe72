"""Socket.get_stats(): exact counts of what sockets and connections did.

Each test counts what it sends and receives itself and compares once the
traffic is quiet (a snapshot may lead by the message being handed over
while messages flow). Drops are checked where libzmq drops: a PUB to a
subscriber at its HWM, a ROUTER to a full peer.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import purezmq as zmq
from tests.conftest import wait_until

from .conftest import bind_any, wait_for_peers

N = 500


def _pair(
    make: Callable[..., zmq.Socket],
    endpoint_for: Callable[[str], str],
    transport: str,
    bind_type: int,
    connect_type: int,
    **options: int,
) -> tuple[zmq.Socket, zmq.Socket]:
    bound = make(bind_type, **options)
    peer = make(connect_type, **options)
    addr = bind_any(bound, endpoint_for(transport))
    wait_for_peers(bound, lambda: peer.connect(addr), 1, transport)
    return bound, peer


def test_push_pull_counts_every_message_and_byte(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str], transport: str
) -> None:
    pull, push = _pair(make, endpoint_for, transport, zmq.PULL, zmq.PUSH)
    for i in range(N):
        push.send(b"m%d" % i)
    push.send_multipart([b"a", b"bb", b"ccc"])  # one message, three frames
    for _ in range(N):
        pull.recv()
    assert pull.recv_multipart() == [b"a", b"bb", b"ccc"]

    sent, got = push.get_stats(), pull.get_stats()
    assert (sent["socket_type"], got["socket_type"]) == ("PUSH", "PULL")
    assert sent["msgs_out"] == got["msgs_in"] == N + 1
    assert sent["msgs_in"] == got["msgs_out"] == 0
    assert sent["queued_out"] == got["queued_in"] == 0
    assert sent["drops_hwm"] == got["drops_hwm"] == 0
    [conn] = got["connections"]
    assert conn["transport"] == transport and conn["connected"]
    assert conn["msgs_in"] == N + 1
    if transport == "inproc":
        assert got["bytes_in"] == sent["bytes_out"] == 0  # no wire
    else:
        # What one end wrote, the other read: framing and handshake included.
        wait_until(lambda: pull.get_stats()["bytes_in"] == push.get_stats()["bytes_out"])
        payload = sum(len(b"m%d" % i) for i in range(N)) + 6
        assert got["bytes_in"] > payload
        if transport == "tcp":
            assert conn["peer_address"] == "127.0.0.1"
    json.dumps(got)  # a plain snapshot, for exporters and the CLI


def test_queued_messages_show_until_read(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str], transport: str
) -> None:
    pull, push = _pair(make, endpoint_for, transport, zmq.PULL, zmq.PUSH)
    for _ in range(7):
        push.send(b"x")
    # Read-ahead moves received bytes into the queue even if nobody reads.
    wait_until(lambda: pull.get_stats()["queued_in"] == 7)
    assert pull.get_stats()["msgs_in"] == 0
    for _ in range(3):
        pull.recv()
    stats = pull.get_stats()
    assert (stats["queued_in"], stats["msgs_in"]) == (4, 3)


def test_totals_keep_connections_that_ended(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str], transport: str
) -> None:
    pull, push = _pair(make, endpoint_for, transport, zmq.PULL, zmq.PUSH)
    for _ in range(10):
        push.send(b"x")
    for _ in range(10):
        pull.recv()
    push.close()
    wait_until(lambda: not pull.get_stats()["connections"])
    stats = pull.get_stats()
    assert stats["msgs_in"] == 10
    if transport != "inproc":
        assert stats["bytes_in"] > 10


def test_messages_of_a_peer_that_left_count_as_they_are_read(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str], transport: str
) -> None:
    """A peer sends and leaves before anything is read: its connection ends
    with its messages queued, the socket still delivers them, and each
    counts once it is read (not at the end of the connection, when none was)."""
    pull, push = _pair(make, endpoint_for, transport, zmq.PULL, zmq.PUSH, linger=-1)
    for _ in range(10):
        push.send(b"x")
    wait_until(lambda: pull.get_stats()["queued_in"] == 10)
    push.close()
    wait_until(lambda: not pull.get_stats()["connections"])
    stats = pull.get_stats()
    assert (stats["msgs_in"], stats["queued_in"]) == (0, 10)
    for n in range(1, 11):
        pull.recv()
        stats = pull.get_stats()
        assert (stats["msgs_in"], stats["queued_in"]) == (n, 10 - n)


def test_pub_counts_what_it_drops_at_the_hwm(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str], transport: str
) -> None:
    sub = make(zmq.SUB, rcvhwm=5)
    pub = make(zmq.PUB, sndhwm=5)
    sub.subscribe(b"")
    addr = bind_any(pub, endpoint_for(transport))
    sub.connect(addr)
    # Until the subscription reaches PUB, it filters (neither sends nor drops):
    # probe until the subscriber has one, then count from there.
    wait_until(lambda: pub.send(b"probe") is None and sub.poll(10))
    sub.recv()
    before = pub.get_stats()
    # A subscriber that reads nothing: once its queues (and, over tcp/ipc, the
    # kernel's buffers) are full, PUB drops, as libzmq does.
    payload = b"p" * 1000
    for _ in range(20_000):
        pub.send(payload)
    stats = pub.get_stats()
    assert stats["drops_hwm"] > 0
    # Every message was either queued for the subscriber or dropped.
    counted = stats["msgs_out"] + stats["drops_hwm"]
    assert counted - (before["msgs_out"] + before["drops_hwm"]) == 20_000
    [conn] = stats["connections"]
    assert conn["drops_hwm"] == stats["drops_hwm"]


def test_router_counts_drops_to_a_full_peer(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str]
) -> None:
    router, dealer = _pair(make, endpoint_for, "inproc", zmq.ROUTER, zmq.DEALER, sndhwm=3, rcvhwm=3)
    dealer.send(b"hello")
    rid, _ = router.recv_multipart()
    for _ in range(100):
        router.send_multipart([rid, b"reply"])
    stats = router.get_stats()
    assert stats["drops_hwm"] > 0
    assert stats["msgs_out"] + stats["drops_hwm"] == 100


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_reconnects_and_failed_handshakes(
    make: Callable[..., zmq.Socket], endpoint_for: Callable[[str], str], transport: str
) -> None:
    pull = make(zmq.PULL)
    addr = bind_any(pull, endpoint_for(transport))
    push = make(zmq.PUSH, reconnect_ivl=10)
    wait_for_peers(pull, lambda: push.connect(addr), 1, transport)
    pull.close()  # the peer goes away: push reconnects (and keeps trying)
    wait_until(lambda: push.get_stats()["reconnects"] >= 1)
    assert push.get_stats()["connections"][0]["reconnects"] >= 1

    other = make(zmq.PUSH)  # PUSH to PUSH: refused during the handshake
    wrong = make(zmq.PUSH)
    wrong.connect(bind_any(other, endpoint_for(transport)))
    wait_until(lambda: wrong.get_stats()["handshake_failures"] >= 1)


def test_closed_socket_has_no_stats(make: Callable[..., zmq.Socket]) -> None:
    s = make(zmq.PAIR)
    s.close()
    with pytest.raises(zmq.ZMQError) as info:
        s.get_stats()
    assert info.value.errno == zmq.ENOTSOCK
