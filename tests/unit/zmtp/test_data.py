"""Data phase: pull limits, commands met while parsing, subscriptions in
both ZMTP versions, max_msg_size, errors after the handshake."""

from __future__ import annotations

import array

import pytest

from purezmq._zmtp import ZMTP_MALFORMED_COMMAND_UNSPECIFIED, ProtocolError

from .helpers import (
    FEED_MODES,
    command_frame,
    connected,
    data_frame,
    feed,
    handshaken,
    message_bytes,
    out_bytes,
    pump,
    run_input,
)

PING_LOL = b"\x04\x0a\x04PING\x00\x00LOL"
PONG_LOL = b"\x04\x08\x04PONGLOL"


def test_pull_respects_max_msgs_and_leaves_the_rest() -> None:
    conn = handshaken()
    feed(conn, b"".join(message_bytes([b"m%d" % i]) for i in range(10)))
    assert conn.pull(3) == [[b"m0"], [b"m1"], [b"m2"]]
    pending_after_3 = conn.has_pending_input
    assert conn.pull(0) == []
    assert conn.pull(5) == [[b"m%d" % i] for i in range(3, 8)]
    assert conn.pull(100) == [[b"m8"], [b"m9"]]
    assert (pending_after_3, conn.has_pending_input) == (True, False)
    assert conn.pull(100) == []


def test_commands_do_not_count_against_max_msgs() -> None:
    conn = handshaken()
    feed(conn, message_bytes([b"a"]) + PING_LOL + PING_LOL + message_bytes([b"b"]))
    assert conn.pull(2) == [[b"a"], [b"b"]]
    assert out_bytes(conn) == PONG_LOL + PONG_LOL


def test_input_is_stored_not_parsed_until_pull() -> None:
    conn = handshaken()
    feed(conn, PING_LOL + message_bytes([b"x"]))
    assert conn.unparsed_bytes == len(PING_LOL) + 3
    assert not conn.has_output  # the PING is answered when parsed
    conn.pull(1)
    assert out_bytes(conn) == PONG_LOL


def test_partial_multipart_message_waits_inside_the_decoder() -> None:
    conn = handshaken()
    feed(conn, data_frame(b"1", more=True) + data_frame(b"2", more=True))
    assert conn.pull(10) == []
    feed(conn, data_frame(b"3"))
    assert conn.pull(10) == [[b"1", b"2", b"3"]]


def test_libzmq_ping_vectors_short_and_truncated_context() -> None:
    conn = handshaken()
    long_ping = bytearray(b"z" * 67)
    long_ping[:12] = PING_LOL
    long_ping[1] = 65
    feed(conn, PING_LOL + bytes(long_ping))
    assert conn.pull(10) == []
    assert out_bytes(conn) == PONG_LOL + b"\x04\x15\x04PONGLOL" + b"z" * 13


def test_ping_without_ttl_is_malformed() -> None:
    conn = handshaken()
    feed(conn, command_frame(b"\x04PING\x00"))
    with pytest.raises(ProtocolError) as info:
        conn.pull(1)
    assert info.value.code == ZMTP_MALFORMED_COMMAND_UNSPECIFIED
    assert not info.value.during_handshake


@pytest.mark.parametrize("socket_type", ["PUB", "XPUB"])
def test_subscribe_and_cancel_commands_become_messages_for_publishers(socket_type: str) -> None:
    conn = handshaken(socket_type, b"SUB")
    feed(
        conn,
        command_frame(b"\x09SUBSCRIBEA")
        + command_frame(b"\x06CANCELA")
        + command_frame(b"\x09SUBSCRIBE")
        + message_bytes([b"\x01B"])  # ZMTP 3.0 form, passed as is
        + message_bytes([b"\x00B"]),
    )
    assert conn.pull(10) == [[b"\x01A"], [b"\x00A"], [b"\x01"], [b"\x01B"], [b"\x00B"]]


def test_subscription_messages_count_against_max_msgs() -> None:
    conn = handshaken("XPUB", b"XSUB")
    feed(conn, command_frame(b"\x09SUBSCRIBEA") * 3)
    assert conn.pull(2) == [[b"\x01A"], [b"\x01A"]]
    assert conn.pull(2) == [[b"\x01A"]]


def test_subscribe_commands_are_ignored_by_non_publishers() -> None:
    conn = handshaken("SUB", b"PUB")
    feed(
        conn,
        command_frame(b"\x09SUBSCRIBEA") + command_frame(b"\x06CANCEL") + message_bytes([b"d"]),
    )
    assert conn.pull(10) == [[b"d"]]


