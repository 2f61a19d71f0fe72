"""The handshake's property-list caches (issue 14, connection set-up).

Every connection sends a READY built from its socket type and identity, and
parses the peer's: both are remembered by what determines them. What a
cache hands out must equal what the uncached code makes, a malformed list
must raise every time (nothing of it kept), and neither cache may grow
without bound however many identities or peers a process sees.
"""

from __future__ import annotations

import pytest

from purezmq._zmtp import ProtocolError, encode_properties, parse_properties
from purezmq._zmtp.mechanisms import base
from purezmq._zmtp.mechanisms.null import NullMechanism
from purezmq._zmtp.metadata import _PARSED, _PARSED_MAX, _PARSED_MAX_BYTES, parse_properties_shared


def _ready(socket_type: str, identity: bytes | None = None, **props: bytes) -> bytes:
    mech = NullMechanism(identity=identity, properties=props or None)
    mech.configure(socket_type=socket_type)
    return mech._ready_properties()


def test_ready_properties_are_those_encoded_each_time() -> None:
    assert _ready("DEALER") == encode_properties([("Socket-Type", b"DEALER")])
    assert _ready("ROUTER", b"me") == encode_properties(
        [("Socket-Type", b"ROUTER"), ("Identity", b"me")]
    )
    # Same key, same bytes; a different identity is a different list.
    assert _ready("ROUTER", b"me") is _ready("ROUTER", b"me")
    assert _ready("ROUTER", b"you") != _ready("ROUTER", b"me")


def test_extra_properties_are_encoded_not_cached() -> None:
    base._READY_CACHE.clear()
    with_meta = _ready("DEALER", **{"X-Label": b"a"})
    assert with_meta == encode_properties([("Socket-Type", b"DEALER"), ("X-Label", b"a")])
    assert base._READY_CACHE == {}


def test_ready_cache_is_bounded() -> None:
    for i in range(base._READY_CACHE_MAX + 40):
        assert _ready("DEALER", b"id-%d" % i).endswith(b"id-%d" % i)
    assert len(base._READY_CACHE) <= base._READY_CACHE_MAX


def test_shared_parse_equals_a_fresh_parse_and_is_shared() -> None:
    data = encode_properties([("Socket-Type", b"ROUTER"), ("Identity", b"x")])
    first = parse_properties_shared(data)
    assert dict(first) == dict(parse_properties(data))
    assert first.get("socket-type") == b"ROUTER"
    assert parse_properties_shared(bytes(data)) is first  # equal bytes, one result


def test_malformed_list_raises_every_time_and_is_not_kept() -> None:
    bad = encode_properties([("Socket-Type", b"DEALER")])[:-2]  # value cut short
    for _ in range(2):
        with pytest.raises(ProtocolError):
            parse_properties_shared(bad)
    assert bad not in _PARSED


def test_long_lists_are_parsed_but_not_kept() -> None:
    data = encode_properties([("X-Big", b"v" * (_PARSED_MAX_BYTES + 1))])
    assert parse_properties_shared(data)["X-Big"] == b"v" * (_PARSED_MAX_BYTES + 1)
    assert data not in _PARSED


def test_parse_cache_is_bounded() -> None:
    for i in range(_PARSED_MAX + 40):
        data = encode_properties([("Identity", b"peer-%d" % i)])
        assert parse_properties_shared(data)["Identity"] == b"peer-%d" % i
    assert len(_PARSED) <= _PARSED_MAX
