"""JOIN/LEAVE (RFC 37 "RADIO and DISH"): a DISH's messages go out as
commands, a RADIO gets received commands as one-frame messages; other types
ignore them, as libzmq's session does."""

from __future__ import annotations

import pytest

from purezmq._zmtp import commands
from purezmq._zmtp.frames import command_frame

from .helpers import connected, feed, handshaken, out_bytes


def test_join_leave_golden_bytes() -> None:
    assert command_frame(commands.command(commands.JOIN, b"weather")) == b"\x04\x0c\x04JOINweather"
    assert command_frame(commands.command(commands.LEAVE, b"")) == b"\x04\x06\x05LEAVE"


@pytest.mark.parametrize("minor", [0, 1])
def test_dish_sends_commands_to_zmtp_30_and_31(minor: int) -> None:
    dish = handshaken("DISH", b"RADIO", peer_minor=minor)
    dish.send_messages([[b"\x04JOINg1"], [b"\x05LEAVEg1"]])
    assert out_bytes(dish) == b"\x04\x07\x04JOINg1" + b"\x04\x08\x05LEAVEg1"


def test_radio_takes_commands_as_messages() -> None:
    radio = handshaken("RADIO", b"DISH")
    feed(radio, b"\x04\x07\x04JOINg1" + b"\x04\x08\x05LEAVEg1", mode=1)
    assert radio.pull(10) == [[b"\x04JOINg1"], [b"\x05LEAVEg1"]]


def test_radio_messages_are_group_then_body() -> None:
    radio, dish = connected("RADIO", "DISH")
    radio.send_messages([[b"g", b"body"]])
    feed(dish, out_bytes(radio))
    assert dish.pull(10) == [[b"g", b"body"]]
    dish.send_messages([[b"\x04JOINg"]])
    feed(radio, out_bytes(dish), mode=1)
    assert radio.pull(10) == [[b"\x04JOINg"]]


@pytest.mark.parametrize(("ours", "theirs"), [("DISH", b"RADIO"), ("SERVER", b"CLIENT")])
def test_other_types_ignore_join(ours: str, theirs: bytes) -> None:
    conn = handshaken(ours, theirs)
    feed(conn, b"\x04\x07\x04JOINg1")
    assert conn.pull(10) == []
