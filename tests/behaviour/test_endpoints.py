"""Endpoints: bind/connect/unbind/disconnect, wildcards, LAST_ENDPOINT and
errors; modelled on libzmq's tests/test_last_endpoint.cpp,
test_term_endpoint.cpp, test_unbind_wildcard.cpp, test_ipc_wildcard.cpp,
test_abstract_ipc.cpp and test_inproc_connect.cpp."""

from __future__ import annotations

import errno
import os
import re
import socket
import sys

import pytest

import purezmq as zmq

from .conftest import Events, bind_any, inproc_name, wait_for_peers, wait_until


def _ipv6_available() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


def _roundtrip(make, bound_endpoint: str, **connect_opts) -> None:
    pull = make(zmq.PULL, **connect_opts)
    pull.connect(bound_endpoint)
    return pull


# ------------------------------------------------------------ wildcards and LAST_ENDPOINT
@pytest.mark.parametrize(
    ("url", "pattern"),
    [
        ("tcp://*:*", r"tcp://0\.0\.0\.0:(\d+)"),
        ("tcp://127.0.0.1:*", r"tcp://127\.0\.0\.1:(\d+)"),
        ("tcp://127.0.0.1:0", r"tcp://127\.0\.0\.1:(\d+)"),
        ("tcp://localhost:*", r"tcp://127\.0\.0\.1:(\d+)"),
    ],
)
def test_last_endpoint_tcp_wildcards(make, url, pattern):
    push = make(zmq.PUSH)
    push.bind(url)
    last = push.last_endpoint
    assert isinstance(last, bytes)
    assert push.get(zmq.LAST_ENDPOINT) == last
    m = re.fullmatch(pattern, last.decode())
    assert m, last
    port = int(m.group(1))
    assert 0 < port < 65536
    pull = make(zmq.PULL)
    pull.connect(f"tcp://127.0.0.1:{port}")
    push.send(b"via wildcard")
    assert pull.recv() == b"via wildcard"


def test_last_endpoint_is_last_bound_or_connected(make, ipc_dir):
    s = make(zmq.PULL)
    assert s.last_endpoint == b""
    s.bind("tcp://127.0.0.1:*")
    s.bind(f"ipc://{ipc_dir}/le")
    assert s.last_endpoint == f"ipc://{ipc_dir}/le".encode()
    s.bind("inproc://le")
    assert s.last_endpoint == b"inproc://le"


