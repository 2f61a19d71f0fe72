"""JSON to and from UTF-8 bytes (pyzmq's ``zmq.utils.jsonapi``), on the standard library."""

from __future__ import annotations

import json
from typing import Any

#: The JSON module in use (kept for programs that check it).
jsonmod = json


def dumps(o: object, **kwargs: Any) -> bytes:
    """Serialize `o` to JSON as UTF-8 bytes; keyword arguments go to `json.dumps`."""
    return json.dumps(o, **kwargs).encode("utf-8")


def loads(s: bytes | str, **kwargs: Any) -> Any:
    """Load JSON from UTF-8 bytes (or str); keyword arguments go to `json.loads`."""
    if isinstance(s, (bytes, bytearray, memoryview)):
        s = bytes(s).decode("utf-8")
    return json.loads(s, **kwargs)


__all__ = ["dumps", "loads"]
