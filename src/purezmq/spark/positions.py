"""Where a read starts and ends: startingOffsets / endingOffsets against the journal.

Kafka's rules, with messages that say what happened:

* A JSON offset names streams (and partitions) that must exist: a misspelt
  key is an OptionError naming what the journal has, never an empty read.
  Streams left out start at their earliest seq (and end at their latest).
* ``{"orders": 1200}`` names the only partition of a one-partition stream;
  a stream with several partitions needs ``{"orders": {"0": 1200, "1": 0}}``
  (-2 and -1 may stand for all of its partitions).
* A position beyond a partition's end (seqs never written) is, as in Kafka,
  an error under ``failOnDataLoss=true`` - an OptionError that says so,
  not a claim that messages were deleted - and is clamped to the end, with a
  warning, under ``failOnDataLoss=false``. A start before the first retained
  seq is data loss, reported when the range is planned.
* A batch read whose start is after its end is an OptionError (Kafka: "the
  beginning offset is after the ending offset").
"""

from __future__ import annotations

import logging

from purezmq.journal import SegmentInfo

from .offsets import TP, JournalOffset
from .options import OffsetSpec, OptionError
from .planning import Planner

log = logging.getLogger("purezmq.spark")


def _resolve(planner: Planner, spec: OffsetSpec, name: str) -> dict[TP, int]:
    """Position per (stream, partition) as `spec` asks; -2/-1 left as they are."""
    listing = planner.listing()
    parts: dict[str, list[int]] = {}
    for s, p in listing:
        parts.setdefault(s, []).append(p)
    out: dict[TP, int] = {}
    if isinstance(spec, str):
        return dict.fromkeys(listing, -2 if spec == "earliest" else -1)
    unknown = sorted(set(spec) - set(parts))
    if unknown:
        raise OptionError(
            f"option {name} names {', '.join(map(repr, unknown))}, not a stream this query "
            f"reads in {planner.journal.uri}; streams: {', '.join(sorted(parts)) or '(none)'}"
        )
    for s, ps in parts.items():
        want = spec.get(s, -2 if name.startswith("starting") else -1)
        if isinstance(want, dict):
            bad = sorted(set(want) - set(ps))
            if bad:
                raise OptionError(
                    f"option {name} names partition(s) {bad} of stream {s!r}, which has "
                    f"partitions {sorted(ps)}"
                )
            for p in ps:
                out[(s, p)] = want.get(p, -2 if name.startswith("starting") else -1)
        elif want >= 0 and len(ps) > 1:
            raise OptionError(
                f"option {name}: stream {s!r} has {len(ps)} partitions; give a seq per "
                f'partition, e.g. {{"{s}": {{"0": {want}, "1": ...}}}} (-2/-1 may stand for all)'
            )
        else:
            for p in ps:
                out[(s, p)] = want
    return out


def _bounds(segs: list[SegmentInfo]) -> tuple[int, int]:
    return (segs[0].first, segs[-1].end) if segs else (0, 0)


def _beyond(planner: Planner, name: str, tp: TP, seq: int, end: int) -> int:
    msg = (
        f"option {name} asks for seq {seq} of stream {tp[0]!r} partition {tp[1]}, beyond its "
        f"end: it holds seqs up to {end - 1} (next is {end}); seqs past the end were never "
        "written, nothing was deleted"
    )
    if planner.opts.fail_on_data_loss:
        raise OptionError(msg + "; use -1 for the end (or failOnDataLoss=false to clamp)")
    log.warning("%s; starting from %d (failOnDataLoss=false)", msg, end)
    return end


TimeSpec = dict[str, int | dict[int, int]] | None


