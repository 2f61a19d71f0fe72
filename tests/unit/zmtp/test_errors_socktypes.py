"""ProtocolError, libzmq codes and the socket-type table."""

from __future__ import annotations

import itertools

import pytest

from purezmq import _zmtp
from purezmq._zmtp import ProtocolError, compatible, sends_identity, socktypes
from purezmq._zmtp.errors import zap_status_of

RFC37_PAIRS = {
    ("REQ", "REP"), ("REQ", "ROUTER"),
    ("REP", "REQ"), ("REP", "DEALER"),
    ("DEALER", "REP"), ("DEALER", "DEALER"), ("DEALER", "ROUTER"),
    ("ROUTER", "REQ"), ("ROUTER", "DEALER"), ("ROUTER", "ROUTER"),
    ("PUB", "SUB"), ("PUB", "XSUB"), ("XPUB", "SUB"), ("XPUB", "XSUB"),
    ("SUB", "PUB"), ("SUB", "XPUB"), ("XSUB", "PUB"), ("XSUB", "XPUB"),
    ("PUSH", "PULL"), ("PULL", "PUSH"), ("PAIR", "PAIR"),
    ("CLIENT", "SERVER"), ("SERVER", "CLIENT"), ("RADIO", "DISH"), ("DISH", "RADIO"),
    ("SCATTER", "GATHER"), ("GATHER", "SCATTER"), ("PEER", "PEER"),
    ("CHANNEL", "CHANNEL"), ("DGRAM", "DGRAM"),
}  # fmt: skip
ALL_TYPES = socktypes.SOCKET_TYPES + socktypes.DRAFT_SOCKET_TYPES


def test_libzmq_protocol_error_codes() -> None:
    assert _zmtp.ZMTP_UNSPECIFIED == 0x10000000
    assert _zmtp.ZMTP_UNEXPECTED_COMMAND == 0x10000001
    assert _zmtp.ZMTP_INVALID_SEQUENCE == 0x10000002
    assert _zmtp.ZMTP_KEY_EXCHANGE == 0x10000003
    assert _zmtp.ZMTP_MALFORMED_COMMAND_UNSPECIFIED == 0x10000011
    assert _zmtp.ZMTP_MALFORMED_COMMAND_MESSAGE == 0x10000012
    assert _zmtp.ZMTP_MALFORMED_COMMAND_HELLO == 0x10000013
    assert _zmtp.ZMTP_MALFORMED_COMMAND_INITIATE == 0x10000014
    assert _zmtp.ZMTP_MALFORMED_COMMAND_ERROR == 0x10000015
    assert _zmtp.ZMTP_MALFORMED_COMMAND_READY == 0x10000016
    assert _zmtp.ZMTP_MALFORMED_COMMAND_WELCOME == 0x10000017
    assert _zmtp.ZMTP_INVALID_METADATA == 0x10000018
    assert _zmtp.ZMTP_CRYPTOGRAPHIC == 0x11000001
    assert _zmtp.ZMTP_MECHANISM_MISMATCH == 0x11000002


def test_protocol_error_defaults_and_attributes() -> None:
    err = ProtocolError("bad")
    assert isinstance(err, Exception)
    assert (err.reason, err.code, err.kind, err.during_handshake) == (
        "bad",
        _zmtp.ZMTP_UNSPECIFIED,
        "protocol",
        True,
    )
    assert err.peer_reason == b"" and err.zap_status is None
    assert "bad" in str(err) and "0x10000000" in repr(err)


@pytest.mark.parametrize(
    ("reason", "status"),
    [(b"300", 300), (b"400", 400), (b"500", 500), (b"200", None), (b"600", None),
     (b"401", None), (b"40", None), (b"Invalid", None)],
)  # fmt: skip
def test_peer_error_reason_recognised_as_zap_status(reason: bytes, status: int | None) -> None:
    assert zap_status_of(reason) == status
    assert ProtocolError("x", kind="peer", peer_reason=reason).zap_status == status


def test_compatibility_table_matches_rfc37_exactly() -> None:
    for ours, peer in itertools.product(ALL_TYPES, repeat=2):
        assert compatible(ours, peer) == ((ours, peer) in RFC37_PAIRS), (ours, peer)


def test_compatibility_is_symmetric() -> None:
    for ours, peer in itertools.product(ALL_TYPES, repeat=2):
        assert compatible(ours, peer) == compatible(peer, ours)


@pytest.mark.parametrize("peer", ["", "dealer", "Dealer ", "FOO", "DEALER\x00"])
def test_compatibility_is_exact_match(peer: str) -> None:
    assert not compatible("ROUTER", peer)


def test_unknown_own_type_is_compatible_with_nothing() -> None:
    assert not compatible("NOPE", "PAIR")
    assert not socktypes.is_known("NOPE")
    assert socktypes.is_known("CHANNEL") and socktypes.is_known("STREAM")


def test_stream_never_speaks_zmtp() -> None:
    assert not any(compatible("STREAM", peer) for peer in ALL_TYPES)


def test_identity_senders_are_libzmqs() -> None:
    assert {t for t in ALL_TYPES if sends_identity(t)} == {"REQ", "DEALER", "ROUTER"}


def test_subscription_roles() -> None:
    assert {"SUB", "XSUB"} == socktypes.SUBSCRIBERS
    assert {"PUB", "XPUB"} == socktypes.PUBLISHERS
