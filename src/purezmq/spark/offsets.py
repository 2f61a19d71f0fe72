"""The source's offsets: canonical JSON, as Spark writes them to its WAL.

An offset names the journal (its random id, so a journal re-created under
the same path is noticed) and, per stream, the next seq to read - as Kafka's
offsets do::

    {"journalId": "4f1c...", "streams": {"orders": 1200, "ticks": 0}}

Keys are always emitted sorted: Spark compares some offsets as JSON strings,
so the same position must always serialise the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class OffsetError(ValueError):
    """An offset read back from a checkpoint is not one this source wrote."""


@dataclass(frozen=True)
class JournalOffset:
    """Next seq to read per stream, in the journal `journal_id`."""

    journal_id: str
    streams: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "streams", dict(sorted(self.streams.items())))

    def get(self, stream: str, default: int = 0) -> int:
        """The next seq of `stream`; streams not named start at seq 0."""
        return self.streams.get(stream, default)

    def to_json(self) -> dict[str, Any]:
        """The dict Spark stores (keys sorted at every level)."""
        return {"journalId": self.journal_id, "streams": dict(sorted(self.streams.items()))}

    def dumps(self) -> str:
        """Canonical JSON text."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, obj: Any) -> JournalOffset:
        """Parse what `to_json` made (also accepts its JSON text)."""
        if isinstance(obj, str):
            try:
                obj = json.loads(obj)
            except ValueError as exc:
                raise OffsetError(f"offset is not JSON: {obj!r}") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("journalId"), str):
            raise OffsetError(f"not a purezmq journal offset: {obj!r}")
        streams = obj.get("streams", {})
        if not isinstance(streams, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and v >= 0 for k, v in streams.items()
        ):
            raise OffsetError(f"malformed streams in offset: {obj!r}")
        return cls(obj["journalId"], streams)
