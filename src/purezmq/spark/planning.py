"""Planning micro-batches from directory listings (driver side, no Spark import).

Everything Spark asks the driver - how far the next batch goes under a read
limit, which tasks read what - is answered here from the journal's
listings: segment file names carry their seq ranges, so no segment is opened
to plan. Each planned `SlicePlan` carries its segment list, so an executor
opens exactly those files and lists nothing. Positions are per (stream,
partition), like Kafka's per (topic, partition); where a query starts is
`positions.py`'s business.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from purezmq.journal import (
    CorruptSegmentError,
    DataLossError,
    Journal,
    SegmentInfo,
    contiguous_runs,
)

from .offsets import TP, JournalOffset
from .options import OptionError, SourceOptions

log = logging.getLogger("purezmq.spark")
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Limit:
    """A read limit without Spark's classes: kind is all, rows, bytes or minrows."""

    kind: str = "all"
    value: int = 0


@dataclass(frozen=True)
class SlicePlan:
    """One Spark task: seqs [start, end) of one stream partition, and the segments holding them."""

    path: str
    stream: str
    start: int
    end: int
    segments: tuple[SegmentInfo, ...]
    include_frames: bool
    fail_on_data_loss: bool
    partition: int = 0
    journal_id: str | None = None
    include_headers: bool = False

    @property
    def count(self) -> int:
        """How many rows the task reads."""
        return self.end - self.start


def _split_proportionally(lags: Mapping[K, int], budget: int) -> dict[K, int]:
    """Share `budget` rows over partitions in proportion to their lag (largest remainder).

    Deterministic (ties broken by key), never more than a partition's lag,
    and at least one row in total when anything is waiting, so a tiny budget
    still makes progress.
    """
    total = sum(lags.values())
    if total <= budget:
        return dict(lags)
    shares = {s: lag * budget / total for s, lag in lags.items()}
    take = {s: math.floor(v) for s, v in shares.items()}
    rest = budget - sum(take.values())
    for s in sorted(lags, key=lambda s: (-(shares[s] - take[s]), repr(s)))[:rest]:
        take[s] += 1
    if not any(take.values()):
        first = min((s for s, lag in lags.items() if lag > 0), key=repr)
        take[first] = 1
    return take


def _bytes_in(segs: list[SegmentInfo], lo: int, hi: int) -> float:
    """Estimated bytes of seqs [lo, hi): each segment's size spread evenly over its rows."""
    total = 0.0
    for s in segs:
        a, b = max(lo, s.first), min(hi, s.end)
        if a < b:
            total += s.size * (b - a) / s.count
    return total


