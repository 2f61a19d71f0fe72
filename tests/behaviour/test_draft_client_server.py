"""CLIENT/SERVER (RFC 41; libzmq tests/test_client_server.cpp), over tcp, ipc
and inproc: routing ids, single-part messages, and sharing one socket
between threads."""

from __future__ import annotations

import contextlib
import threading

import pytest

import purezmq as zmq

from .conftest import bind_any, wait_for_peers, wait_until


def test_request_reply_by_routing_id(make, endpoint_for, transport):
    server = make(zmq.SERVER)
    ep = bind_any(server, endpoint_for(transport))
    clients = [make(zmq.CLIENT) for _ in range(3)]
    for c in clients:
        wait_for_peers(server, lambda c=c: c.connect(ep), 1, transport)
    for i, c in enumerate(clients):
        c.send(b"request %d" % i)
    ids = {}
    for _ in clients:
        frame = server.recv(copy=False)
        assert isinstance(frame.routing_id, int) and frame.routing_id != 0
        ids[frame.bytes] = frame.routing_id
    assert len(set(ids.values())) == 3  # one id per peer
    for i in range(len(clients)):
        server.send(b"reply %d" % i, routing_id=ids[b"request %d" % i])
    for i, c in enumerate(clients):
        assert c.recv() == b"reply %d" % i


def test_frame_sent_back_goes_to_its_sender(make, endpoint_for, transport):
    server = make(zmq.SERVER)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.CLIENT)
    client.connect(ep)
    client.send(b"echo me")
    frame = server.recv(copy=False)
    server.send(frame)  # the Frame carries its routing id
    assert client.recv() == b"echo me"


def test_unknown_routing_id_is_ehostunreach(make, endpoint_for, transport):
    server = make(zmq.SERVER)
    bind_any(server, endpoint_for(transport))
    with pytest.raises(zmq.ZMQError) as e:
        server.send(b"nobody", routing_id=1)
    assert e.value.errno == zmq.EHOSTUNREACH
    with pytest.raises(zmq.ZMQError) as e:
        server.send(b"no routing id at all")
    assert e.value.errno == zmq.EHOSTUNREACH


def test_sndmore_is_einval(make, endpoint_for, transport):
    server = make(zmq.SERVER)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.CLIENT)
    client.connect(ep)
    for sock in (client, server):
        with pytest.raises(zmq.ZMQError) as e:
            sock.send(b"part", zmq.SNDMORE)
        assert e.value.errno == zmq.EINVAL
        with pytest.raises(zmq.ZMQError) as e:
            sock.send_multipart([b"a", b"b"])
        assert e.value.errno == zmq.EINVAL


def test_multipart_from_a_peer_is_dropped(make, endpoint_for, transport):
    """A DEALER is not a legal peer over tcp/ipc (handshake refused), so this
    checks the pattern with a CLIENT peer: a lone message still arrives after
    a refused multipart send left nothing behind."""
    server = make(zmq.SERVER)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.CLIENT)
    client.connect(ep)
    with pytest.raises(zmq.ZMQError):
        client.send(b"first", zmq.SNDMORE)
    client.send(b"whole")
    assert server.recv() == b"whole"


def test_client_round_robin(make, endpoint_for, transport):
    client = make(zmq.CLIENT)
    ep = bind_any(client, endpoint_for(transport))
    servers = [make(zmq.SERVER) for _ in range(2)]
    for s in servers:
        wait_for_peers(client, lambda s=s: s.connect(ep), 1, transport)
    for i in range(4):
        client.send(b"%d" % i)
    got = [sorted(s.recv() for _ in range(2)) for s in servers]
    assert sorted(got) == [[b"0", b"2"], [b"1", b"3"]]


def test_server_shared_by_threads(make, endpoint_for, transport):
    """Four worker threads block in recv() on one SERVER and reply; a blocked
    recv does not stop another thread's send (libzmq's thread-safe sockets)."""
    server = make(zmq.SERVER)
    ep = bind_any(server, endpoint_for(transport))
    clients = [make(zmq.CLIENT) for _ in range(4)]
    for c in clients:
        c.connect(ep)
    served: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(5):
            frame = server.recv(copy=False)
            server.send(frame.bytes.upper(), routing_id=frame.routing_id)
            with lock:
                served.append(threading.current_thread().name)

    workers = [threading.Thread(target=worker, name=f"w{i}") for i in range(4)]
    for w in workers:
        w.start()
    replies = []
    for _ in range(5):
        for i, c in enumerate(clients):
            c.send(b"job from %d" % i)
        for i, c in enumerate(clients):
            replies.append(c.recv())
            assert replies[-1] == b"JOB FROM %d" % i
    for w in workers:
        w.join(10)
        assert not w.is_alive()
    assert len(served) == 20 and len(replies) == 20


def test_client_shared_by_threads_sending(make, endpoint_for, transport):
    """Threads send on one CLIENT while another thread receives on it."""
    server = make(zmq.SERVER)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.CLIENT)
    client.connect(ep)
    received: list[bytes] = []

    def echo() -> None:
        for _ in range(40):
            f = server.recv(copy=False)
            server.send(f)

    def collect() -> None:
        for _ in range(40):
            received.append(client.recv())

    def send(n: int) -> None:
        for i in range(10):
            client.send(b"%d-%d" % (n, i))

    threads = [threading.Thread(target=echo), threading.Thread(target=collect)]
    threads += [threading.Thread(target=send, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
        assert not t.is_alive()
    assert sorted(received) == sorted(b"%d-%d" % (n, i) for n in range(4) for i in range(10))


def test_server_recv_times_out(make, endpoint_for, transport):
    server = make(zmq.SERVER, rcvtimeo=50)
    bind_any(server, endpoint_for(transport))
    with pytest.raises(zmq.Again):
        server.recv()
    with pytest.raises(zmq.Again):
        server.recv(zmq.NOBLOCK)


def test_incompatible_peer_is_refused(make, endpoint_for, transport):
    if transport == "inproc":
        pytest.skip("inproc has no handshake to refuse a peer type (as libzmq)")
    server = make(zmq.SERVER, rcvtimeo=200)
    ep = bind_any(server, endpoint_for(transport))
    dealer = make(zmq.DEALER)
    dealer.connect(ep)
    with contextlib.suppress(zmq.Again):  # the refused pipe may be gone already
        dealer.send(b"not a client", zmq.NOBLOCK)
    with pytest.raises(zmq.Again):
        server.recv()


@pytest.mark.parametrize("ending", ["close", "term"])
def test_blocked_recv_in_another_thread_ends(ctx, endpoint_for, transport, ending):
    """A thread blocked in recv() on a shared socket wakes when another
    thread closes it (ENOTSOCK) or terminates the context (ETERM)."""
    server = ctx.socket(zmq.SERVER)
    server.linger = 0
    server.bind(endpoint_for(transport))
    errors: list[int] = []

    def blocked() -> None:
        try:
            server.recv()
        except zmq.ZMQError as e:
            errors.append(e.errno)
            if ending == "term":
                server.close()

    t = threading.Thread(target=blocked)
    t.start()
    wait_until(lambda: server._guard.fd_waiter)  # it is waiting now
    if ending == "close":
        server.close()
    else:
        ctx.term()
    t.join(10)
    assert not t.is_alive()
    assert errors == [zmq.ENOTSOCK if ending == "close" else zmq.ETERM]
