"""Reader-aware retention: a reader's committed offsets hold back the soft
limits (age, size); the hard limits delete whatever readers say."""

from __future__ import annotations

import json
import os

from purezmq.journal import Journal

from .conftest import fill


def test_a_reader_holds_back_soft_limits_not_hard_ones(journal: Journal) -> None:
    fill(journal, "s", 50, per_segment=10)
    journal.commit_consumer("spark-q1", {("s", 0): 20})  # read [0, 20) so far
    assert journal.consumers() == {"spark-q1": {("s", 0): 20}}
    gone = journal.apply_retention(max_bytes=0)
    assert [g.first for _, g in gone] == [0, 10]  # not [20, 30): unread
    journal.commit_consumer("spark-q1", {("s", 0): 35})
    assert [g.first for _, g in journal.apply_retention(max_bytes=0)] == [20]
    # A hard limit wins over readers (a reader that stopped for good cannot fill the disk).
    assert [g.first for _, g in journal.apply_retention(hard_max_bytes=0)] == [30]
    assert journal.bounds("s") == (40, 50)


def test_readers_of_other_streams_or_journals_hold_nothing(journal: Journal) -> None:
    fill(journal, "s", 30, per_segment=10)
    fill(journal, "t", 30, per_segment=10)
    journal.commit_consumer("reads-t", {("t", 0): 0})
    cdir = os.path.join(journal.root, "consumers")
    with open(os.path.join(cdir, "old.json"), "w") as f:  # a reader of a journal once here
        json.dump({"journalId": "0" * 32, "streams": {"s": {"0": 0}}}, f)
    with open(os.path.join(cdir, "torn.json"), "w") as f:
        f.write("{")
    gone = journal.apply_retention(max_bytes=0)
    assert sorted((s, g.first) for s, g in gone) == [("s", 0), ("s", 10)]
    journal.forget_consumer("reads-t")
    assert [(s, g.first) for s, g in journal.apply_retention(max_bytes=0)] == [("t", 0), ("t", 10)]
