"""Driver-side planning from listings: offsets, read limits, partitions, data loss."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from purezmq.journal import DataLossError, Journal
from purezmq.spark.offsets import JournalOffset
from purezmq.spark.options import OptionError, SourceOptions
from purezmq.spark.planning import Limit, Planner, _split_proportionally
from purezmq.spark.positions import ending, starting

from .conftest import append, make_journal


def planner(j: Journal, streaming: bool = True, **opts: str) -> Planner:
    return Planner(j, SourceOptions.parse({"path": j.uri, **opts}, streaming=streaming))


def off(j: Journal, **streams: int) -> JournalOffset:
    return JournalOffset(j.journal_id, {(s, 0): v for s, v in streams.items()})


def flat(o: JournalOffset) -> dict[str, int]:
    return {s: v for (s, p), v in o.positions.items() if p == 0}


def test_starting_offsets(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100, "b": 30})
    j.apply_retention(max_bytes=0, streams=["a"])  # a keeps [50, 100)
    p = planner(j)
    assert flat(starting(p, "earliest")) == {"a": 50, "b": 0}
    assert flat(starting(p, "latest")) == {"a": 100, "b": 30}
    assert flat(starting(p, {"a": -1, "b": 7})) == {"a": 100, "b": 7}
    assert flat(starting(p, {"b": -1})) == {"a": 50, "b": 30}  # unnamed streams: earliest
    assert flat(starting(planner(j, streams="b"), "latest")) == {"b": 30}


def test_a_misspelt_stream_or_offset_key_names_what_exists(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"ids": 10, "b": 5})
    with pytest.raises(OptionError, match=r"'idz', not in the journal.*streams are: b, ids"):
        planner(j, streams="idz").listing()
    with pytest.raises(OptionError, match=r"startingOffsets names 'idz'.*streams: b, ids"):
        starting(planner(j), {"idz": 3})
    with pytest.raises(OptionError, match=r"partition\(s\) \[3\] of stream 'ids'"):
        starting(planner(j), {"ids": {3: 0}})
    with pytest.raises(OptionError, match="endingOffsets names 'x'"):
        ending(planner(j, streaming=False), {"x": 3}, starting(planner(j), "earliest"))


def test_offsets_beyond_the_end_as_kafka(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    with pytest.raises(OptionError, match=r"seq 50 .* beyond its end.*never written"):
        starting(planner(j), {"a": 50})
    assert flat(starting(planner(j, failOnDataLoss="false"), {"a": 50})) == {"a": 10}
    p = planner(j, streaming=False)
    start = starting(p, "earliest")
    with pytest.raises(OptionError, match=r"endingOffsets asks for seq 99.*nothing was deleted"):
        ending(p, {"a": 99}, start)
    assert flat(ending(planner(j, False, failOnDataLoss="false"), {"a": 99}, start)) == {"a": 10}
    with pytest.raises(OptionError, match=r"startingOffsets \(8\) is after endingOffsets \(5\)"):
        ending(p, {"a": 5}, starting(p, {"a": 8}))


def test_partitioned_streams_need_per_partition_offsets(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    append(j, "a", 0, 20, partition=1)
    p = planner(j)
    assert starting(p, "earliest").positions == {("a", 0): 0, ("a", 1): 0}
    assert starting(p, {"a": {1: 5}}).positions == {("a", 0): 0, ("a", 1): 5}
    assert starting(p, {"a": -1}).positions == {("a", 0): 10, ("a", 1): 20}
    with pytest.raises(OptionError, match="has 2 partitions"):
        starting(p, {"a": 5})


def test_latest_without_limit_reads_everything_and_new_streams_from_zero(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100})
    start = starting(planner(j), "earliest")
    assert flat(planner(j).latest(start, Limit())) == {"a": 100}
    append(j, "b", 0, 20)  # a stream that appears mid-query
    append(j, "a", 0, 5, partition=3)  # and a partition
    end = planner(j).latest(off(j, a=100), Limit())
    assert end.positions == {("a", 0): 100, ("a", 3): 5, ("b", 0): 20}
    plans = planner(j).plan(off(j, a=100), end)
    assert [(x.stream, x.partition, x.start, x.end) for x in plans] == [
        ("a", 3, 0, 5), ("b", 0, 0, 20)]  # fmt: skip


def test_row_budget_is_shared_in_proportion_to_lag(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 100, "c": 0})
    end = planner(j).latest(off(j, a=0, b=0), Limit("rows", 200))
    assert flat(end) == {"a": 150, "b": 50, "c": 0}
    assert sum(end.positions.values()) == 200


@pytest.mark.parametrize(
    ("lags", "budget"),
    [({"a": 1, "b": 1, "c": 1}, 2), ({"a": 5, "b": 0}, 1), ({"a": 3, "b": 3}, 1),
     ({"x": 7, "y": 13, "z": 1}, 10), ({"a": 1000, "b": 1}, 1)],
)  # fmt: skip
def test_split_never_exceeds_budget_or_lag_and_makes_progress(
    lags: dict[str, int], budget: int
) -> None:
    take = _split_proportionally(lags, budget)
    assert sum(take.values()) == min(budget, sum(lags.values()))
    assert all(0 <= take[s] <= lags[s] for s in lags)
    assert take == _split_proportionally(dict(reversed(lags.items())), budget)  # deterministic


def test_byte_budget_uses_segment_sizes(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 400}, per_segment=100)
    seg = j.segments("a")[0].size
    end = planner(j).latest(off(j, a=0), Limit("bytes", seg * 2))
    assert 190 <= end.get("a") <= 200
    tiny = planner(j).latest(off(j, a=0), Limit("bytes", 1))
    assert tiny.get("a") == 1  # still progress


def test_min_rows_waits(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    p = planner(j)
    assert flat(p.latest(off(j, a=0), Limit("minrows", 11))) == {"a": 0}
    assert flat(p.latest(off(j, a=0), Limit("minrows", 10))) == {"a": 10}


def test_available_now_target_caps_and_ignores_later_streams(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100})
    target = planner(j).available()
    append(j, "a", 100, 150)
    append(j, "late", 0, 10)
    end = planner(j).latest(off(j, a=60), Limit(), target)
    assert end.positions == {("a", 0): 100, ("late", 0): 0}
    assert planner(j).latest(end, Limit(), target) == end  # then: no more data, the query ends


def test_partitions_carry_exactly_their_segments(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100, "b": 100}, per_segment=25)
    plans = planner(j).plan(off(j, a=10, b=0), off(j, a=60, b=0))
    (p,) = plans
    assert (p.stream, p.partition, p.start, p.end, p.count) == ("a", 0, 10, 60, 50)
    assert [(s.first, s.end) for s in p.segments] == [(0, 25), (25, 50), (50, 75)]
    assert p.path == j.uri and p.include_frames and p.fail_on_data_loss
    assert p.journal_id == j.journal_id


def test_one_task_per_journal_partition_and_min_partitions_splits(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 100}, per_segment=50)
    append(j, "a", 0, 100, partition=1)
    end = planner(j).available()
    plans = planner(j).plan(JournalOffset(j.journal_id), end)
    assert sorted((x.stream, x.partition) for x in plans) == [("a", 0), ("a", 1), ("b", 0)]
    plans = planner(j, minPartitions="8").plan(JournalOffset(j.journal_id), end)
    assert len(plans) >= 8
    for tp, n in ((("a", 0), 300), (("a", 1), 100), (("b", 0), 100)):
        mine = sorted((x.start, x.end) for x in plans if (x.stream, x.partition) == tp)
        assert mine[0][0] == 0 and mine[-1][1] == n
        assert all(x[1] == y[0] for x, y in itertools.pairwise(mine))
    for p in plans:
        assert all(g.end > p.start and g.first < p.end for g in p.segments)


def test_data_loss_fails_or_skips_only_what_is_gone(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100}, per_segment=25)
    j.apply_retention(max_bytes=0)  # keeps [75, 100)
    with pytest.raises(DataLossError, match=r"65 of the seqs \[10, 100\).*failOnDataLoss=false"):
        planner(j).plan(off(j, a=10), off(j, a=100))
    plans = planner(j, failOnDataLoss="false").plan(off(j, a=10), off(j, a=100))
    assert [(p.start, p.end) for p in plans] == [(75, 100)]
    gone = planner(j, failOnDataLoss="false").plan(off(j, a=10), off(j, a=60))
    assert gone == []


def test_a_gap_in_the_middle_skips_only_the_gap(tmp_path: Path) -> None:
    # failOnDataLoss=false used to read only the run after the last gap.
    j = make_journal(tmp_path / "j", {"a": 1000}, per_segment=100)
    os.unlink(j.segment_path("a", j.segments("a")[5]))  # [500, 600) is gone
    with pytest.raises(DataLossError, match=r"100 of the seqs.*\[500, 600\)"):
        planner(j).plan(off(j, a=0), off(j, a=1000))
    plans = planner(j, failOnDataLoss="false").plan(off(j, a=50), off(j, a=1000))
    assert [(p.start, p.end) for p in plans] == [(50, 500), (600, 1000)]
    assert sum(p.count for p in plans) == 850


def test_a_recreated_journal_is_noticed(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    old = JournalOffset("0" * 32, {("a", 0): 5})
    with pytest.raises(DataLossError, match="re-created"):
        planner(j).latest(old, Limit())
    p = planner(j, failOnDataLoss="false")
    end = p.latest(old, Limit())
    assert end.journal_id == j.journal_id and flat(end) == {"a": 10}
    assert [(x.start, x.end) for x in p.plan(old, end)] == [(0, 10)]


def test_empty_and_backwards_ranges_plan_nothing(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    assert planner(j).plan(off(j, a=10), off(j, a=10)) == []
    assert planner(j).plan(off(j, a=10), off(j, a=5)) == []
