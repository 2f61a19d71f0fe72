"""ZMTP 3.x framing: flags byte, short/long size, and the frame encoder.

Frame on the wire (RFC 23/37)::

    flags(1) size(1, or 8 in network order when LONG) body

flags: bit 0 MORE, bit 1 LONG, bit 2 COMMAND, bits 3-7 reserved (must be 0).

Encoding is on the critical path. `FrameEncoder.add_messages` turns a batch
of small messages into a handful of list appends (precomputed 2-byte headers
for sizes 0-255) and one ``b"".join`` when the caller takes the output.
Frames of `BIG_FRAME` bytes or more are never copied: they are emitted by
reference between joined chunks, ready for ``socket.sendmsg`` scatter/gather.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias

#: Any bytes-like frame the encoder accepts (any C-contiguous buffer works at
#: run time; these are the types we promise).
Buffer: TypeAlias = bytes | bytearray | memoryview

FLAG_MORE: Final = 0x01
FLAG_LONG: Final = 0x02
FLAG_COMMAND: Final = 0x04
FLAGS_RESERVED: Final = 0xF8

#: Frames at least this big are passed by reference (never joined) on output
#: and, on input, received straight into their own storage. 8 KiB: below it
#: a memcpy costs less than the extra chunk/syscall bookkeeping.
BIG_FRAME: Final = 8192

#: Longest body a short (1-byte size) frame can carry.
SHORT_MAX: Final = 255

_U64: Final = struct.Struct(">Q")
pack_u64: Final = _U64.pack
unpack_u64_from: Final = _U64.unpack_from


def long_size(data: bytes, i: int) -> int:
    """The size in a long frame header, whose 8 bytes start at data[i].

    Compiled, indexing `bytes` is a native load: for a size below 4 GiB,
    eight loads cost less than `struct.unpack_from` with the tuple and the
    int object it makes. The decoder reads each long header twice (the I/O
    thread's walk, then the parse): with 1 KiB messages that was the
    receiver's largest cost after the copies (issue 14)."""
    if data[i] == 0 and data[i + 1] == 0 and data[i + 2] == 0 and data[i + 3] == 0:
        return (data[i + 4] << 24) | (data[i + 5] << 16) | (data[i + 6] << 8) | data[i + 7]
    size: int = unpack_u64_from(data, i)[0]
    return size


# Precomputed headers for short frames: index = body size.
SHORT_LAST: Final = tuple(bytes((0x00, n)) for n in range(256))
SHORT_MORE: Final = tuple(bytes((0x01, n)) for n in range(256))
SHORT_COMMAND: Final = tuple(bytes((0x04, n)) for n in range(256))


#: Headers of final long frames below BIG_FRAME, by body size, filled on
#: first use (b"": not yet). A list, not a dict: compiled, indexing it with
#: the size is a native load, where a dict look-up first boxes the size
#: into a new int object (sizes above 256 are not cached ints): 64 KiB of
#: pointers, once per process.
_LONG_LAST: Final[list[bytes]] = [b""] * BIG_FRAME


def long_last_header(size: int) -> bytes:
    """Header of a final long data frame (cached below BIG_FRAME)."""
    if size >= BIG_FRAME:
        return b"\x02" + pack_u64(size)
    header = _LONG_LAST[size]
    if not header:
        header = _LONG_LAST[size] = b"\x02" + pack_u64(size)
    return header


def frame_header(size: int, flags: int = 0) -> bytes:
    """Header for a frame of `size` bytes; sets LONG when size > 255."""
    if size <= SHORT_MAX:
        return bytes((flags, size))
    return bytes((flags | FLAG_LONG,)) + pack_u64(size)


def command_frame(body: bytes) -> bytes:
    """A whole command frame (flags 0x04/0x06) around `body`."""
    return frame_header(len(body), FLAG_COMMAND) + body


def byte_length(frame: object) -> int:
    """Length in bytes of any buffer (``len`` counts items for memoryviews)."""
    if isinstance(frame, (bytes, bytearray)):  # a tuple, not `bytes | bytearray`:
        return len(frame)  # compiled, the union would be built on every call
    return memoryview(frame).nbytes  # type: ignore[arg-type]


def as_byte_chunk(frame: Buffer) -> bytes | bytearray | memoryview:
    """`frame` as something whose ``len()`` and slices count bytes.

    The driver slices chunks to resume partial writes, so a memoryview with a
    wider item type (or a foreign buffer object) is cast to unsigned bytes.
    """
    if type(frame) is bytes or type(frame) is bytearray:
        return frame
    view = memoryview(frame)
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view


class FrameEncoder:
    """Accumulates encoded output as ``[joined small data, big frame, ...]``.

    Small pieces (headers and small bodies) gather in `_pieces` and are
    joined into one bytes object when the output is taken or a big frame
    must be placed after them. Frames are referenced, not copied, until then:
    callers must not mutate a frame passed to the encoder before the output
    holding it has been written.
    """

    __slots__ = ("_chunks", "_pieces")

    def __init__(self) -> None:
        self._pieces: list[Buffer] = []
        self._chunks: list[bytes | bytearray | memoryview] = []

    def __bool__(self) -> bool:
        return bool(self._pieces) or bool(self._chunks)

    @property
    def queued_bytes(self) -> int:
        """Bytes encoded and not taken yet (walks the queue: not for hot paths)."""
        return sum(byte_length(p) for p in self._pieces) + sum(byte_length(c) for c in self._chunks)

    def add_raw(self, data: bytes) -> None:
        """Bytes that go out as they are (the greeting)."""
        self._pieces.append(data)

    def add_command(self, body: bytes) -> None:
        """A command frame; commands are single frames."""
        size = len(body)
        if size <= SHORT_MAX:
            self._pieces.append(SHORT_COMMAND[size])
        else:
            self._pieces.append(b"\x06" + pack_u64(size))
        self._pieces.append(body)

    def add_frame(self, frame: Buffer, flags: int) -> None:
        """One frame with explicit flags (MORE and/or COMMAND; LONG is computed)."""
        size = byte_length(frame)
        pieces = self._pieces
        if size <= SHORT_MAX:
            if flags == FLAG_MORE:  # the frames of a multipart message but its last
                pieces.append(SHORT_MORE[size])
            elif flags == 0:
                pieces.append(SHORT_LAST[size])
            else:
                pieces.append(bytes((flags, size)))
        elif flags == 0:  # the last frame of a multipart message: the cached header
            pieces.append(long_last_header(size))
        else:
            pieces.append(bytes((flags | FLAG_LONG,)) + pack_u64(size))
        if size < BIG_FRAME:
            pieces.append(frame)
        else:
            self._add_big(frame)

    def _add_big(self, frame: Buffer) -> None:
        """Close the current joined chunk and reference `frame` after it."""
        self._chunks.append(b"".join(self._pieces))
        self._pieces.clear()
        self._chunks.append(as_byte_chunk(frame))

    def add_messages(self, msgs: Iterable[Sequence[Buffer]]) -> None:
        """Encode whole messages: MORE on every frame but the last.

        The loop is deliberately inlined for speed: a small single-frame
        message costs two appends. Size is measured with ``len`` for bytes
        and bytearray and ``nbytes`` for anything else.
        """
        pieces = self._pieces
        short_last = SHORT_LAST
        long_last = _LONG_LAST
        for msg in msgs:
            last = len(msg) - 1
            if last == 0:
                frame = msg[0]
                kind = type(frame)
                size = len(frame) if kind is bytes or kind is bytearray else byte_length(frame)
                if size <= SHORT_MAX:
                    pieces.append(short_last[size])
                    pieces.append(frame)
                    continue
                if size < BIG_FRAME:
                    header = long_last[size]
                    pieces.append(header if header else long_last_header(size))
                    pieces.append(frame)
                else:
                    pieces.append(b"\x02" + pack_u64(size))
                    self._add_big(frame)
                continue
            for index, frame in enumerate(msg):
                self.add_frame(frame, FLAG_MORE if index < last else 0)

    def add_encoded(self, chunks: list[bytes | bytearray | memoryview]) -> None:
        """Output encoded elsewhere (a fan-out chunk encoded once for many
        connections), after what is queued. `chunks` is not modified."""
        if self._pieces:
            self._chunks.append(b"".join(self._pieces))
            self._pieces.clear()
        self._chunks.extend(chunks)

    def take(self) -> list[bytes | bytearray | memoryview]:
        """Everything encoded so far, in order, and forget it."""
        chunks = self._chunks
        if self._pieces:
            chunks.append(b"".join(self._pieces))
            self._pieces.clear()
        self._chunks = []
        return chunks
