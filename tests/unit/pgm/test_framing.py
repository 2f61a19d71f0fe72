"""libzmq's APDU framing: offsets, frames across APDUs, late join, loss."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from purezmq._pgm.framing import NO_OFFSET, ApduWriter, PeerReader


def _puller(msgs: list[list[bytes]]):  # type: ignore[no-untyped-def]
    queue = list(msgs)
    return lambda: queue.pop(0) if queue else None


def _apdus(msgs: list[list[bytes]], size: int) -> list[bytes]:
    writer, pull, out = ApduWriter(size), _puller(msgs), []
    while (apdu := writer.next_apdu(pull)) is not None:
        out.append(apdu)
    return out


def test_golden_two_messages_in_one_apdu() -> None:
    apdus = _apdus([[b"A", b"bc"], [b""]], 100)
    # offset 0, then ZMTP/1.0 frames: length (flags included), flags, body.
    assert apdus == [b"\x00\x00" + b"\x02\x01A" + b"\x03\x00bc" + b"\x01\x00"]


def test_offset_points_at_the_first_message_start() -> None:
    apdus = _apdus([[b"x" * 20], [b"y"]], 12)
    # 22 bytes of the first message: 10 in the first APDU, 10, then 2 + the next.
    assert [a[:2] for a in apdus] == [b"\x00\x00", NO_OFFSET.to_bytes(2, "big"), b"\x00\x02"]
    assert apdus[2][4:] == b"\x02\x00y"


def test_late_joiner_starts_at_the_next_message() -> None:
    msgs = [[b"m%d" % i, b"x" * 30] for i in range(10)]
    apdus = _apdus(msgs, 40)
    reader = PeerReader()
    got = [m for a in apdus[3:] for m in reader.feed(a)]
    assert got and got == msgs[len(msgs) - len(got) :]


def test_loss_drops_the_partial_message_and_rejoins() -> None:
    msgs = [[b"%03d" % i + b"z" * 25] for i in range(20)]
    apdus = _apdus(msgs, 30)
    reader = PeerReader()
    got = []
    for i, apdu in enumerate(apdus):
        if i == 5:
            reader.loss()
            continue
        got.extend(reader.feed(apdu))
    assert reader.resets == 1
    assert len(got) < len(msgs)
    assert all(m in msgs for m in got)
    assert got == sorted(got)


def test_malformed_frame_resets() -> None:
    reader = PeerReader()
    assert reader.feed(b"\x00\x00\x00") == []  # a ZMTP/1.0 length of 0
    assert not reader.joined
    assert reader.feed(b"\x00\x00\x02\x00A") == [[b"A"]]


def test_max_msg_size() -> None:
    reader = PeerReader(max_msg_size=3)
    assert reader.feed(b"\x00\x00\x05\x00abcd") == []
    assert not reader.joined


@given(
    st.lists(st.lists(st.binary(max_size=600), min_size=1, max_size=4), max_size=30),
    st.integers(3, 700),
)
def test_round_trip_any_apdu_size(msgs: list[list[bytes]], size: int) -> None:
    reader = PeerReader()
    got = [m for a in _apdus(msgs, size) for m in reader.feed(a)]
    assert got == msgs


def test_libzmq_apdu_golden() -> None:
    """The APDU of a libzmq 4.3.4 PUB's [b"topic", b"hello"] (captured, see
    test_packets.py), both ways."""
    apdu = b"\x00\x00\x06\x01topic\x06\x00hello"
    assert PeerReader().feed(apdu) == [[b"topic", b"hello"]]
    assert _apdus([[b"topic", b"hello"]], 1448) == [apdu]
