"""Planning micro-batches from directory listings (driver side, no Spark import).

Everything Spark asks the driver - where to start, how far the next batch
goes under a read limit, which tasks read what - is answered here from the
journal's listings: segment file names carry their seq ranges, so no segment
is opened to plan. Each planned `SlicePlan` carries its segment list, so an
executor opens exactly those files and lists nothing.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from purezmq.journal import DataLossError, Journal, SegmentInfo, contiguous_runs

from .offsets import JournalOffset
from .options import SourceOptions

log = logging.getLogger("purezmq.spark")


@dataclass(frozen=True)
class Limit:
    """A read limit without Spark's classes: kind is all, rows, bytes or minrows."""

    kind: str = "all"
    value: int = 0


@dataclass(frozen=True)
class SlicePlan:
    """One Spark task: seqs [start, end) of one stream, and the segments holding them."""

    path: str
    stream: str
    start: int
    end: int
    segments: tuple[SegmentInfo, ...]
    include_frames: bool
    fail_on_data_loss: bool

    @property
    def count(self) -> int:
        """How many rows the task reads."""
        return self.end - self.start


def _split_proportionally(lags: dict[str, int], budget: int) -> dict[str, int]:
    """Share `budget` rows over streams in proportion to their lag (largest remainder).

    Deterministic (ties broken by name), never more than a stream's lag, and
    at least one row in total when anything is waiting, so a tiny budget
    still makes progress.
    """
    total = sum(lags.values())
    if total <= budget:
        return dict(lags)
    shares = {s: lag * budget / total for s, lag in lags.items()}
    take = {s: math.floor(v) for s, v in shares.items()}
    rest = budget - sum(take.values())
    for s in sorted(lags, key=lambda s: (-(shares[s] - take[s]), s))[:rest]:
        take[s] += 1
    if not any(take.values()):
        first = min(s for s, lag in lags.items() if lag > 0)
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
    """Answers the driver's questions for one query, from fresh listings."""

    def __init__(self, journal: Journal, options: SourceOptions) -> None:
        self.journal = journal
        self.opts = options

    def streams(self) -> list[str]:
        """Selected streams present in the journal (sorted)."""
        return [s for s in self.journal.streams() if self.opts.selects(s)]

    def _listing(self) -> dict[str, list[SegmentInfo]]:
        return {s: self.journal.segments(s) for s in self.streams()}

    def _check_journal(self, offset: JournalOffset) -> bool:
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
        """The end of every selected stream now ("latest")."""
        listing = self._listing()
        return JournalOffset(
            self.journal.journal_id, {s: (g[-1].end if g else 0) for s, g in listing.items()}
        )

    def initial(self, spec: str | dict[str, int]) -> JournalOffset:
        """The offset a new query starts from: earliest, latest or per-stream seqs."""
        listing = self._listing()
        out: dict[str, int] = {}
        for s, segs in listing.items():
            first, end = (segs[0].first, segs[-1].end) if segs else (0, 0)
            want = spec if isinstance(spec, str) else spec.get(s, -2)
            if want in ("earliest", -2):
                out[s] = first
            elif want in ("latest", -1):
                out[s] = end
            else:
                assert isinstance(want, int)
                out[s] = want
        if isinstance(spec, dict):
            for s, seq in spec.items():
                if s not in out and seq >= 0 and self.opts.selects(s):
                    out[s] = seq
        return JournalOffset(self.journal.journal_id, out)

    def latest(
        self, start: JournalOffset, limit: Limit, target: JournalOffset | None = None
    ) -> JournalOffset:
        """The end of the next batch from `start` under `limit`, capped by `target`.

        New streams start at seq 0 (their earliest; retention is checked when
        planning partitions). With a row or byte budget, the budget is shared
        over the streams in proportion to how far behind each is, as Kafka
        splits maxOffsetsPerTrigger over partitions.
        """
        same = self._check_journal(start)
        listing = self._listing()
        cur: dict[str, int] = {s: v for s, v in start.streams.items() if same}
        avail: dict[str, int] = {}
        for s, segs in listing.items():
            end = segs[-1].end if segs else 0
            if target is not None:
                end = min(end, target.get(s, 0)) if s in target.streams else cur.get(s, 0)
            avail[s] = max(end, cur.get(s, 0))
        lags = {s: avail[s] - cur.get(s, 0) for s in avail}
        if limit.kind == "minrows" and sum(lags.values()) < limit.value:
            return JournalOffset(self.journal.journal_id, cur)
        if limit.kind == "rows":
            take = _split_proportionally(lags, limit.value)
        elif limit.kind == "bytes":
            take = self._bytes_budget(listing, cur, lags, limit.value)
        else:
            take = lags
        out = dict(cur)
        for s, n in take.items():
            out[s] = cur.get(s, 0) + n
        return JournalOffset(self.journal.journal_id, out)

    def _bytes_budget(
        self, listing: dict[str, list[SegmentInfo]], cur: dict[str, int],
        lags: dict[str, int], budget: int,
    ) -> dict[str, int]:  # fmt: skip
        """Turn a byte budget into rows per stream, using segment sizes from the listing."""
        sizes = {s: _bytes_in(listing.get(s, []), cur.get(s, 0), cur.get(s, 0) + lag)
                 for s, lag in lags.items()}  # fmt: skip
        total = sum(sizes.values())
        if total <= budget:
            return dict(lags)
        rows = {s: int(lag * budget / total) for s, lag in lags.items()}
        if not any(rows.values()):
            first = min(s for s, lag in lags.items() if lag > 0)
            rows[first] = 1
        return rows

    # ----------------------------------------------------------- partitions
    def plan(self, start: JournalOffset, end: JournalOffset) -> list[SlicePlan]:
        """The tasks reading [start, end): one per stream, split for minPartitions.

        A range part of which retention already deleted raises DataLossError
        when failOnDataLoss is true; otherwise the slice starts at the first
        retained seq (the lost rows are skipped, as Kafka does).
        """
        same = self._check_journal(start) if start.journal_id != end.journal_id else True
        ranges: list[tuple[str, int, int, list[SegmentInfo]]] = []
        for s, hi in end.streams.items():
            lo = start.get(s, 0) if same else 0
            if hi <= lo:
                continue
            segs = [g for g in self.journal.segments(s) if g.end > lo and g.first < hi]
            a, b = self._retained(s, segs, lo, hi)
            if a < b:
                ranges.append((s, a, b, segs))
        return self._split(ranges)

    def _retained(self, stream: str, segs: list[SegmentInfo], lo: int, hi: int) -> tuple[int, int]:
        runs = contiguous_runs(segs)
        if len(runs) == 1 and runs[0][0] <= lo and runs[0][1] >= hi:
            return lo, hi
        have = f"{runs[0][0]}" if runs else "nothing in that range"
        msg = (
            f"stream {stream!r}: seqs [{lo}, {hi}) were asked for but retention kept "
            f"only from {have}; some messages were deleted before this query read them"
        )
        if self.opts.fail_on_data_loss:
            raise DataLossError(msg + " (set failOnDataLoss=false to skip them)")
        log.warning("%s; skipping them", msg)
        if not runs:
            return hi, hi
        # Read the last contiguous run that overlaps the range: what is left.
        a, b = runs[-1]
        return max(lo, a), min(hi, b)

    def _split(self, ranges: list[tuple[str, int, int, list[SegmentInfo]]]) -> list[SlicePlan]:
        total = sum(hi - lo for _, lo, hi, _ in ranges)
        want = self.opts.min_partitions or 0
        out = []
        for s, lo, hi, segs in ranges:
            n = hi - lo
            parts = 1
            if want > len(ranges) and total:
                parts = max(1, min(n, math.ceil(n * want / total)))
            step = math.ceil(n / parts)
            for a in range(lo, hi, step):
                b = min(hi, a + step)
                mine = tuple(g for g in segs if g.end > a and g.first < b)
                plan = SlicePlan(
                    self.journal.uri, s, a, b, mine,
                    self.opts.include_frames, self.opts.fail_on_data_loss,
                )  # fmt: skip
                out.append(plan)
        return out
