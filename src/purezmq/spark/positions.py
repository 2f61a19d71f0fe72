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


def starting(planner: Planner, spec: OffsetSpec) -> JournalOffset:
    """The offset a new query (or a batch read) starts from."""
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
    """Where a batch read ends (endingOffsets), checked against `start`."""
    listing = planner.listing()
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