class Planner:
    """Answers the driver's questions for one query, from fresh listings (one per Planner)."""

    def __init__(self, journal: Journal, options: SourceOptions) -> None:
        self.journal = journal
        self.opts = options
        self._cache: dict[TP, list[SegmentInfo]] | None = None

    def streams(self) -> list[str]:
        """Selected streams present in the journal (sorted).

        Streams named in the ``streams`` option must exist: a misspelt name
        is an OptionError naming the streams there are, never an empty read.
        """
        present = self.journal.streams()
        if self.opts.streams is not None:
            missing = sorted(set(self.opts.streams) - set(present))
            if missing:
                raise OptionError(
                    f"option streams names {', '.join(map(repr, missing))}, not in the journal "
                    f"at {self.journal.uri}; its streams are: "
                    f"{', '.join(present) or '(none yet: start the capture first)'}"
                )
        return [s for s in present if self.opts.selects(s)]

    def listing(self) -> dict[TP, list[SegmentInfo]]:
        """Sealed segments of every selected (stream, partition), from one listing each."""
        if self._cache is None:
            out: dict[TP, list[SegmentInfo]] = {}
            for s in self.streams():
                for p, segs in self.journal.listing(s).items():
                    out[(s, p)] = segs
            self._cache = out
        return self._cache

    def check_journal(self, offset: JournalOffset) -> bool:
        """True when `offset` belongs to this journal; raise or warn when it does not."""
        if offset.journal_id == self.journal.journal_id:
            return True
        msg = (
            f"the journal at {self.journal.uri} has id {self.journal.journal_id}, but the "
            f"checkpoint's offsets are for journal {offset.journal_id}: it was re-created, "
            "and what the old one held is lost"
        )
        if self.opts.fail_on_data_loss:
            raise DataLossError(msg + " (set failOnDataLoss=false to restart from its start)")
        log.warning("%s; reading the new journal from its earliest offsets", msg)
        return False

    # ------------------------------------------------------------ offsets
    def available(self) -> JournalOffset:
        """The end of every selected stream partition now ("latest")."""
        return JournalOffset(
            self.journal.journal_id,
            {tp: (g[-1].end if g else 0) for tp, g in self.listing().items()},
        )

    def latest(
        self, start: JournalOffset, limit: Limit, target: JournalOffset | None = None
    ) -> JournalOffset:
        """The end of the next batch from `start` under `limit`, capped by `target`.

        New partitions start at seq 0 (their earliest; retention is checked
        when planning). With a row or byte budget, the budget is shared over
        the partitions in proportion to how far behind each is, as Kafka
        splits maxOffsetsPerTrigger over partitions.
        """
        same = self.check_journal(start)
        listing = self.listing()
        cur: dict[TP, int] = dict(start.positions) if same else {}
        avail: dict[TP, int] = {}
        for tp, segs in listing.items():
            end = segs[-1].end if segs else 0
            have = cur.get(tp, 0)
            if end < have:
                self._moved_back(tp, have, end)
            if target is not None:
                end = min(end, target.get(*tp)) if tp in target else have
            avail[tp] = max(end, have)
        lags = {tp: avail[tp] - cur.get(tp, 0) for tp in avail}
        if limit.kind == "minrows" and sum(lags.values()) < limit.value:
            return JournalOffset(self.journal.journal_id, cur)
        if limit.kind == "rows":
            take = _split_proportionally(lags, limit.value)
        elif limit.kind == "bytes":
            take = self._bytes_budget(listing, cur, lags, limit.value)
        else:
            take = lags
        out = dict(cur)
        for tp, n in take.items():
            out[tp] = cur.get(tp, 0) + n
        return JournalOffset(self.journal.journal_id, out)

    def _moved_back(self, tp: TP, have: int, end: int) -> None:
        """A partition now ends before where the query is: its newest segments vanished."""
        msg = (
            f"stream {tp[0]!r} partition {tp[1]} now ends at seq {end}, but the query has "
            f"read up to {have}: its newest segments were removed (by hand, or the journal "
            "was restored from an older copy)"
        )
        if self.opts.fail_on_data_loss:
            raise DataLossError(msg + " (set failOnDataLoss=false to wait for new seqs)")
        log.warning("%s; waiting for seqs past %d", msg, have)

    def _bytes_budget(
        self, listing: dict[TP, list[SegmentInfo]], cur: dict[TP, int],
        lags: dict[TP, int], budget: int,
    ) -> dict[TP, int]:  # fmt: skip
        """Turn a byte budget into rows per partition, using segment sizes from the listing."""
        sizes = {tp: _bytes_in(listing.get(tp, []), cur.get(tp, 0), cur.get(tp, 0) + lag)
                 for tp, lag in lags.items()}  # fmt: skip
        total = sum(sizes.values())
        if total <= budget:
            return dict(lags)
        rows = {tp: int(lag * budget / total) for tp, lag in lags.items()}
        if not any(rows.values()):
            first = min(tp for tp, lag in lags.items() if lag > 0)
            rows[first] = 1
        return rows

    # ----------------------------------------------------------- partitions
    def plan(self, start: JournalOffset, end: JournalOffset) -> list[SlicePlan]:
        """The tasks reading [start, end): one per stream partition, split for minPartitions.

        Seqs that are gone (retention deleted them before this query read
        them) raise DataLossError when failOnDataLoss is true; otherwise only
        they are skipped, with a warning - every retained seq before and
        after a gap is still read.
        """
        same = self.check_journal(start) if start.journal_id != end.journal_id else True
        listing = self.listing()
        ranges: list[tuple[TP, int, int, list[SegmentInfo]]] = []
        for tp, hi in end.positions.items():
            lo = start.get(*tp) if same else 0
            if hi <= lo:
                continue
            segs = [g for g in listing.get(tp, []) if g.end > lo and g.first < hi]
            for a, b in self._retained(tp, segs, lo, hi):
                ranges.append((tp, a, b, [g for g in segs if g.end > a and g.first < b]))
        return self._split(ranges)

    def _retained(self, tp: TP, segs: list[SegmentInfo], lo: int, hi: int) -> list[tuple[int, int]]:
        """The parts of [lo, hi) that `segs` hold; the rest is reported as lost."""
        for x, y in itertools.pairwise(segs):
            if x.end > y.first:
                raise CorruptSegmentError(
                    f"stream {tp[0]!r} partition {tp[1]}: segments {x.name} and {y.name} "
                    "overlap (two writers on one partition?)"
                )
        runs = [(max(lo, a), min(hi, b)) for a, b in contiguous_runs(segs)]
        gaps: list[tuple[int, int]] = []
        pos = lo
        for a, b in runs:
            if a > pos:
                gaps.append((pos, a))
            pos = b
        if pos < hi:
            gaps.append((pos, hi))
        if not gaps:
            return runs
        lost = sum(b - a for a, b in gaps)
        msg = (
            f"stream {tp[0]!r} partition {tp[1]}: {lost} of the seqs [{lo}, {hi}) asked for "
            f"are no longer in the journal ({', '.join(f'[{a}, {b})' for a, b in gaps)}): "
            "retention deleted them before this query read them"
        )
        if self.opts.fail_on_data_loss:
            raise DataLossError(msg + " (set failOnDataLoss=false to skip them)")
        log.warning("%s; skipping only them", msg)
        return runs

    def _split(self, ranges: list[tuple[TP, int, int, list[SegmentInfo]]]) -> list[SlicePlan]:
        total = sum(hi - lo for _, lo, hi, _ in ranges)
        want = self.opts.min_partitions or 0
        out = []
        for (s, p), lo, hi, segs in ranges:
            n = hi - lo
            parts = 1
            if want > len(ranges) and total:
                parts = max(1, min(n, math.ceil(n * want / total)))
            step = math.ceil(n / parts)
            for a in range(lo, hi, step):
                b = min(hi, a + step)
                mine = tuple(g for g in segs if g.end > a and g.first < b)
                out.append(SlicePlan(
                    self.journal.uri, s, a, b, mine, self.opts.include_frames,
                    self.opts.fail_on_data_loss, p, self.journal.journal_id,
                    self.opts.include_headers,
                ))  # fmt: skip
        return out