def test_bind_to_random_port(make):
    pull = make(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    assert isinstance(port, int)
    assert pull.last_endpoint == f"tcp://127.0.0.1:{port}".encode()
    push = make(zmq.PUSH)
    push.connect(f"tcp://127.0.0.1:{port}")
    push.send(b"x")
    assert pull.recv() == b"x"


def test_bind_to_random_port_in_range(make):
    pull = make(zmq.PULL)
    port = pull.bind_to_random_port(
        "tcp://127.0.0.1", min_port=20000, max_port=30000, max_tries=200
    )
    assert 20000 <= port < 30000
    assert pull.last_endpoint == f"tcp://127.0.0.1:{port}".encode()


@pytest.mark.skipif(not _ipv6_available(), reason="IPv6 loopback (::1) not available here")
def test_ipv6_bind_connect(make):
    server = make(zmq.PULL, ipv6=1)
    assert server.ipv6 == 1
    server.bind("tcp://[::1]:*")
    last = server.last_endpoint.decode()
    assert re.fullmatch(r"tcp://\[::1\]:\d+", last), last
    client = make(zmq.PUSH, ipv6=1)
    client.connect(last)
    client.send(b"over ipv6")
    assert server.recv() == b"over ipv6"


@pytest.mark.skipif(not _ipv6_available(), reason="IPv6 loopback (::1) not available here")
def test_ipv6_bind_needs_ipv6_option(make):
    server = make(zmq.PULL)
    assert server.ipv6 == 0
    with pytest.raises(zmq.ZMQError):
        server.bind("tcp://[::1]:*")


@pytest.mark.skipif(not _ipv6_available(), reason="IPv6 loopback (::1) not available here")
def test_ipv6_socket_accepts_ipv4_peers(make):
    """An IPV6 socket bound to * takes IPv4 connections too (dual stack)."""
    server = make(zmq.PULL, ipv6=1)
    server.bind("tcp://*:*")
    port = server.last_endpoint.decode().rsplit(":", 1)[1]
    client = make(zmq.PUSH)
    client.connect(f"tcp://127.0.0.1:{port}")
    client.send(b"v4 to v6")
    assert server.recv() == b"v4 to v6"


def test_hostname_connect(make):
    pull = make(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    push = make(zmq.PUSH)
    push.connect(f"tcp://localhost:{port}")
    push.send(b"by name")
    assert pull.recv() == b"by name"


def test_connect_to_unresolvable_hostname_is_not_an_error(make):
    """libzmq resolves connect addresses when it (re)tries, so connecting to a
    name that does not resolve (yet) succeeds; the connection is just not made."""
    push = make(zmq.PUSH)
    push.connect("tcp://nonexistent.invalid:5555")
    # IMMEDIATE=0: the connect made a pipe, the message is queued there.
    push.send(b"queued", zmq.NOBLOCK)


# ------------------------------------------------------------ ipc
def test_ipc_path(make, ipc_dir):
    url = f"ipc://{ipc_dir}/path-socket"
    pull = make(zmq.PULL)
    pull.bind(url)
    assert pull.last_endpoint == url.encode()
    assert os.path.exists(f"{ipc_dir}/path-socket")
    push = make(zmq.PUSH)
    push.connect(url)
    push.send(b"over ipc")
    assert pull.recv() == b"over ipc"


def test_ipc_wildcard(make):
    """test_ipc_wildcard: ipc://* binds a fresh path, read it from LAST_ENDPOINT."""
    pull = make(zmq.PULL)
    pull.bind("ipc://*")
    last = pull.last_endpoint.decode()
    assert last.startswith("ipc://")
    assert "*" not in last
    other = make(zmq.PULL)
    other.bind("ipc://*")
    assert other.last_endpoint.decode() != last
    push = make(zmq.PUSH)
    push.connect(last)
    push.send(b"wildcard ipc")
    assert pull.recv() == b"wildcard ipc"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="abstract sockets are Linux-only")
def test_abstract_ipc(make):
    """test_abstract_ipc: ipc://@name lives in the abstract namespace (no file)."""
    name = f"@pzt-{os.getpid()}-{os.urandom(4).hex()}"
    pull = make(zmq.PULL)
    pull.bind(f"ipc://{name}")
    assert pull.last_endpoint == f"ipc://{name}".encode()
    assert not os.path.exists(name)
    push = make(zmq.PUSH)
    push.connect(f"ipc://{name}")
    push.send(b"abstract")
    assert pull.recv() == b"abstract"


# ------------------------------------------------------------ inproc
def test_inproc_connect_before_bind(make):
    """test_inproc_connect test_connect_before_bind (and the reply direction)."""
    ep = inproc_name()
    connect_socket = make(zmq.PAIR)
    connect_socket.connect(ep)
    connect_socket.send(b"foobar")
    bind_socket = make(zmq.PAIR)
    bind_socket.bind(ep)
    assert bind_socket.recv() == b"foobar"
    bind_socket.send(b"back")
    assert connect_socket.recv() == b"back"


def test_inproc_connect_before_bind_many(make):
    """test_inproc_connect test_multiple_connects: several PUSHes queue before the bind."""
    ep = inproc_name()
    pushes = [make(zmq.PUSH) for _ in range(5)]
    for i, p in enumerate(pushes):
        p.connect(ep)
        p.send(b"%d" % i)
    pull = make(zmq.PULL)
    pull.bind(ep)
    assert sorted(pull.recv() for _ in pushes) == [b"%d" % i for i in range(5)]


# ------------------------------------------------------------ unbind / disconnect
@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_send_after_unbind_fails(make, endpoint_for, transport):
    """test_term_endpoint: unbind also ends the connections it accepted."""
    push = make(zmq.PUSH)
    ep = bind_any(push, endpoint_for(transport))
    pull = make(zmq.PULL)
    pull.connect(ep)
    push.send(b"ABC")
    assert pull.recv() == b"ABC"
    push.unbind(ep)
    wait_until(lambda: pull.poll(0) == 0 and push.poll(0, zmq.POLLOUT) == 0)
    with pytest.raises(zmq.Again):
        push.send(b"ABC", zmq.NOBLOCK)


def test_inproc_unbind_keeps_existing_connections(make):
    """libzmq: unbinding an inproc name only removes the name."""
    push = make(zmq.PUSH)
    push.bind("inproc://unbind-keeps")
    pull = make(zmq.PULL)
    pull.connect("inproc://unbind-keeps")
    push.send(b"ABC")
    assert pull.recv() == b"ABC"
    push.unbind("inproc://unbind-keeps")
    push.send(b"DEF")
    assert pull.recv() == b"DEF"
    late = make(zmq.PULL)
    late.connect("inproc://unbind-keeps")  # queues for a future binder
    push.send(b"GHI")
    push.send(b"JKL")
    assert [pull.recv(), pull.recv()] == [b"GHI", b"JKL"]
    assert late.poll(100) == 0


def test_connect_after_unbind_does_not_reach(make, endpoint_for, transport):
    pull = make(zmq.PULL)
    ep = bind_any(pull, endpoint_for(transport))
    pull.unbind(ep)
    push = make(zmq.PUSH)
    push.connect(ep)
    push.send(b"nobody listens", zmq.NOBLOCK)  # queued at the connecting side
    assert pull.poll(300) == 0


def test_send_after_disconnect_fails(make, endpoint_for, transport):
    """test_term_endpoint test_send_after_disconnect_fails."""
    pull = make(zmq.PULL)
    ep = bind_any(pull, endpoint_for(transport))
    push = make(zmq.PUSH)
    push.connect(ep)
    push.send(b"ABC")
    assert pull.recv() == b"ABC"
    push.disconnect(ep)
    wait_until(lambda: pull.poll(0) == 0 and push.poll(0, zmq.POLLOUT) == 0)
    with pytest.raises(zmq.Again):
        push.send(b"ABC", zmq.NOBLOCK)


def test_disconnect_stops_messages_to_that_peer(make, endpoint_for, transport):
    a, b = make(zmq.PULL), make(zmq.PULL)
    ep_a = bind_any(a, endpoint_for(transport))
    ep_b = bind_any(b, endpoint_for(transport))
    push = make(zmq.PUSH)
    push.connect(ep_a)
    push.connect(ep_b)
    for i in range(4):
        push.send(b"%d" % i)
    assert {a.recv(), a.recv(), b.recv(), b.recv()} == {b"0", b"1", b"2", b"3"}
    push.disconnect(ep_a)
    for i in range(6):
        push.send(b"after-%d" % i)
    assert [b.recv() for _ in range(6)] == [b"after-%d" % i for i in range(6)]
    assert a.poll(100) == 0


def test_unbind_via_last_endpoint(make, ipc_dir):
    """test_unbind_wildcard / test_term_endpoint: a wildcard bind is unbound by its
    resolved endpoint; unbinding the wildcard itself is ENOENT."""
    push = make(zmq.PUSH)
    push.bind("tcp://127.0.0.1:*")
    with pytest.raises(zmq.ZMQError) as e:
        push.unbind("tcp://127.0.0.1:*")
    assert e.value.errno == errno.ENOENT
    push.unbind(push.last_endpoint.decode())

    pull = make(zmq.PULL)
    pull.bind("ipc://*")
    pull.unbind(pull.last_endpoint.decode())


def test_bind_context_manager_unbinds_wildcard(make):
    s = make(zmq.PULL)
    with s.bind("tcp://127.0.0.1:*"):
        resolved = s.last_endpoint.decode()
    with pytest.raises(zmq.ZMQError) as e:
        s.unbind(resolved)
    assert e.value.errno == errno.ENOENT


# ------------------------------------------------------------ many endpoints
def test_many_endpoints_on_one_socket(make, ipc_dir):
    pull = make(zmq.PULL)
    endpoints = [
        bind_any(pull, "tcp://127.0.0.1:*"),
        bind_any(pull, "tcp://127.0.0.1:*"),
        bind_any(pull, f"ipc://{ipc_dir}/m1"),
        bind_any(pull, f"ipc://{ipc_dir}/m2"),
        bind_any(pull, inproc_name()),
        bind_any(pull, inproc_name()),
    ]
    pushes = []
    for i, ep in enumerate(endpoints):
        p = make(zmq.PUSH)
        p.connect(ep)
        p.send(b"%d" % i)
        pushes.append(p)
    assert sorted(pull.recv() for _ in endpoints) == [b"%d" % i for i in range(len(endpoints))]
    # One socket connected to many endpoints.
    many = make(zmq.PUSH)
    for ep in endpoints:
        many.connect(ep)
    for i in range(2 * len(endpoints)):
        many.send(b"m%d" % i)
    assert sorted(pull.recv() for _ in range(2 * len(endpoints))) == sorted(
        b"m%d" % i for i in range(2 * len(endpoints))
    )


# ------------------------------------------------------------ errors
def test_bind_eaddrinuse(make):
    a = make(zmq.PULL)
    port = a.bind_to_random_port("tcp://127.0.0.1")
    b = make(zmq.PULL)
    with pytest.raises(zmq.ZMQError) as e:
        b.bind(f"tcp://127.0.0.1:{port}")
    assert e.value.errno == zmq.EADDRINUSE
    name = inproc_name()
    a.bind(name)
    with pytest.raises(zmq.ZMQError) as e:
        b.bind(name)
    assert e.value.errno == zmq.EADDRINUSE


def test_bind_eaddrinuse_ipc_live_socket(make, ipc_dir):
    a = make(zmq.PULL)
    a.bind(f"ipc://{ipc_dir}/live")
    push = make(zmq.PUSH)
    push.connect(f"ipc://{ipc_dir}/live")
    push.send(b"still mine")
    assert a.recv() == b"still mine"


@pytest.mark.parametrize("method", ["bind", "connect"])
def test_unknown_transport_eprotonosupport(make, method):
    s = make(zmq.PAIR)
    with pytest.raises(zmq.ZMQError) as e:
        getattr(s, method)("foo://bar")
    assert e.value.errno == zmq.EPROTONOSUPPORT


@pytest.mark.parametrize("method", ["bind", "connect"])
@pytest.mark.parametrize(
    "url",
    ["tcp://127.0.0.1", "tcp://127.0.0.1:abc", "tcp://", "inproc://", "ipc://", "no-scheme"],
)
def test_malformed_endpoint_einval(make, method, url):
    s = make(zmq.PAIR)
    with pytest.raises(zmq.ZMQError) as e:
        getattr(s, method)(url)
    assert e.value.errno == zmq.EINVAL


def test_bind_unknown_interface_enodev(make):
    s = make(zmq.PAIR)
    with pytest.raises(zmq.ZMQError) as e:
        s.bind("tcp://nonexistent.invalid:5555")
    assert e.value.errno == errno.ENODEV


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("unbind", "tcp://127.0.0.1:5999"),
        ("unbind", "inproc://never-bound"),
        ("disconnect", "tcp://127.0.0.1:5999"),
        ("disconnect", "inproc://never-connected"),
    ],
)
def test_unbind_disconnect_not_bound_enoent(make, method, url):
    s = make(zmq.PAIR)
    with pytest.raises(zmq.ZMQError) as e:
        getattr(s, method)(url)
    assert e.value.errno == errno.ENOENT


