"""Metadata properties and command bodies: golden bytes and malformed input."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from purezmq._zmtp import (
    ZMTP_INVALID_METADATA,
    ZMTP_MALFORMED_COMMAND_ERROR,
    ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
    Metadata,
    ProtocolError,
    commands,
    encode_properties,
    parse_properties,
)
from purezmq._zmtp.frames import command_frame

from .helpers import READY_DEALER, READY_SUB, READY_XPUB, prop

# ------------------------------------------------------------------ metadata


def test_property_wire_form() -> None:
    assert encode_properties({"Socket-Type": b"SUB"}) == b"\x0bSocket-Type\x00\x00\x00\x03SUB"
    assert encode_properties([("Identity", b"")]) == b"\x08Identity\x00\x00\x00\x00"


def test_properties_keep_order_and_given_case() -> None:
    data = prop(b"socket-TYPE", b"PUB") + prop(b"X-Hello", b"world")
    md = parse_properties(data)
    assert list(md.items()) == [("socket-TYPE", b"PUB"), ("X-Hello", b"world")]


def test_lookup_is_case_insensitive() -> None:
    md = parse_properties(prop(b"socket-type", b"PUB"))
    assert md["Socket-Type"] == b"PUB"
    assert md.get("SOCKET-TYPE") == b"PUB"
    assert "Socket-type" in md
    assert "Identity" not in md and md.get("Identity") is None
    assert md.get("Identity", b"d") == b"d"
    with pytest.raises(KeyError):
        md["Identity"]


def test_repeated_name_first_value_wins_like_libzmq() -> None:
    md = parse_properties(prop(b"X-A", b"1") + prop(b"x-a", b"2"))
    assert md["X-A"] == b"1" and len(md) == 1


def test_metadata_is_a_mapping_and_set_item_folds_case() -> None:
    md = Metadata([("Identity", b"a")])
    assert isinstance(md, Mapping)
    md["IDENTITY"] = b"b"
    assert dict(md) == {"Identity": b"b"}
    assert md == {"Identity": b"b"}
    assert md.get("identity") == b"b" and "iDentity" in md and len(md) == 1


def test_metadata_is_no_dict_subclass() -> None:
    """A dict subclass would lose its case folding in compiled callers (mypyc
    treats dict subclasses as dicts); test_handshake checks one such caller."""
    assert not isinstance(Metadata(), dict)


def test_empty_property_list_and_empty_values() -> None:
    assert parse_properties(b"") == {}
    assert parse_properties(prop(b"Identity", b"")) == {"Identity": b""}


def test_binary_names_survive_round_trip() -> None:
    md = parse_properties(prop(b"X-\xff\x00", b"v"))
    assert encode_properties(md) == prop(b"X-\xff\x00", b"v")


@pytest.mark.parametrize(
    "data",
    [
        b"\x05",  # name-len only
        b"\x0bSocket",  # name cut
        b"\x0bSocket-Type\x00\x00",  # value-len cut
        b"\x0bSocket-Type\x00\x00\x00\x05SUB",  # value cut
        prop(b"A", b"b") + b"\x00",  # trailing byte (libzmq: EPROTO)
        b"\x03abc\xff\xff\xff\xff",  # 4 GB value claimed
    ],
)
def test_malformed_metadata_raises_invalid_metadata(data: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_properties(data)
    assert info.value.code == ZMTP_INVALID_METADATA


def test_metadata_error_code_can_be_chosen() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_properties(b"\x05", code=0x20000005)
    assert info.value.code == 0x20000005


@pytest.mark.parametrize("name", ["", "x" * 256])
def test_encoding_bad_names_is_a_programming_error(name: str) -> None:
    with pytest.raises(ValueError):
        encode_properties({name: b""})


@given(
    st.lists(
        st.tuples(
            st.binary(min_size=1, max_size=255).map(lambda b: b.decode("latin-1")),
            st.binary(max_size=300),
        ),
        max_size=8,
        unique_by=lambda kv: kv[0].casefold(),
    )
)
def test_metadata_round_trip(items: list[tuple[str, bytes]]) -> None:
    assert list(parse_properties(encode_properties(items)).items()) == items


# ------------------------------------------------------------------ commands


def test_ready_golden_bytes() -> None:
    dealer = commands.ready(encode_properties([("Socket-Type", b"DEALER"), ("Identity", b"")]))
    assert command_frame(dealer) == READY_DEALER
    assert len(READY_DEALER) == 43
    assert command_frame(commands.ready(encode_properties({"Socket-Type": b"XPUB"}))) == READY_XPUB
    assert command_frame(commands.ready(encode_properties({"Socket-Type": b"SUB"}))) == READY_SUB


def test_subscribe_and_cancel_golden_bytes() -> None:
    assert command_frame(commands.subscribe(b"A")) == b"\x04\x0b\x09SUBSCRIBEA"
    assert command_frame(commands.subscribe(b"")) == b"\x04\x0a\x09SUBSCRIBE"
    assert command_frame(commands.cancel(b"topic")) == b"\x04\x0c\x06CANCELtopic"


def test_ping_pong_golden_bytes() -> None:
    assert command_frame(commands.ping(0, b"LOL")) == b"\x04\x0a\x04PING\x00\x00LOL"
    assert command_frame(commands.pong(b"LOL")) == b"\x04\x08\x04PONGLOL"
    assert commands.ping(0x1234) == b"\x04PING\x12\x34"


def test_ping_ttl_is_clamped_to_16_bits() -> None:
    assert commands.ping(70000)[5:7] == b"\xff\xff"
    assert commands.ping(-5)[5:7] == b"\x00\x00"


def test_ping_and_pong_context_limited_to_16_bytes() -> None:
    assert commands.ping(1, b"z" * 40) == b"\x04PING\x00\x01" + b"z" * 16
    assert commands.pong(b"z" * 55) == b"\x04PONG" + b"z" * 16
    assert commands.parse_ping(b"\x00\x05" + b"q" * 30) == (5, b"q" * 16)


def test_parse_ping_requires_ttl() -> None:
    assert commands.parse_ping(b"\x01\x00") == (256, b"")
    with pytest.raises(ProtocolError) as info:
        commands.parse_ping(b"\x01")
    assert info.value.code == ZMTP_MALFORMED_COMMAND_UNSPECIFIED


def test_error_command_round_trip_and_truncation() -> None:
    assert commands.error(b"400") == b"\x05ERROR\x03400"
    assert commands.parse_error(b"\x03400") == b"400"
    long = commands.error(b"r" * 300)
    assert long[6] == 255 and len(long) == 6 + 1 + 255


@pytest.mark.parametrize("data", [b"", b"\x05abc", b"\x01"])
def test_malformed_error_command(data: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        commands.parse_error(data)
    assert info.value.code == ZMTP_MALFORMED_COMMAND_ERROR


def test_split_command() -> None:
    assert commands.split_command(b"\x04PINGxy") == (b"PING", b"xy")
    assert commands.split_command(b"\x05READY") == (b"READY", b"")


@pytest.mark.parametrize("body", [b"", b"\x05READ", b"\xffX"])
def test_command_name_beyond_body_is_malformed(body: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        commands.split_command(body)
    assert info.value.code == ZMTP_MALFORMED_COMMAND_UNSPECIFIED


def test_command_names_must_fit_a_byte() -> None:
    assert commands.command(b"JOIN", b"g") == b"\x04JOINg"
    with pytest.raises(ValueError):
        commands.command(b"")
    with pytest.raises(ValueError):
        commands.command(b"n" * 256)