def _by_time(
    planner: Planner, name: str, every: int | None, spec: TimeSpec, latest_if_none: bool
) -> dict[TP, int]:
    """Kafka's timestamp offsets: per partition, the first seq at or after a time (ms).

    `every` (startingTimestamp / endingTimestamp) applies to all partitions;
    `spec` names some. A partition with no such seq gets its end when
    `latest_if_none` (Kafka's "latest" strategy, and always for an end),
    else the read fails, naming it (Kafka's default "error" strategy).
    """
    listing = planner.listing()
    if every is not None:
        wanted = dict.fromkeys(listing, every)
    else:
        assert spec is not None
        wanted = {tp: ms for tp, ms in _resolve(planner, spec, name).items() if ms >= 0}
    out: dict[TP, int] = {}
    for (s, p), ms in wanted.items():
        seq = planner.journal.seq_at_time(s, ms * 1000, p)
        if seq is None:
            _, end = _bounds(listing[(s, p)])
            if not latest_if_none:
                raise OptionError(
                    f"option {name}: stream {s!r} partition {p} holds no message at or after "
                    f"{ms} ms (set startingOffsetsByTimestampStrategy=latest to start at its end)"
                )
            seq = end
        out[(s, p)] = seq
    return out


def starting(planner: Planner, spec: OffsetSpec) -> JournalOffset:
    """The offset a new query (or a batch read) starts from.

    As in Kafka, startingTimestamp wins over startingOffsetsByTimestamp,
    which wins over startingOffsets.
    """
    o = planner.opts
    if o.starting_timestamp is not None or o.starting_by_timestamp is not None:
        name = ("startingTimestamp" if o.starting_timestamp is not None
                else "startingOffsetsByTimestamp")  # fmt: skip
        by_time = _by_time(planner, name, o.starting_timestamp, o.starting_by_timestamp,
                           o.timestamp_strategy == "latest")  # fmt: skip
        if o.starting_timestamp is None:  # partitions not named: earliest
            by_time = {tp: by_time.get(tp, _bounds(g)[0]) for tp, g in planner.listing().items()}
        return JournalOffset(planner.journal.journal_id, by_time)
    listing = planner.listing()
    out: dict[TP, int] = {}
    for tp, want in _resolve(planner, spec, "startingOffsets").items():
        first, end = _bounds(listing[tp])
        if want == -2:
            out[tp] = first
        elif want == -1:
            out[tp] = end
        else:
            out[tp] = want if want <= end else _beyond(planner, "startingOffsets", tp, want, end)
    return JournalOffset(planner.journal.journal_id, out)


def ending(planner: Planner, spec: OffsetSpec, start: JournalOffset) -> JournalOffset:
    """Where a batch read ends (endingOffsets, or Kafka's timestamp forms), checked."""
    listing = planner.listing()
    o = planner.opts
    if o.ending_timestamp is not None or o.ending_by_timestamp is not None:
        name = "endingTimestamp" if o.ending_timestamp is not None else "endingOffsetsByTimestamp"
        by_time = _by_time(planner, name, o.ending_timestamp, o.ending_by_timestamp, True)
        spec = {s: {p: by_time.get((s, p), -1) for (t, p) in listing if t == s}
                for s in {s for s, _ in listing}}  # fmt: skip
    out: dict[TP, int] = {}
    for tp, want in _resolve(planner, spec, "endingOffsets").items():
        _, end = _bounds(listing[tp])
        stop = end if want == -1 else want
        if stop > end:
            stop = _beyond(planner, "endingOffsets", tp, stop, end)
        if stop < start.get(*tp):
            raise OptionError(
                f"stream {tp[0]!r} partition {tp[1]}: startingOffsets ({start.get(*tp)}) is "
                f"after endingOffsets ({stop})"
            )
        out[tp] = stop
    return JournalOffset(planner.journal.journal_id, out)


def check_names(planner: Planner) -> None:
    """At ``load()``: the streams and offset keys the options name exist (OptionError if not)."""
    planner.streams()
    _resolve(planner, planner.opts.starting, "startingOffsets")
    _resolve(planner, planner.opts.ending, "endingOffsets")
