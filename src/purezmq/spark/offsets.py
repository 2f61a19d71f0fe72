"""The source's offsets: canonical JSON, as Spark writes them to its WAL.

An offset names the journal (its random id, so a journal re-created under
the same path is noticed) and, per stream and partition, the next seq to
read - the shape of Kafka's ``{"topic": {"0": 23, "1": 5}}``::

    {"journalId": "4f1c...", "streams": {"orders": {"0": 1200, "1": 980}, "ticks": {"0": 0}}}

Checkpoints written before partitions existed hold ``{"orders": 1200}``;
they are read as partition 0, so an old query resumes where it was.
Keys are always emitted sorted: Spark compares some offsets as JSON strings,
so the same position must always serialise the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

TP = tuple[str, int]  # (stream, partition), Kafka's TopicPartition


class OffsetError(ValueError):
    """An offset read back from a checkpoint is not one this source wrote."""


def _nat(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


@dataclass(frozen=True)
class JournalOffset:
    """Next seq to read per (stream, partition), in the journal `journal_id`."""

    journal_id: str
    positions: Mapping[TP, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "positions", dict(sorted(self.positions.items())))

    def get(self, stream: str, partition: int = 0, default: int = 0) -> int:
        """The next seq of a partition; partitions not named start at seq 0."""
        return self.positions.get((stream, partition), default)

    def __contains__(self, tp: object) -> bool:
        return tp in self.positions

    def __iter__(self) -> Iterator[TP]:
        return iter(self.positions)

    def nested(self) -> dict[str, dict[str, int]]:
        """``{stream: {"partition": seq}}``, keys sorted as JSON sorts them."""
        out: dict[str, dict[str, int]] = {}
        for (s, p), seq in sorted(self.positions.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            out.setdefault(s, {})[str(p)] = seq
        return out

    def to_json(self) -> dict[str, Any]:
        """The dict Spark stores (keys sorted at every level)."""
        return {"journalId": self.journal_id, "streams": self.nested()}

    def dumps(self) -> str:
        """Canonical JSON text."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, obj: Any) -> JournalOffset:
        """Parse what `to_json` made (also its JSON text, and pre-partition offsets)."""
        if isinstance(obj, str):
            try:
                obj = json.loads(obj)
            except ValueError as exc:
                raise OffsetError(f"offset is not JSON: {obj!r}") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("journalId"), str):
            raise OffsetError(f"not a purezmq journal offset: {obj!r}")
        streams = obj.get("streams", {})
        if not isinstance(streams, dict):
            raise OffsetError(f"malformed streams in offset: {obj!r}")
        positions: dict[TP, int] = {}
        for s, v in streams.items():
            if _nat(v):  # format of checkpoints written before partitions
                positions[(s, 0)] = v
            elif isinstance(v, dict) and all(
                isinstance(p, str) and p.isdigit() and _nat(seq) for p, seq in v.items()
            ):
                positions.update({(s, int(p)): seq for p, seq in v.items()})
            else:
                raise OffsetError(f"malformed streams in offset: {obj!r}")
        return cls(obj["journalId"], positions)
