"""Batch headers and commit markers: encoding and tolerant decoding."""

from __future__ import annotations

import json

from purezmq.spark.protocol import (
    Header,
    HeaderPrefix,
    Marker,
    PartCommit,
    decode,
    encode_marker,
)


def test_header_round_trip_and_is_plain_json() -> None:
    hp = HeaderPrefix('q"1', 12, 3, 1, "tok")
    frame = hp.encode(37)
    assert decode(frame) == Header('q"1', 12, 3, 1, "tok", 37)
    obj = json.loads(frame)
    assert obj["type"] == "data" and obj["index"] == 37 and obj["v"] == 1


def test_marker_round_trip_sorted_by_partition() -> None:
    m = Marker("commit", "q", 5, (PartCommit(1, "b", 0), PartCommit(0, "a", 10)))
    back = decode(encode_marker(m))
    assert isinstance(back, Marker)
    assert back.kind == "commit" and back.batch == 5
    assert [p.part for p in back.parts] == [0, 1]
    assert decode(encode_marker(Marker("abort", "q", 6))) == Marker("abort", "q", 6, ())


def test_payloads_and_foreign_json_are_not_headers() -> None:
    frames = [
        b"", b"hello", b"{bad json", b'{"v":2,"type":"data"}', b'{"v":1,"type":"x"}',
        b'{"v":1,"type":"data","query":"q"}', b"[1,2]", b'{"v":1,"type":"commit"}',
    ]  # fmt: skip
    for frame in frames:
        assert decode(frame) is None
