"""The PGM codec: golden bytes laid out by hand from RFC 3208 section 8,
round trips, and the rule that only PgmError leaves the parser."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from purezmq._pgm import packets as P

GSI = bytes.fromhex("0102030405ff")


def _csum(data: bytes) -> int:
    """RFC 1071 by the book (a second implementation to check against)."""
    if len(data) % 2:
        data += b"\0"
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
        total = (total & 0xFFFF) + (total >> 16)
    return (~total & 0xFFFF) or 0xFFFF


def test_checksum_rfc1071_example() -> None:
    # RFC 1071 section 3's example: the sum of these words is 0xddf2.
    assert P.checksum(bytes.fromhex("0001f203f4f5f6f7")) == (~0xDDF2 & 0xFFFF)


def test_checksum_zero_is_sent_as_ffff() -> None:
    assert P.checksum(b"\xff\xff") == 0xFFFF
    assert P.checksum(b"\0\0") == 0xFFFF  # ~0 would be 0xffff anyway


def test_odata_golden() -> None:
    pkt = P.encode_data(GSI, 0x1234, 5555, 7, 3, b"hello")
    want = (
        bytes.fromhex("1234 15b3 04 00 0000 0102030405ff 0005".replace(" ", ""))
        + struct.pack("!II", 7, 3)
        + b"hello"
    )
    csum = _csum(want)
    assert pkt == want[:6] + csum.to_bytes(2, "big") + want[8:]


def test_fragment_golden() -> None:
    pkt = P.encode_data(GSI, 1, 2, 10, 0, b"ab", P.Fragment(9, 1000, 1002))
    options = bytes.fromhex("00 04 0014 81 10 00 00".replace(" ", "")) + struct.pack(
        "!III", 9, 1000, 1002
    )
    assert pkt[4:6] == bytes([P.ODATA, P.OPT_PRESENT])
    assert pkt[24:44] == options
    assert pkt[44:] == b"ab"
    parsed = P.parse(pkt)
    assert parsed.fragment == P.Fragment(9, 1000, 1002)
    assert parsed.payload == b"ab"


def test_spm_golden() -> None:
    pkt = P.encode_spm(GSI, 0xAAAA, 7500, 1, 100, 200, "10.1.2.3")
    body = struct.pack("!IIIHH", 1, 100, 200, 1, 0) + bytes([10, 1, 2, 3])
    want = bytes.fromhex("aaaa 1d4c 00 00 0000".replace(" ", "")) + GSI + b"\0\0" + body
    assert pkt == want[:6] + _csum(want).to_bytes(2, "big") + want[8:]
    spm = P.parse(pkt)
    assert (spm.kind, spm.sqn, spm.trail, spm.lead, spm.nla) == (P.SPM, 1, 100, 200, "10.1.2.3")


def test_nak_with_list_golden() -> None:
    pkt = P.encode_nak(GSI, 7500, 0xAAAA, [5, 6, 9], "10.0.0.1", "239.192.1.1")
    body = (
        struct.pack("!I", 5)
        + struct.pack("!HH", 1, 0)
        + bytes([10, 0, 0, 1])
        + struct.pack("!HH", 1, 0)
        + bytes([239, 192, 1, 1])
        + bytes([0, 4, 0, 16, 0x82, 12, 0, 0])
        + struct.pack("!II", 6, 9)
    )
    assert pkt[4:6] == bytes([P.NAK, P.OPT_PRESENT])
    assert pkt[16:] == body
    nak = P.parse(pkt)
    assert (nak.sport, nak.dport, nak.nak_list) == (7500, 0xAAAA, [5, 6, 9])
    assert (nak.nla, nak.group) == ("10.0.0.1", "239.192.1.1")


def test_ncf_sets_network_bit() -> None:
    pkt = P.encode_nak(GSI, 1, 2, [1], "10.0.0.1", "239.1.1.1", kind=P.NCF)
    assert pkt[4:6] == bytes([P.NCF, P.OPT_NETWORK])


def test_checksum_mismatch_and_missing() -> None:
    pkt = bytearray(P.encode_data(GSI, 1, 2, 3, 0, b"x"))
    pkt[-1] ^= 1
    with pytest.raises(P.PgmError, match="checksum"):
        P.parse(bytes(pkt))
    pkt[6:8] = b"\0\0"  # "no checksum" is refused for data, as OpenPGM does
    with pytest.raises(P.PgmError, match="without a checksum"):
        P.parse(bytes(pkt))


def test_spmr_without_checksum_is_accepted() -> None:
    pkt = bytearray(P.encode_spmr(GSI, 1, 2))
    pkt[6:8] = b"\0\0"
    assert P.parse(bytes(pkt)).kind == P.SPMR


def test_sqn_diff_wraps() -> None:
    assert P.sqn_diff(0, 0xFFFFFFFF) == 1
    assert P.sqn_diff(0xFFFFFFFF, 0) == -1
    assert P.sqn_diff(5, 3) == 2


def test_strip_ip_header() -> None:
    ip = bytes([0x46]) + bytes(23)  # IHL 6: 24 bytes with options
    assert P.strip_ip_header(ip + b"pgm") == b"pgm"
    with pytest.raises(P.PgmError):
        P.strip_ip_header(b"\x60" + bytes(40))


@given(
    st.binary(max_size=3000),
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**32 - 1),
    st.none() | st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 1000)),
)
def test_data_round_trip(
    payload: bytes, sqn: int, trail: int, frag: tuple[int, int] | None
) -> None:
    fragment = None
    if frag is not None:
        fragment = P.Fragment(sqn, frag[1], frag[1] + len(payload) + 5)
    pkt = P.parse(P.encode_data(GSI, 9, 10, sqn, trail, payload, fragment, repair=True))
    assert (pkt.kind, pkt.sqn, pkt.trail, pkt.payload) == (P.RDATA, sqn, trail, payload)
    assert pkt.fragment == fragment


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_fuzz_only_pgm_error_escapes(data: bytes) -> None:
    try:
        P.parse(data)
    except P.PgmError:
        pass


def _valid_packets() -> list[bytes]:
    return [
        P.encode_data(GSI, 1, 2, 3, 0, b"payload", P.Fragment(3, 0, 20)),
        P.encode_spm(GSI, 1, 2, 3, 4, 5, "10.0.0.1"),
        P.encode_nak(GSI, 1, 2, [1, 2, 3], "10.0.0.1", "239.1.1.1"),
        P.encode_nak(GSI, 1, 2, [1], "::1", "ff02::1", kind=P.NCF),
    ]


@settings(max_examples=1000)
@given(st.sampled_from(_valid_packets()), st.data())
def test_fuzz_mutated_valid_packets(pkt: bytes, data: st.DataObject) -> None:
    """Mutations of valid packets with the checksum fixed up, so that the
    parser's body and option checks (not only the checksum) see them."""
    buf = bytearray(pkt)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(P.HEADER_SIZE, len(buf)))
    buf = buf[:cut]
    buf[6:8] = b"\0\0"
    buf[6:8] = P.checksum(buf).to_bytes(2, "big")
    try:
        P.parse(bytes(buf))
    except P.PgmError:
        pass


