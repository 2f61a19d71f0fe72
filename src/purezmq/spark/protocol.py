"""The sink's wire conventions: batch headers, commit markers, acknowledgements.

Standard library only, so a consumer needs neither Spark nor pyarrow.

A message the sink sends is ``[topic] + [header] + payload frames``: the topic
frame only on PUB, the header frame only with ``batchHeader=true`` (default).
The header is a small JSON object::

    {"v":1,"type":"data","query":"<query id>","batch":12,"part":0,"attempt":0,
     "token":"<random per task attempt>","index":37}

``(token, index)`` names one message of one task attempt; ``token`` changes
on every attempt (also after a query restart), so a consumer can tell a
retry's messages from the first attempt's. With ``commitMarker=true`` the
sink's driver-side commit sends, once every task of a batch succeeded, a
marker ``{"v":1,"type":"commit","query":...,"batch":12,"parts":[{"part":0,
"token":...,"count":n}, ...]}`` naming the one successful attempt of each
partition. Applying exactly those tokens, once per (query, batch), gives
exactly-once output downstream: `consumer.BatchAssembler` does it.

Acknowledgement (``ackMode=router``): a ROUTER receiver acknowledges a message
by sending its header frame back to the sender, unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

VERSION = 1


@dataclass(frozen=True)
class Header:
    """The batch header of one data message."""

    query: str
    batch: int
    part: int
    attempt: int
    token: str
    index: int


@dataclass(frozen=True)
class PartCommit:
    """A partition's successful attempt, as listed in a commit marker."""

    part: int
    token: str
    count: int


@dataclass(frozen=True)
class Marker:
    """A commit (or abort) marker for one micro-batch."""

    kind: str  # "commit" or "abort"
    query: str
    batch: int
    parts: tuple[PartCommit, ...] = ()


class HeaderPrefix:
    """Encodes the headers of one task attempt cheaply: only the index changes."""

    def __init__(self, query: str, batch: int, part: int, attempt: int, token: str) -> None:
        head = json.dumps(
            {"v": VERSION, "type": "data", "query": query, "batch": batch, "part": part,
             "attempt": attempt, "token": token},
            separators=(",", ":"),
        )  # fmt: skip
        self._prefix = head[:-1] + ',"index":'
        self.token = token

    def encode(self, index: int) -> bytes:
        """The header frame of message `index`."""
        return f"{self._prefix}{index}}}".encode()


def encode_marker(marker: Marker) -> bytes:
    """The frame of a commit/abort marker."""
    return json.dumps(
        {
            "v": VERSION,
            "type": marker.kind,
            "query": marker.query,
            "batch": marker.batch,
            "parts": [
                {"part": p.part, "token": p.token, "count": p.count}
                for p in sorted(marker.parts, key=lambda p: p.part)
            ],
        },
        separators=(",", ":"),
    ).encode()


def decode(frame: bytes) -> Header | Marker | None:
    """The header or marker in `frame`, or None if it is neither (e.g. a payload)."""
    if frame[:1] != b"{":
        return None
    try:
        obj = json.loads(frame)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("v") != VERSION:
        return None
    try:
        kind = obj["type"]
        if kind == "data":
            return Header(
                str(obj["query"]), int(obj["batch"]), int(obj["part"]), int(obj["attempt"]),
                str(obj["token"]), int(obj["index"]),
            )  # fmt: skip
        if kind in ("commit", "abort"):
            parts = tuple(
                PartCommit(int(p["part"]), str(p["token"]), int(p["count"])) for p in obj["parts"]
            )
            return Marker(kind, str(obj["query"]), int(obj["batch"]), parts)
    except (KeyError, TypeError, ValueError):
        return None
    return None
