"""Driver-side planning from listings: offsets, read limits, partitions, data loss."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from purezmq.journal import DataLossError, Journal
from purezmq.spark.offsets import JournalOffset
from purezmq.spark.options import SourceOptions
from purezmq.spark.planning import Limit, Planner, _split_proportionally

from .conftest import append, make_journal


def planner(j: Journal, **opts: str) -> Planner:
    return Planner(j, SourceOptions.parse({"path": j.uri, **opts}, streaming=True))


def off(j: Journal, **streams: int) -> JournalOffset:
    return JournalOffset(j.journal_id, streams)


def test_initial_offsets(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100, "b": 30})
    j.apply_retention(max_bytes=0, streams=["a"])  # a keeps [50, 100)
    p = planner(j)
    assert p.initial("earliest").streams == {"a": 50, "b": 0}
    assert p.initial("latest").streams == {"a": 100, "b": 30}
    assert p.initial({"a": -1, "b": 7, "c": 3}).streams == {"a": 100, "b": 7, "c": 3}
    assert p.initial({"b": -1}).streams == {"a": 50, "b": 30}  # unnamed streams: earliest
    assert planner(j, streams="b").initial("latest").streams == {"b": 30}


def test_latest_without_limit_reads_everything_and_new_streams_from_zero(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100})
    p = planner(j)
    start = p.initial("earliest")
    assert p.latest(start, Limit()).streams == {"a": 100}
    append(j, "b", 0, 20)  # a stream that appears mid-query
    end = p.latest(off(j, a=100), Limit())
    assert end.streams == {"a": 100, "b": 20}
    plans = p.plan(off(j, a=100), end)
    assert [(x.stream, x.start, x.end) for x in plans] == [("b", 0, 20)]


def test_row_budget_is_shared_in_proportion_to_lag(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 100, "c": 0})
    end = planner(j).latest(off(j, a=0, b=0), Limit("rows", 200))
    assert end.streams == {"a": 150, "b": 50, "c": 0}
    assert sum(end.streams.values()) == 200


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
    assert p.latest(off(j, a=0), Limit("minrows", 11)).streams == {"a": 0}
    assert p.latest(off(j, a=0), Limit("minrows", 10)).streams == {"a": 10}


def test_available_now_target_caps_and_ignores_later_streams(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100})
    p = planner(j)
    target = p.available()
    append(j, "a", 100, 150)
    append(j, "late", 0, 10)
    end = p.latest(off(j, a=60), Limit(), target)
    assert end.streams == {"a": 100, "late": 0}
    assert p.latest(end, Limit(), target) == end  # then: no more data, the query ends


def test_partitions_carry_exactly_their_segments(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100, "b": 100}, per_segment=25)
    plans = planner(j).plan(off(j, a=10, b=0), off(j, a=60, b=0))
    assert len(plans) == 1
    (p,) = plans
    assert (p.stream, p.start, p.end, p.count) == ("a", 10, 60, 50)
    assert [(s.first, s.end) for s in p.segments] == [(0, 25), (25, 50), (50, 75)]
    assert p.path == j.uri and p.include_frames and p.fail_on_data_loss


def test_min_partitions_splits_large_ranges(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 300, "b": 100}, per_segment=50)
    plans = planner(j, minPartitions="4").plan(off(j), off(j, a=300, b=100))
    assert len(plans) >= 4
    covered = sorted((p.stream, p.start, p.end) for p in plans)
    for s, n in (("a", 300), ("b", 100)):
        mine = [(a, b) for x, a, b in covered if x == s]
        assert mine[0][0] == 0 and mine[-1][1] == n
        assert all(x[1] == y[0] for x, y in itertools.pairwise(mine))
    for p in plans:
        assert all(g.end > p.start and g.first < p.end for g in p.segments)


def test_data_loss_fails_or_skips(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 100}, per_segment=25)
    j.apply_retention(max_bytes=0)  # keeps [75, 100)
    with pytest.raises(DataLossError, match=r"\[10, 100\).*failOnDataLoss=false"):
        planner(j).plan(off(j, a=10), off(j, a=100))
    plans = planner(j, failOnDataLoss="false").plan(off(j, a=10), off(j, a=100))
    assert [(p.start, p.end) for p in plans] == [(75, 100)]
    gone = planner(j, failOnDataLoss="false").plan(off(j, a=10), off(j, a=60))
    assert gone == []


def test_a_recreated_journal_is_noticed(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    old = JournalOffset("0" * 32, {"a": 5})
    with pytest.raises(DataLossError, match="re-created"):
        planner(j).latest(old, Limit())
    p = planner(j, failOnDataLoss="false")
    end = p.latest(old, Limit())
    assert end.journal_id == j.journal_id and end.streams == {"a": 10}
    assert [(x.start, x.end) for x in p.plan(old, end)] == [(0, 10)]


def test_empty_and_backwards_ranges_plan_nothing(tmp_path: Path) -> None:
    j = make_journal(tmp_path / "j", {"a": 10})
    assert planner(j).plan(off(j, a=10), off(j, a=10)) == []
    assert planner(j).plan(off(j, a=10), off(j, a=5)) == []
