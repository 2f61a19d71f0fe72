"""RADIO/DISH and DGRAM over udp:// (libzmq tests/test_radio_dish.cpp's udp
cases, test_dgram.cpp): unicast on the loopback, and multicast through the
loopback interface where the kernel routes it (checked first: skipped with
the reason outside CI, a failure under CI=true)."""

from __future__ import annotations

import itertools
import os
import socket
import struct

import pytest

import purezmq as zmq

from .conftest import wait_until

_groups = itertools.count(1)


def udp_port() -> int:
    """A loopback udp port that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def multicast_on_loopback() -> str | None:
    """None if a datagram sent to a group through 127.0.0.1 comes back to a
    member on 127.0.0.1; otherwise why not."""
    group = f"239.255.{next(_groups)}.{os.getpid() % 250 + 1}"
    try:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    except OSError as e:  # pragma: no cover
        return f"no udp sockets: {e}"
    with rx, tx:
        try:
            rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            rx.bind(("0.0.0.0", 0))
            port = rx.getsockname()[1]
            mreq = struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("127.0.0.1"))
            rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            tx.sendto(b"probe", (group, port))
            rx.settimeout(1.0)
            rx.recv(10)
        except OSError as e:
            return f"the kernel does not route multicast through lo here ({e})"
    return None


@pytest.fixture
def udp_make(make):
    def make_udp(kind: int, **options: object) -> zmq.Socket:
        return make(kind, rcvtimeo=2000, **options)

    return make_udp


def _radio_until(radio: zmq.Socket, dish: zmq.Socket, group: str, body: bytes) -> bytes:
    """udp has no handshake: the DISH's socket exists once bind() returned, but
    the first datagram races the I/O thread registering it; send until one
    arrives (a datagram in the kernel buffer is never lost on loopback)."""
    got: list[bytes] = []

    def attempt() -> bool:
        radio.send(body, group=group)
        if dish.poll(50):
            got.append(dish.recv())
            return True
        return False

    wait_until(attempt)
    return got[0]


def test_unicast_groups(udp_make):
    port = udp_port()
    dish = udp_make(zmq.DISH)
    dish.bind(f"udp://127.0.0.1:{port}")
    dish.join("tv")
    radio = udp_make(zmq.RADIO)
    radio.connect(f"udp://127.0.0.1:{port}")
    assert _radio_until(radio, dish, "tv", b"first") == b"first"
    radio.send(b"movie", group="movies")  # every group is sent; DISH filters
    radio.send(b"show", group="tv")
    frame = dish.recv(copy=False)
    assert (frame.bytes, frame.group) == (b"show", "tv")
    dish.leave("tv")
    dish.join("movies")
    radio.send(b"late show", group="tv")
    radio.send(b"film", group="movies")
    assert dish.recv() == b"film"
    assert dish.poll(100) == 0


def test_dish_connect_listens_on_the_port(udp_make):
    """A DISH may also connect: it then listens on *:PORT (libzmq)."""
    port = udp_port()
    dish = udp_make(zmq.DISH)
    dish.connect(f"udp://127.0.0.1:{port}")
    dish.join("g")
    radio = udp_make(zmq.RADIO)
    radio.connect(f"udp://127.0.0.1:{port}")
    assert _radio_until(radio, dish, "g", b"x") == b"x"


def test_long_group_and_big_body(udp_make):
    port = udp_port()
    dish = udp_make(zmq.DISH)
    dish.bind(f"udp://127.0.0.1:{port}")
    group = "g" * 255
    dish.join(group)
    radio = udp_make(zmq.RADIO)
    radio.connect(f"udp://127.0.0.1:{port}")
    _radio_until(radio, dish, group, b"warm-up")
    radio.send(b"x" * 9000, group=group)  # over libzmq's 8192-byte datagram: not sent
    radio.send(b"y" * 7000, group=group)
    assert dish.recv() == b"y" * 7000


def test_transport_rules(make):
    port = udp_port()
    for kind in (zmq.RADIO, zmq.SERVER, zmq.PUB):
        with pytest.raises(zmq.ZMQError) as e:
            make(kind).bind(f"udp://127.0.0.1:{port}")
        assert e.value.errno == zmq.ENOCOMPATPROTO
    for kind in (zmq.CLIENT, zmq.SUB):
        with pytest.raises(zmq.ZMQError) as e:
            make(kind).connect(f"udp://127.0.0.1:{port}")
        assert e.value.errno == zmq.ENOCOMPATPROTO
    radio = make(zmq.RADIO)
    for bad in ("udp://127.0.0.1", "udp://127.0.0.1;127.0.0.2:5555", "udp://239.0.0.1;239.0.0.2:5"):
        with pytest.raises(zmq.ZMQError) as e:
            radio.connect(bad)
        assert e.value.errno == zmq.EINVAL, bad


def test_unbind_frees_the_port(udp_make):
    port = udp_port()
    ep = f"udp://127.0.0.1:{port}"
    dish = udp_make(zmq.DISH)
    dish.bind(ep)
    dish.unbind(ep)
    other = udp_make(zmq.DGRAM)

    def rebind() -> bool:
        try:
            other.bind(ep)
        except zmq.ZMQError:
            return False
        return True

    wait_until(rebind)


def test_dgram_both_ways(udp_make):
    pa, pb = udp_port(), udp_port()
    a, b = udp_make(zmq.DGRAM), udp_make(zmq.DGRAM)
    a.bind(f"udp://127.0.0.1:{pa}")
    b.bind(f"udp://127.0.0.1:{pb}")
    got: list[list[bytes]] = []

    def attempt() -> bool:
        b.send_multipart([b"127.0.0.1:%d" % pa, b"ping"])
        if a.poll(50):
            got.append(a.recv_multipart())
            return True
        return False

    wait_until(attempt)
    assert got[0] == [b"127.0.0.1:%d\0" % pb, b"ping"]
    a.send(got[0][0], zmq.SNDMORE)
    a.send(b"pong")
    assert b.recv_multipart() == [b"127.0.0.1:%d\0" % pa, b"pong"]
    with pytest.raises(zmq.ZMQError) as e:
        a.send(b"no address frame")
    assert e.value.errno == zmq.EINVAL


@pytest.mark.parametrize("iface", ["127.0.0.1", "lo"])
def test_multicast_through_loopback(udp_make, iface):
    why = multicast_on_loopback()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"multicast on lo is needed in CI: {why}")
        pytest.skip(why)
    group = f"239.255.{next(_groups)}.{os.getpid() % 250 + 1}"
    port = udp_port()
    ep = f"udp://{iface};{group}:{port}"
    dishes = [udp_make(zmq.DISH) for _ in range(2)]
    for d in dishes:
        d.bind(ep)  # SO_REUSEPORT: both receive every datagram
        d.join("state")
    radio = udp_make(zmq.RADIO, multicast_hops=1)
    radio.connect(ep)
    assert _radio_until(radio, dishes[0], "state", b"tick") == b"tick"
    radio.send(b"tock", group="state")
    assert dishes[0].recv() == b"tock"
    seen = []
    while dishes[1].poll(500):
        seen.append(dishes[1].recv())
        if seen[-1] == b"tock":
            break
    assert b"tock" in seen
