"""Offsets: canonical JSON that survives Spark's WAL round trip."""

from __future__ import annotations

import json

import pytest

from purezmq.spark.offsets import JournalOffset, OffsetError


def test_keys_are_sorted_whatever_the_input_order() -> None:
    a = JournalOffset("id", {"b": 2, "a": 1})
    b = JournalOffset("id", {"a": 1, "b": 2})
    assert a.dumps() == b.dumps() == '{"journalId":"id","streams":{"a":1,"b":2}}'
    assert list(a.to_json()["streams"]) == ["a", "b"]
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())  # what Spark's runner does


def test_round_trip_through_json_text_and_dicts() -> None:
    off = JournalOffset("4f1c", {"orders": 1200, "ticks": 0})
    assert JournalOffset.from_json(off.dumps()) == off
    assert JournalOffset.from_json(json.loads(json.dumps(off.to_json()))) == off
    assert off.get("orders") == 1200 and off.get("new") == 0


@pytest.mark.parametrize(
    "bad",
    ["{", {"streams": {}}, {"journalId": 1}, {"journalId": "x", "streams": {"a": -1}},
     {"journalId": "x", "streams": {"a": "1"}}, {"journalId": "x", "streams": []}],
)  # fmt: skip
def test_foreign_offsets_are_refused(bad: object) -> None:
    with pytest.raises(OffsetError):
        JournalOffset.from_json(bad)
