"""The handshake's constant parts, made once (issue 14, connection set-up).

A connection's signature depends only on its routing id's length, the rest
of a NULL greeting only on the as-server flag, and a connection holds no
peer properties until the peer's arrive: each used to be built per
connection. What the shortcuts hand out must equal what the general code
makes, and the shared empty property list must never be filled.
"""

from __future__ import annotations

import pytest

from purezmq._zmtp import ZMTPConnection
from purezmq._zmtp.greeting import MINOR, _make_rest, greeting_rest, signature
from purezmq._zmtp.mechanisms.null import NullMechanism
from purezmq._zmtp.metadata import EMPTY, Metadata


@pytest.mark.parametrize("size", [0, 1, 5, 255, 256, 1000])
def test_signature_is_the_identity_frame_length(size: int) -> None:
    sig = signature(size)
    assert len(sig) == 10 and sig[0] == 0xFF and sig[9] == 0x7F
    assert int.from_bytes(sig[1:9], "big") == size + 1  # ZMTP 1.0 counts the flags octet


@pytest.mark.parametrize("as_server", [False, True])
def test_the_null_greeting_rest_is_the_general_one(as_server: bool) -> None:
    rest = greeting_rest(b"NULL", as_server)
    assert rest == _make_rest(b"NULL", as_server, MINOR)
    assert len(rest) == 53 and rest[0] == MINOR and rest[1:21] == b"NULL".ljust(20, b"\0")
    assert rest[21] == (1 if as_server else 0)


def test_other_greetings_are_still_made_and_checked() -> None:
    assert greeting_rest(b"PLAIN", True)[1:6] == b"PLAIN"
    assert greeting_rest(b"NULL", False, minor=0)[0] == 0  # ZMTP 3.0
    with pytest.raises(ValueError):
        greeting_rest(b"X" * 21, False)


def test_lookups_fold_case_and_the_first_spelling_wins() -> None:
    md = Metadata([("socket-type", b"first"), ("Socket-Type", b"second"), ("X-a", b"1")])
    assert md.get("Socket-Type") == b"first"
    assert md.get("SOCKET-TYPE") == b"first"
    assert md["socket-type"] == md["Socket-Type"] == b"first"
    assert md.get("x-A") == b"1" and md.get("missing") is None and md.get("missing", b"d") == b"d"
    assert "SOCKET-type" in md and list(md) == ["socket-type", "X-a"]


def _handshake(a: ZMTPConnection, b: ZMTPConnection) -> None:
    for _ in range(10):
        ab = b"".join(bytes(c) for c in a.data_to_send())
        ba = b"".join(bytes(c) for c in b.data_to_send())
        if not ab and not ba:
            return
        b.receive_data(ab, 0.0)
        a.receive_data(ba, 0.0)


def test_the_shared_empty_properties_are_replaced_never_filled() -> None:
    dealer = ZMTPConnection(socket_type="DEALER", mechanism=NullMechanism(), now=0.0)
    router = ZMTPConnection(socket_type="ROUTER", mechanism=NullMechanism(), now=0.0)
    assert dealer.peer_metadata is EMPTY and dict(EMPTY) == {}
    _handshake(dealer, router)
    assert dealer.handshake_done and router.handshake_done
    assert dealer.peer_metadata.get("Socket-Type") == b"ROUTER"
    assert router.peer_metadata.get("socket-type") == b"DEALER"
    assert dict(EMPTY) == {}
    assert dealer.mechanism.zap_metadata is EMPTY
