"""Z85 (RFC 32): the RFC's test case, libzmq's test_base85 vectors, the CURVE
test keys of libzmq's documentation, and round trips against pyzmq."""

from __future__ import annotations

import pytest
import zmq.utils.z85 as pyzmq_z85
from hypothesis import given
from hypothesis import strategies as st

from purezmq.utils import z85

# libzmq doc/zmq_curve.adoc "TEST KEY VALUES" (also in pyzmq's test_z85.py).
CURVE_TEST_KEYS = [
    (
        "BB88471D65E2659B30C55A5321CEBB5AAB2B70A398645C26DCA2B2FCB43FC518",
        b"Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID",
    ),
    (
        "7BB864B489AFA3671FBE69101F94B38972F24816DFB01B51656B3FEC8DFD0888",
        b"D:)Q[IlAW!ahhC2ac:9*A}h:p?([4%wOTJ%JR%cs",
    ),
    (
        "54FCBA24E93249969316FB617C872BB0C1D1FF14800427C594CBFACF1BC2D652",
        b"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7",
    ),
    (
        "8E0BDD697628B91D8F245587EE95C5B04D48963F79259877B49CD9063AEAD3B7",
        b"JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6",
    ),
]


def test_rfc32_test_case() -> None:
    raw = bytes((0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B))
    assert z85.encode(raw) == b"HelloWorld"
    assert z85.decode(b"HelloWorld") == raw
    assert z85.decode("HelloWorld") == raw  # text accepted, as pyzmq does


@pytest.mark.parametrize(("hexkey", "text"), CURVE_TEST_KEYS)
def test_curve_test_keys(hexkey: str, text: bytes) -> None:
    assert z85.encode(bytes.fromhex(hexkey)) == text
    assert z85.decode(text) == bytes.fromhex(hexkey)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (bytes(4), b"00000"),
        (b"\xff" * 4, b"%nSc0"),
        (b"", b""),
    ],
)
def test_libzmq_base85_round_trips(raw: bytes, text: bytes) -> None:
    assert z85.encode(raw) == text
    assert z85.decode(text) == raw


def test_libzmq_round_trip_of_a_long_text() -> None:
    text = b"r^/rM9M=rMToK)63O8dCvd9D<PY<7iGlC+{BiSnG"
    assert z85.encode(z85.decode(text)) == text


@pytest.mark.parametrize("size", [1, 2, 3, 5, 42])
def test_encode_refuses_lengths_that_are_not_multiples_of_4(size: int) -> None:
    with pytest.raises(ValueError, match="multiple of 4"):
        z85.encode(bytes(size))


@pytest.mark.parametrize(
    "text",
    [
        b"0",  # not a multiple of 5
        b"01234567",
        b"%nSc1",  # above 2^32-1 (libzmq test_base85: "above limit")
        b"abcd\x00",  # NUL is not Z85
        b"abcd ",  # nor is a space
        b'abcd"',
        "abcdé",  # not ASCII at all
    ],
)
def test_decode_refuses_invalid_text(text: bytes | str) -> None:
    with pytest.raises(ValueError):
        z85.decode(text)


@given(st.binary(max_size=256).map(lambda b: b[: len(b) - len(b) % 4]))
def test_round_trip_and_agreement_with_pyzmq(raw: bytes) -> None:
    text = z85.encode(raw)
    assert z85.decode(text) == raw
    assert text == pyzmq_z85.encode(raw)
    assert len(text) == len(raw) * 5 // 4
    assert set(text) <= set(z85.Z85CHARS)


def test_buffers_are_accepted() -> None:
    raw = bytes(range(8))
    assert z85.encode(bytearray(raw)) == z85.encode(memoryview(raw)) == z85.encode(raw)
    assert z85.decode(bytearray(z85.encode(raw))) == raw


def test_public_names_match_pyzmq() -> None:
    assert z85.Z85CHARS == pyzmq_z85.Z85CHARS
    assert z85.Z85MAP == pyzmq_z85.Z85MAP
