"""How messages look on stdin and stdout: line, raw and JSON framing.

Each framing reads messages (lists of frames) from a byte stream and writes
them back in the same form, so that ``purezmq recv ... | purezmq send ...``
carries multipart messages through a pipe unchanged:

- ``line``: one message per line; its frames are separated by the delimiter
  (a TAB by default, as ``cut`` and ``paste`` use). Text in, text out.
- ``raw``: the whole input is one single-frame message (a file, an image);
  on output, each message's frames are written as they are, with nothing
  between them - for one binary message, as with ``--count 1 > file``.
- ``json``: one JSON value per line. An array is a message with one frame per
  element (a string is its UTF-8, ``{"base64": "..."}`` is bytes, anything
  else is its JSON text); any other value is a one-frame message. Output is
  always an array, with frames that are not UTF-8 as ``{"base64": ...}``:
  the framing for binary multipart messages (ROUTER identities).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

FORMATS = ("line", "raw", "json")


class FramingError(ValueError):
    """Input that is not a message in the chosen framing (says where)."""


class Framing:
    """Reads and writes messages in one of FORMATS."""

    def __init__(self, fmt: str, delimiter: bytes = b"\t") -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}")
        self.format = fmt
        self.delimiter = delimiter

    # ------------------------------------------------------------- reading
    def parse(self, data: bytes, where: str = "") -> list[bytes]:
        """One message from one unit of input (a line, or the whole input)."""
        if self.format == "raw":
            return [data]
        if self.format == "line":
            return data.split(self.delimiter) if self.delimiter else [data]
        try:
            value = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise FramingError(f"{where}not JSON: {exc}") from None
        if isinstance(value, list):
            if not value:
                raise FramingError(f"{where}an empty array is no message (a message has frames)")
            return [_frame_from_json(v, where) for v in value]
        return [_frame_from_json(value, where)]

    def read(self, stream: IO[bytes]) -> Iterator[list[bytes]]:
        """Every message of `stream`, read as it arrives (a line at a time)."""
        if self.format == "raw":
            yield [stream.read()]
            return
        for number, line in enumerate(_lines(stream), 1):
            if self.format == "json" and not line.strip():
                continue  # blank lines between JSON values are no messages
            yield self.parse(line, f"line {number}: ")

    # ------------------------------------------------------------- writing
    def render(self, frames: Iterable[bytes]) -> bytes:
        """A message as the bytes this framing writes for it."""
        if self.format == "raw":
            return b"".join(frames)
        if self.format == "line":
            return self.delimiter.join(frames) + b"\n"
        return json.dumps([_frame_to_json(bytes(f)) for f in frames]).encode() + b"\n"

    def write(self, stream: IO[bytes], frames: Iterable[bytes]) -> None:
        stream.write(self.render(frames))
        stream.flush()


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    """Lines without their newline, one at a time (never the whole input)."""
    while True:
        line = stream.readline()
        if not line:
            return
        yield line[:-1] if line.endswith(b"\n") else line


def _frame_from_json(value: Any, where: str) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, dict) and set(value) == {"base64"} and isinstance(value["base64"], str):
        try:
            return base64.b64decode(value["base64"], validate=True)
        except binascii.Error as exc:
            raise FramingError(f"{where}bad base64: {exc}") from None
    return json.dumps(value, separators=(",", ":")).encode()


def _frame_to_json(frame: bytes) -> Any:
    try:
        return frame.decode()
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(frame).decode()}


def delimiter(text: str) -> bytes:
    r"""The --delimiter argument: backslash escapes as in C (\t, \0, \x1f)."""
    return (
        text.encode("latin-1", "backslashreplace")
        .decode("unicode_escape")
        .encode("utf-8", "surrogateescape")
    )