@pytest.mark.parametrize(
    "body", [b"\x04JOINg", b"\x05LEAVEg", b"\x05READY", b"\x04PONG", b"\x04PONGctx", b"\x03FOO"]
)
def test_other_commands_are_ignored(body: bytes) -> None:
    conn = handshaken()
    feed(conn, message_bytes([b"1"]) + command_frame(body) + message_bytes([b"2"]))
    assert conn.pull(10) == [[b"1"], [b"2"]]
    assert out_bytes(conn) == b""


def test_error_after_handshake_delivers_earlier_messages_first() -> None:
    conn = handshaken()
    feed(conn, message_bytes([b"1"]) + command_frame(b"\x05ERROR\x04gone") + message_bytes([b"2"]))
    assert conn.pull(10) == [[b"1"]]
    with pytest.raises(ProtocolError) as info:
        conn.pull(10)
    err = info.value
    assert err.kind == "peer" and err.peer_reason == b"gone" and not err.during_handshake
    assert conn.close_reason is err and conn.state == "closed"


@pytest.mark.parametrize("body", [b"", b"\x09SUBSCRIB", b"\xff"])
def test_malformed_command_after_handshake(body: bytes) -> None:
    conn = handshaken()
    feed(conn, command_frame(body))
    with pytest.raises(ProtocolError) as info:
        conn.pull(10)
    assert info.value.code == ZMTP_MALFORMED_COMMAND_UNSPECIFIED


def test_reserved_flags_after_handshake() -> None:
    conn = handshaken()
    feed(conn, message_bytes([b"ok"]) + b"\x40\x01x")
    assert conn.pull(10) == [[b"ok"]]
    with pytest.raises(ProtocolError, match="reserved"):
        conn.pull(10)


def test_max_msg_size_limits_each_frame() -> None:
    conn = handshaken(max_msg_size=300)
    feed(conn, message_bytes([b"a" * 300, b"b" * 300]) + data_frame(b"c" * 301))
    assert conn.pull(10) == [[b"a" * 300, b"b" * 300]]
    with pytest.raises(ProtocolError, match="max_msg_size"):
        conn.pull(10)


def test_max_msg_size_applies_to_handshake_commands_too_like_libzmq() -> None:
    from .helpers import GREETING_31_NULL, make_conn, ready_frame

    conn = make_conn(max_msg_size=5)
    with pytest.raises(ProtocolError, match="max_msg_size") as info:
        feed(conn, GREETING_31_NULL + ready_frame(b"ROUTER"))
    assert info.value.during_handshake


@pytest.mark.parametrize("limit", [64, 100, 255])
def test_small_max_msg_size_still_checks_short_frames(limit: int) -> None:
    conn = handshaken(max_msg_size=limit)
    feed(conn, message_bytes([b"q" * limit]) + message_bytes([b"q" * (limit + 1)]))
    assert conn.pull(1) == [[b"q" * limit]]
    with pytest.raises(ProtocolError):
        conn.pull(1)


# ------------------------------------------------------------ sending side


@pytest.mark.parametrize("socket_type", ["SUB", "XSUB"])
def test_subscriptions_go_out_as_commands_to_zmtp31_peers(socket_type: str) -> None:
    conn = handshaken(socket_type, b"PUB", peer_minor=1)
    conn.send_messages([[b"\x01A"], [b"\x00A"], [b"\x01"], [bytearray(b"\x01B")]])
    assert out_bytes(conn) == (
        b"\x04\x0b\x09SUBSCRIBEA" + b"\x04\x08\x06CANCELA" + b"\x04\x0a\x09SUBSCRIBE"
        + b"\x04\x0b\x09SUBSCRIBEB"
    )  # fmt: skip


@pytest.mark.parametrize("socket_type", ["SUB", "XSUB"])
def test_subscriptions_go_out_as_messages_to_zmtp30_peers(socket_type: str) -> None:
    conn = handshaken(socket_type, b"XPUB", peer_minor=0)
    conn.send_messages([[b"\x01A"], [b"\x00A"]])
    assert out_bytes(conn) == b"\x00\x02\x01A\x00\x02\x00A"


def test_only_single_frame_subscription_messages_become_commands() -> None:
    conn = handshaken("XSUB", b"XPUB")
    conn.send_messages([[b"\x01A", b"x"], [b""], [b"\x02A"], [memoryview(b"\x00T")]])
    assert out_bytes(conn) == (
        message_bytes([b"\x01A", b"x"]) + message_bytes([b""]) + message_bytes([b"\x02A"])
        + b"\x04\x08\x06CANCELT"
    )  # fmt: skip


