"""pgm:// and epgm:// endpoints at the API: syntax, socket types, errnos."""

from __future__ import annotations

import errno

import pytest

import purezmq as zmq
from purezmq._transport.address import AddressError
from purezmq._transport.pgm import parse_pgm


def test_parse_by_address_and_by_name() -> None:
    a = parse_pgm("epgm", "127.0.0.1;239.192.1.1:5555")
    assert (a.udp, a.interface, a.group, a.port) == (True, "127.0.0.1", "239.192.1.1", 5555)
    assert parse_pgm("pgm", "lo;239.1.2.3:1").interface == "127.0.0.1"


@pytest.mark.parametrize(
    ("address", "code"),
    [
        ("239.192.1.1:5555", errno.EINVAL),  # no interface
        ("127.0.0.1;239.192.1.1", errno.EINVAL),  # no port
        ("127.0.0.1;10.0.0.1:5555", errno.EINVAL),  # not a multicast group
        ("127.0.0.1;239.192.1.1:0", errno.EINVAL),
        ("127.0.0.1;239.192.1.1:x", errno.EINVAL),
        ("nosuchif0;239.192.1.1:5555", errno.ENODEV),
    ],
)
def test_bad_addresses(address: str, code: int) -> None:
    with pytest.raises(AddressError) as info:
        parse_pgm("epgm", address)
    assert info.value.errno == code


@pytest.mark.parametrize("kind", ["PAIR", "REQ", "PUSH", "ROUTER", "DEALER"])
def test_only_pub_sub_families(kind: str) -> None:
    with zmq.Context() as ctx, ctx.socket(getattr(zmq, kind)) as s:
        s.linger = 0
        with pytest.raises(zmq.ZMQError) as info:
            s.connect("epgm://127.0.0.1;239.192.1.1:5555")
        assert info.value.errno == zmq.ENOCOMPATPROTO


def test_malformed_endpoint_is_einval_at_connect_and_bind() -> None:
    with zmq.Context() as ctx, ctx.socket(zmq.SUB) as s:
        s.linger = 0
        for call in (s.connect, s.bind):
            with pytest.raises(zmq.ZMQError) as info:
                call("epgm://127.0.0.1;239.192.1.1")
            assert info.value.errno == zmq.EINVAL


def test_epgm_sub_opens_and_closes_cleanly() -> None:
    """A real endpoint on loopback: connect, LAST_ENDPOINT, disconnect, close
    (delivery itself is tested between network namespaces, tests/multicast)."""
    with zmq.Context() as ctx, ctx.socket(zmq.SUB) as s:
        s.linger = 0
        s.bind("epgm://127.0.0.1;239.192.1.77:5599")  # bind is connect for PGM
        assert s.last_endpoint == b"epgm://127.0.0.1;239.192.1.77:5599"
        s.disconnect("epgm://127.0.0.1;239.192.1.77:5599")
        s.bind("epgm://127.0.0.1;239.192.1.77:5599")
        s.unbind("epgm://127.0.0.1;239.192.1.77:5599")  # as libzmq: unbind = disconnect
        with pytest.raises(zmq.ZMQError) as info:
            s.unbind("epgm://127.0.0.1;239.192.1.77:5599")
        assert info.value.errno == errno.ENOENT
        s.rcvtimeo = 50
        with pytest.raises(zmq.Again):
            s.recv()


def test_has_pgm() -> None:
    assert zmq.has("pgm")


def test_open_socket_applies_the_options() -> None:
    import socket

    from purezmq._transport.pgm import MulticastConfig, open_socket

    addr = parse_pgm("epgm", "127.0.0.1;239.192.1.78:5598")
    config = MulticastConfig(sender=True, hops=9, sndbuf=65536, rcvbuf=100000)
    sock = open_socket(addr, config)
    try:
        assert sock.getsockname() == ("0.0.0.0", 5598)  # NAKs and data come to the port
        assert sock.getsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL) == 9
        assert sock.getsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP) == 0
        iface = sock.getsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, 4)
        assert socket.inet_ntoa(iface) == "127.0.0.1"
        # Linux doubles what it is asked for (bookkeeping overhead).
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == 2 * 65536
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) == 2 * 100000
    finally:
        sock.close()


@pytest.mark.parametrize(("kind", "sender"), [("PUB", True), ("XSUB", False)])
def test_socket_options_reach_the_transport(
    monkeypatch: pytest.MonkeyPatch, kind: str, sender: bool
) -> None:
    from purezmq._io.threaded import ThreadedDriver
    from purezmq._transport.pgm import MulticastConfig

    seen: list[MulticastConfig] = []

    def fake(self: object, owner: object, endpoint: object, config: MulticastConfig) -> None:
        seen.append(config)
        raise OSError(errno.EADDRNOTAVAIL, "stop here")

    # The context's driver is a ThreadedDriver: an interpreted subclass, so it
    # can be patched in the compiled build too (StreamDriver itself cannot).
    monkeypatch.setattr(ThreadedDriver, "multicast", fake)
    values = {
        zmq.RATE: 5000,
        zmq.RECOVERY_IVL: 2000,
        zmq.MULTICAST_HOPS: 3,
        zmq.MULTICAST_MAXTPDU: 1400,
        zmq.SNDBUF: 1000,
        zmq.RCVBUF: 2000,
        zmq.SNDHWM: 7,
        zmq.RCVHWM: 8,
        zmq.MAXMSGSIZE: 99,
    }
    with zmq.Context() as ctx, ctx.socket(getattr(zmq, kind)) as s:
        s.linger = 0
        for option, value in values.items():
            s.setsockopt(option, value)
        with pytest.raises(zmq.ZMQError) as info:
            s.connect("epgm://127.0.0.1;239.192.1.79:5597")
        assert info.value.errno == errno.EADDRNOTAVAIL
    assert seen == [
        MulticastConfig(
            sender=sender,
            rate_kbps=5000,
            recovery_ivl_ms=2000,
            hops=3,
            max_tpdu=1400,
            sndbuf=1000,
            rcvbuf=2000,
            sndhwm=7,
            rcvhwm=8,
            max_msg_size=99,
        )
    ]


def test_maxtpdu_too_small_is_einval() -> None:
    with zmq.Context() as ctx, ctx.socket(zmq.PUB) as s:
        s.linger = 0
        s.setsockopt(zmq.MULTICAST_MAXTPDU, 60)
        with pytest.raises(zmq.ZMQError) as info:
            s.connect("epgm://127.0.0.1;239.192.1.80:5596")
        assert info.value.errno == errno.EINVAL
        assert "MULTICAST_MAXTPDU" in str(info.value)
        s.setsockopt(zmq.MULTICAST_MAXTPDU, 1500)
        s.connect("epgm://127.0.0.1;239.192.1.80:5596")  # the port was released
