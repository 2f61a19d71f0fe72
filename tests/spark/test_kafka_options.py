"""Kafka's other source options, on the reader itself (no JVM): timestamp
offsets, minOffsetsPerTrigger with maxTriggerDelay, committed offsets for
reader-aware retention (consumerName)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable

from purezmq.journal import Journal
from purezmq.spark.offsets import JournalOffset
from purezmq.spark.options import OptionError, SourceOptions
from purezmq.spark.planning import Planner
from purezmq.spark.positions import ending, starting
from purezmq.spark.source import ZmqStreamReader

from .conftest import append, make_journal

BASE_MS = 1_700_000_000_000  # make_journal stamps message i at BASE_MS * 1000 + i microseconds


def planner(j: Journal, streaming: bool = True, **opts: str) -> Planner:
    return Planner(j, SourceOptions.parse({"path": j.uri, **opts}, streaming=streaming))


def test_starting_and_ending_by_timestamp(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 3000}, per_segment=500)
    p = planner(j, startingTimestamp=str(BASE_MS + 1))  # the first seq at or after +1 ms
    assert starting(p, "latest").positions == {("a", 0): 1000}
    p = planner(j, startingOffsetsByTimestamp=json.dumps({"a": {"0": BASE_MS + 2}}))
    assert starting(p, "latest").positions == {("a", 0): 2000}  # wins over startingOffsets
    b = planner(j, False, startingTimestamp=str(BASE_MS), endingTimestamp=str(BASE_MS + 2))
    start = starting(b, "earliest")
    assert ending(b, "latest", start).positions == {("a", 0): 2000}
    b = planner(j, False, endingOffsetsByTimestamp=json.dumps({"a": BASE_MS + 99}))
    assert ending(b, "latest", start).positions == {("a", 0): 3000}  # none that late: latest


def test_no_message_that_late_is_an_error_or_latest(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100})
    late = str(BASE_MS + 10_000)
    with pytest.raises(OptionError, match="holds no message at or after"):
        starting(planner(j, startingTimestamp=late), "earliest")
    p = planner(j, startingTimestamp=late, startingOffsetsByTimestampStrategy="latest")
    assert starting(p, "earliest").positions == {("a", 0): 100}
    with pytest.raises(OptionError, match="batch reads"):
        SourceOptions.parse({"path": "/j", "endingTimestamp": "1"}, streaming=True)
    with pytest.raises(OptionError, match="epoch milliseconds"):
        SourceOptions.parse({"path": "/j", "startingOffsetsByTimestamp": "latest"}, streaming=True)


def test_min_offsets_per_trigger_waits_for_rows_or_the_delay(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 50})
    opts = {"path": j.uri, "minOffsetsPerTrigger": "100", "maxTriggerDelay": "1h"}
    r = ZmqStreamReader(SourceOptions.parse(opts, streaming=True))
    start = JournalOffset(j.journal_id, {("a", 0): 0}).to_json()
    assert r.latestOffset(start, ReadAllAvailable()) != start  # the first trigger runs (Kafka)
    assert r.latestOffset(start, ReadAllAvailable()) == start  # 50 < 100: wait
    append(j, "a", 50, 120)
    assert JournalOffset.from_json(r.latestOffset(start, ReadAllAvailable())).get("a") == 120
    quick = ZmqStreamReader(SourceOptions.parse({**opts, "maxTriggerDelay": "0s"}, streaming=True))
    assert JournalOffset.from_json(quick.latestOffset(start, ReadAllAvailable())).get("a") == 120
    r.prepareForTriggerAvailableNow()  # AvailableNow reads what is there, min or not
    end = JournalOffset(j.journal_id, {("a", 0): 100}).to_json()
    assert JournalOffset.from_json(r.latestOffset(end, ReadAllAvailable())).get("a") == 120


def test_consumer_name_records_committed_offsets_for_retention(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100}, per_segment=25)
    append(j, "a", 0, 10, partition=1)
    opts = SourceOptions.parse({"path": j.uri, "consumerName": "q1"}, streaming=True)
    ZmqStreamReader(opts).commit(
        JournalOffset(j.journal_id, {("a", 0): 50, ("a", 1): 10}).to_json()
    )
    assert j.consumers() == {"q1": {("a", 0): 50, ("a", 1): 10}}
    assert [g.first for _, g in j.apply_retention(max_bytes=0)] == [0, 25]  # not 50: unread
    with pytest.raises(OptionError, match="consumerName"):
        SourceOptions.parse({"path": "/j", "consumerName": "../x"}, streaming=True)