# Captured from Debian's libzmq 4.3.4 + OpenPGM 5.3 (epgm, UDP payloads):
# a PUB at 10.99.0.1 sending [b"topic", b"hello"] to 239.192.9.9:6300.
OPENPGM_GSI = bytes.fromhex("b7c6d1bc038a")
OPENPGM_SPM = bytes.fromhex(
    "dd0c189c000072e4b7c6d1bc038a00000000000000000000ffffffff000100000a630001"
)
OPENPGM_ODATA = bytes.fromhex(
    "dd0c189c04005915b7c6d1bc038a0010000000000000000000000601746f706963060068656c6c6f"
)


def test_openpgm_spm_parses_and_is_reproduced() -> None:
    spm = P.parse(OPENPGM_SPM)
    assert (spm.kind, spm.sport, spm.dport, spm.gsi) == (P.SPM, 0xDD0C, 6300, OPENPGM_GSI)
    assert (spm.sqn, spm.trail, spm.lead, spm.nla) == (0, 0, 0xFFFFFFFF, "10.99.0.1")
    ours = P.encode_spm(OPENPGM_GSI, 0xDD0C, 6300, 0, 0, 0xFFFFFFFF, "10.99.0.1")
    assert ours == OPENPGM_SPM  # checksum included


def test_openpgm_odata_parses_and_is_reproduced() -> None:
    odata = P.parse(OPENPGM_ODATA)
    assert (odata.kind, odata.sqn, odata.trail, odata.fragment) == (P.ODATA, 0, 0, None)
    # libzmq's framing: offset 0, then ZMTP/1.0 frames "topic" (MORE) and "hello".
    assert odata.payload == b"\x00\x00\x06\x01topic\x06\x00hello"
    ours = P.encode_data(OPENPGM_GSI, 0xDD0C, 6300, 0, 0, odata.payload)
    assert ours == OPENPGM_ODATA
