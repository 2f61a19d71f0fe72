"""udp:// address parsing as libzmq's udp_address_t, the datagram format of
libzmq's udp_engine, and which socket types may bind or connect."""

from __future__ import annotations

import errno

import pytest

from purezmq._transport.address import AddressError
from purezmq._transport.udp import (
    ENOCOMPATPROTO,
    GroupCodec,
    RawCodec,
    decode_datagram,
    encode_datagram,
    parse_peer_name,
    parse_udp,
    role,
)


def test_unicast_connect_targets_host_and_listens_on_any() -> None:
    a = parse_udp("127.0.0.1:5555", bind=False)
    assert (a.target, a.bind, a.multicast) == (("127.0.0.1", 5555), ("0.0.0.0", 5555), False)


def test_unicast_bind_is_the_local_address() -> None:
    a = parse_udp("127.0.0.1:5555", bind=True)
    assert a.bind == ("127.0.0.1", 5555)
    assert parse_udp("*:6000", bind=True).bind == ("0.0.0.0", 6000)


def test_multicast_with_and_without_interface() -> None:
    a = parse_udp("239.1.2.3:7000", bind=True)
    assert (a.multicast, a.bind, a.interface) == (True, ("0.0.0.0", 7000), "0.0.0.0")
    b = parse_udp("127.0.0.1;239.1.2.3:7000", bind=False)
    assert (b.target, b.interface, b.bind) == (
        ("239.1.2.3", 7000),
        "127.0.0.1",
        ("127.0.0.1", 7000),
    )
    assert parse_udp("lo;239.1.2.3:7000", bind=False).interface == "127.0.0.1"
    assert parse_udp("*;239.1.2.3:7000", bind=False).interface == "0.0.0.0"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",  # no port
        "127.0.0.1:x",
        "127.0.0.1:70000",
        "127.0.0.1;127.0.0.2:5555",  # an interface needs a multicast group
        "239.0.0.1;239.0.0.2:5555",  # a multicast interface
    ],
)
def test_malformed_is_einval(address: str) -> None:
    with pytest.raises(AddressError) as e:
        parse_udp(address, bind=False)
    assert e.value.errno == errno.EINVAL


def test_unknown_interface_is_enodev() -> None:
    with pytest.raises(AddressError) as e:
        parse_udp("nosuchnic0;239.0.0.1:5555", bind=False)
    assert e.value.errno == errno.ENODEV


def test_datagram_golden_bytes() -> None:
    assert encode_datagram(b"g1", b"abc") == b"\x02g1abc"
    assert encode_datagram(b"", b"") == b"\x00"
    assert encode_datagram(b"x" * 256, b"") is None
    assert encode_datagram(b"g", b"y" * 8191) is None  # 8192 bytes at most in all
    assert len(encode_datagram(b"g", b"y" * 8190) or b"") == 8192
    assert decode_datagram(b"\x02g1abc") == (b"g1", b"abc")
    assert decode_datagram(b"\x00") == (b"", b"")
    assert decode_datagram(b"\x05abc") is None
    assert decode_datagram(b"") is None


def test_codecs() -> None:
    radio = GroupCodec(sends=True, receives=False)
    assert radio.encode([b"g", b"body"], ("1.2.3.4", 5)) == (b"\x01gbody", ("1.2.3.4", 5))
    assert radio.encode([b"only one frame"], ("1.2.3.4", 5)) is None
    assert radio.decode(b"\x01gbody", ("1.2.3.4", 9)) == [b"g", b"body"]
    raw = RawCodec()
    assert raw.encode([b"10.0.0.1:99", b"hi"], ("1.2.3.4", 5)) == (b"hi", ("10.0.0.1", 99))
    assert raw.encode([b"not an address", b"hi"], ("1.2.3.4", 5)) is None
    assert raw.encode([b"10.0.0.1:99\0", b"hi"], ("1.2.3.4", 5)) == (b"hi", ("10.0.0.1", 99))
    assert raw.decode(b"hi", ("10.0.0.1", 99)) == [b"10.0.0.1:99\0", b"hi"]  # as libzmq
    assert parse_peer_name(b"1.2.3.4:0") is None


@pytest.mark.parametrize(
    ("socket_type", "bind", "ok"),
    [
        ("RADIO", False, True),
        ("RADIO", True, False),
        ("DISH", True, True),
        ("DISH", False, True),
        ("DGRAM", True, True),
        ("DGRAM", False, True),
        ("SERVER", True, False),
        ("PUB", False, False),
    ],
)
def test_roles(socket_type: str, bind: bool, ok: bool) -> None:
    if ok:
        role(socket_type, bind)
        return
    with pytest.raises(AddressError) as e:
        role(socket_type, bind)
    assert e.value.errno == ENOCOMPATPROTO
