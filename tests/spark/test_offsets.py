"""Offsets: canonical JSON in Kafka's shape that survives Spark's WAL round trip."""

from __future__ import annotations

import json

import pytest

from purezmq.spark.offsets import JournalOffset, OffsetError


def test_keys_are_sorted_whatever_the_input_order() -> None:
    a = JournalOffset("id", {("b", 0): 2, ("a", 1): 5, ("a", 0): 1})
    b = JournalOffset("id", {("a", 0): 1, ("a", 1): 5, ("b", 0): 2})
    assert a.dumps() == b.dumps() == '{"journalId":"id","streams":{"a":{"0":1,"1":5},"b":{"0":2}}}'
    assert list(a.to_json()["streams"]) == ["a", "b"]
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())  # what Spark's runner does
    ten = JournalOffset("id", {("a", 10): 1, ("a", 2): 1})
    assert json.dumps(ten.to_json()) == json.dumps(ten.to_json(), sort_keys=True)


def test_round_trip_through_json_text_and_dicts() -> None:
    off = JournalOffset("4f1c", {("orders", 0): 1200, ("orders", 1): 7, ("ticks", 0): 0})
    assert JournalOffset.from_json(off.dumps()) == off
    assert JournalOffset.from_json(json.loads(json.dumps(off.to_json()))) == off
    assert off.get("orders", 1) == 7 and off.get("new") == 0


def test_checkpoints_from_before_partitions_are_read_as_partition_0() -> None:
    old = '{"journalId":"4f1c","streams":{"orders":1200,"ticks":0}}'
    off = JournalOffset.from_json(old)
    assert off.positions == {("orders", 0): 1200, ("ticks", 0): 0}
    assert off.dumps() == '{"journalId":"4f1c","streams":{"orders":{"0":1200},"ticks":{"0":0}}}'


@pytest.mark.parametrize(
    "bad",
    ["{", {"streams": {}}, {"journalId": 1}, {"journalId": "x", "streams": {"a": -1}},
     {"journalId": "x", "streams": {"a": "1"}}, {"journalId": "x", "streams": []},
     {"journalId": "x", "streams": {"a": {"x": 1}}},
     {"journalId": "x", "streams": {"a": {"0": -1}}}],
)  # fmt: skip
def test_foreign_offsets_are_refused(bad: object) -> None:
    with pytest.raises(OffsetError):
        JournalOffset.from_json(bad)