def test_bind_failure_emits_bind_failed_event(make):
    a = make(zmq.PULL)
    port = a.bind_to_random_port("tcp://127.0.0.1")
    b = make(zmq.PULL)
    ev = Events(b)
    with pytest.raises(zmq.ZMQError):
        b.bind(f"tcp://127.0.0.1:{port}")
    ((_, value, endpoint),) = ev.wait_for(zmq.EVENT_BIND_FAILED)
    assert value == errno.EADDRINUSE
    assert endpoint.endswith(f"127.0.0.1:{port}")  # libzmq 4.3.5 omits "tcp://" here


def test_wait_for_peers_helper_sanity(make, endpoint_for, transport):
    """The helper used across the suite: after it returns, the peer is attached."""
    push = make(zmq.PUSH)
    ep = bind_any(push, endpoint_for(transport))
    pull = make(zmq.PULL)
    wait_for_peers(push, lambda: pull.connect(ep), 1, transport)
    push.send(b"attached")
    assert pull.recv() == b"attached"


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_connections_arriving_together_are_all_accepted(make, endpoint_for, transport):
    """The listener accepts one connection per readiness event, as libzmq's
    does: the others in the backlog keep the listening socket readable, and
    the next poll takes the next one. None is left behind."""
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    dealers = [make(zmq.DEALER) for _ in range(40)]
    for d in dealers:
        d.connect(ep)
    for i, d in enumerate(dealers):
        d.send(b"%d" % i)
    got = {router.recv_multipart()[1] for _ in dealers}  # 5 s each at most (make)
    assert got == {b"%d" % i for i in range(40)}
