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
