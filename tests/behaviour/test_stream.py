"""STREAM sockets against plain Python TCP peers (libzmq test_stream*.cpp)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import purezmq as zmq


@pytest.fixture
def stream(ctx: zmq.Context) -> Iterator[tuple[zmq.Socket, int]]:
    s = ctx.socket(zmq.STREAM)
    s.rcvtimeo = 5000
    s.linger = 0
    s.bind("tcp://127.0.0.1:*")
    port = int(s.get(zmq.LAST_ENDPOINT).decode().rsplit(":", 1)[1])
    yield s, port
    s.close()


def _client(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def _recv_exactly(s: zmq.Socket, rid: bytes, n: int) -> bytes:
    """STREAM delivers whatever chunks TCP gave; collect n bytes from `rid`."""
    got = b""
    while len(got) < n:
        who, data = s.recv_multipart()
        assert who == rid
        got += data
    return got


def test_connect_notification_then_data_both_ways(stream: tuple[zmq.Socket, int]) -> None:
    s, port = stream
    c = _client(port)
    rid, notice = s.recv_multipart()
    assert notice == b""
    assert len(rid) == 5 and rid[0] == 0  # libzmq-style generated id
    c.sendall(b"GET / HTTP/1.0\r\n\r\n")
    assert _recv_exactly(s, rid, 18) == b"GET / HTTP/1.0\r\n\r\n"
    s.send_multipart([rid, b"HTTP/1.0 200 OK\r\n\r\nhello"])
    assert c.recv(100) == b"HTTP/1.0 200 OK\r\n\r\nhello"
    c.close()


def test_empty_frame_closes_the_connection(stream: tuple[zmq.Socket, int]) -> None:
    s, port = stream
    c = _client(port)
    rid, _ = s.recv_multipart()
    s.send_multipart([rid, b"bye"])
    s.send_multipart([rid, b""])
    data = b""
    while chunk := c.recv(100):  # ends with EOF
        data += chunk
    assert data == b"bye"
    c.close()


def test_peer_close_is_announced(stream: tuple[zmq.Socket, int]) -> None:
    s, port = stream
    c = _client(port)
    rid, _ = s.recv_multipart()
    c.sendall(b"last words")
    c.close()
    assert _recv_exactly(s, rid, 10) == b"last words"
    assert s.recv_multipart() == [rid, b""]


def test_each_client_has_its_own_id(stream: tuple[zmq.Socket, int]) -> None:
    s, port = stream
    clients = [_client(port) for _ in range(5)]
    ids = {s.recv_multipart()[0] for _ in clients}
    assert len(ids) == 5
    for i, c in enumerate(clients):
        c.sendall(b"%d" % i)
    seen = {}
    for _ in clients:
        rid, data = s.recv_multipart()
        seen[rid] = data
    for rid, data in seen.items():  # answer each on its own connection
        s.send_multipart([rid, b"echo " + data])
    answers = sorted(c.recv(100) for c in clients)
    assert answers == sorted(b"echo %d" % i for i in range(5))
    for c in clients:
        c.close()


def test_large_upload_arrives_complete(stream: tuple[zmq.Socket, int]) -> None:
    s, port = stream
    c = _client(port)
    rid, _ = s.recv_multipart()
    blob = bytes(range(256)) * 4096  # 1 MiB
    c.sendall(blob)
    assert _recv_exactly(s, rid, len(blob)) == blob
    c.close()


def test_stream_notify_off(ctx: zmq.Context) -> None:
    s = ctx.socket(zmq.STREAM)
    s.stream_notify = 0
    s.rcvtimeo = 5000
    s.bind("tcp://127.0.0.1:*")
    port = int(s.get(zmq.LAST_ENDPOINT).decode().rsplit(":", 1)[1])
    c = _client(port)
    c.sendall(b"first")
    _rid, data = s.recv_multipart()
    assert data == b"first"  # no empty notice came before the data
    c.close()
    assert s.poll(300) == 0  # and no notice after it either
    s.close(linger=0)


def test_outgoing_connection_to_a_plain_server(ctx: zmq.Context) -> None:
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    s = ctx.socket(zmq.STREAM)
    s.rcvtimeo = 5000
    s.connect_routing_id = b"server-1"
    s.connect(f"tcp://127.0.0.1:{port}")
    conn, _ = srv.accept()
    conn.settimeout(5)
    assert s.recv_multipart() == [b"server-1", b""]
    s.send_multipart([b"server-1", b"ping"])
    assert conn.recv(10) == b"ping"
    conn.sendall(b"pong")
    assert s.recv_multipart() == [b"server-1", b"pong"]
    conn.close()
    srv.close()
    s.close(linger=0)


def test_unknown_routing_id_is_ehostunreach(stream: tuple[zmq.Socket, int]) -> None:
    s, _ = stream
    with pytest.raises(zmq.ZMQError) as e:
        s.send_multipart([b"nobody", b"data"])
    assert e.value.errno == zmq.EHOSTUNREACH


def test_routing_id_without_more_is_refused(stream: tuple[zmq.Socket, int]) -> None:
    s, _ = stream
    with pytest.raises(zmq.ZMQError) as e:
        s.send(b"\x00abcd")
    assert e.value.errno == zmq.EINVAL