def test_long_subscription_topic_uses_long_command_frame() -> None:
    conn = handshaken("SUB", b"PUB")
    topic = b"t" * 300
    conn.send_messages([[b"\x01" + topic]])
    assert out_bytes(conn) == command_frame(b"\x09SUBSCRIBE" + topic)


def test_subscription_from_wide_memoryview() -> None:
    conn = handshaken("SUB", b"PUB")
    raw = array.array("H", [0x4101])  # little-endian bytes 01 41
    conn.send_messages([[memoryview(raw)]])
    assert out_bytes(conn) == b"\x04\x0b\x09SUBSCRIBEA"


@pytest.mark.parametrize("socket_type", ["PUB", "DEALER", "PUSH"])
def test_other_types_send_leading_one_bytes_as_data(socket_type: str) -> None:
    peer = {"PUB": b"SUB", "DEALER": b"ROUTER", "PUSH": b"PULL"}[socket_type]
    conn = handshaken(socket_type, peer)
    conn.send_messages([[b"\x01A"]])
    assert out_bytes(conn) == b"\x00\x02\x01A"


@pytest.mark.parametrize(
    ("minor", "expected"), [(1, b"\x04\x0b\x09SUBSCRIBEA"), (0, b"\x00\x02\x01A")]
)
def test_subscriptions_queued_before_handshake_use_peer_version(
    minor: int, expected: bytes
) -> None:
    from .helpers import greeting, make_conn, ready_frame

    conn = make_conn("SUB")
    conn.send_messages([[b"\x01A"]])
    feed(conn, greeting(minor=minor) + ready_frame(b"PUB"))
    assert out_bytes(conn).endswith(expected)


def test_sub_to_xpub_between_connections_both_forms() -> None:
    sub, xpub = connected("SUB", "XPUB")
    sub.send_messages([[b"\x01news"], [b"\x00news"]])
    pump(sub, xpub)
    assert xpub.pull(10) == [[b"\x01news"], [b"\x00news"]]


def test_output_order_is_kept() -> None:
    conn = handshaken()
    conn.send_messages([[b"1"]])
    feed(conn, PING_LOL)
    conn.pull(1)
    conn.send_messages([[b"2"]])
    assert conn.has_output
    assert out_bytes(conn) == message_bytes([b"1"]) + PONG_LOL + message_bytes([b"2"])
    assert not conn.has_output


# ------------------------------------------------ whole vs byte by byte

MIXED = (
    message_bytes([b"a"])
    + PING_LOL
    + message_bytes([b"", b"b" * 256, b"c" * 9000])
    + command_frame(b"\x09SUBSCRIBEtopic")
    + command_frame(b"\x04JOINx")
    + message_bytes([b"d" * 70000])
    + command_frame(b"\x06CANCELtopic")
    + message_bytes([b"e"] * 5)
)


@pytest.mark.parametrize("max_msgs", [1, 3, 1000])
def test_mixed_stream_gives_same_result_in_every_chunking(max_msgs: int) -> None:
    results = []
    for mode in (*FEED_MODES, 5, 8191):
        conn = handshaken("XPUB", b"SUB")
        results.append(run_input(conn, MIXED, mode, max_msgs))
    first = results[0]
    assert first[2] is None
    assert first[0] == [
        [b"a"], [b"", b"b" * 256, b"c" * 9000], [b"\x01topic"], [b"d" * 70000],
        [b"\x00topic"], [b"e"] * 5,
    ]  # fmt: skip
    assert first[1] == PONG_LOL
    for other in results[1:]:
        assert other[:2] == first[:2] and other[2] is None


@pytest.mark.parametrize("mode", FEED_MODES)
def test_error_stream_gives_same_error_in_every_chunking(mode: str) -> None:
    conn = handshaken()
    msgs, _, error = run_input(conn, message_bytes([b"ok"]) + b"\x09\x01z", mode)
    assert msgs == [[b"ok"]]
    assert error is not None and "reserved" in error.reason


def test_zero_byte_update_is_not_traffic() -> None:
    conn = handshaken(heartbeat_ivl=1.0)
    conn.on_timer(1.0)
    conn.get_buffer()
    conn.buffer_updated(0, 1.5)  # EOF/EAGAIN reported as 0: no liveness
    with pytest.raises(ProtocolError):
        conn.on_timer(2.0)
