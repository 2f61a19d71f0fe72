"""ZMTP/1.0 framing (RFC 13, libzmq's ``v1_decoder``/``v1_encoder``): the codec
of peers that speak the protocol of ZeroMQ 2.x.

A ZMTP/1.0 frame::

    length(1, or 0xFF then 8 in network order) flags(1) body(length - 1)

The length counts the flags octet, so an empty frame has length 1; a length
of 0 is malformed (libzmq: EPROTO). Lengths up to 254 take one octet; from
255 on, the octet 0xFF and a 64-bit length. Only bit 0 of the flags (MORE)
means anything; the other bits are ignored, as libzmq ignores them. There
are no commands.

Both classes derive from the ZMTP 3.x ones and keep everything that is not
framing: the receive ring, lazy batched parsing, big frames received straight
into their own storage (`BigFrame`), the encoder's joined chunks with big
frames by reference. The 3.x classes stay what the 3.x fast path calls; a
connection holds one or the other, chosen once after the greeting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .bigframe import BigFrame
from .decoder import ALLOC_MAX, MAX_FRAME_SIZE, FrameDecoder, unallocatable_error
from .errors import ProtocolError
from .frames import (
    BIG_FRAME,
    FLAG_MORE,
    Buffer,
    FrameEncoder,
    byte_length,
    pack_u64,
    unpack_u64_from,
)

#: A length octet of 0xFF announces the 64-bit length.
ESCAPE: Final = 0xFF
#: Largest length (flags included) a one-octet length can carry.
SHORT_LENGTH_MAX: Final = 254
#: `V1Decoder._header` results in place of a body offset.
INCOMPLETE: Final = -1
ZERO_LENGTH: Final = -2
OVERSIZED: Final = -3


def _zero_length() -> ProtocolError:
    return ProtocolError("ZMTP/1.0 frame of length 0 (the length counts the flags octet)")


def _too_big(size: int, limit: int) -> ProtocolError:
    return ProtocolError(f"frame of {size} bytes exceeds max_msg_size {limit}")


def _bad_size(size: int) -> ProtocolError:
    return ProtocolError(f"frame size {size} is beyond ZMTP's 2^63-1 limit")


class V1Decoder(FrameDecoder):
    """`FrameDecoder` with ZMTP/1.0 frame headers; see the module docstring.

    A connection switches to it once the greeting showed a 1.0 peer, handing
    over the bytes that were received after the greeting (`take_over`).
    """

    __slots__ = ("_inject",)

    def __init__(self, *, buffer_size: int = 256 * 1024, max_msg_size: int = -1) -> None:
        super().__init__(buffer_size=buffer_size, max_msg_size=max_msg_size)
        self.framing = True
        #: Messages handed out before any received one (`inject`).
        self._inject: list[list[bytes]] = []

    @classmethod
    def take_over(cls, before: FrameDecoder) -> V1Decoder:
        """A decoder with `before`'s limits and its unparsed bytes (called
        right after the greeting: no frame was parsed from them yet)."""
        decoder = cls(buffer_size=before._target, max_msg_size=before._max_size)
        rest = before.take_raw(before.buffered)
        if rest:
            view = decoder.get_buffer(len(rest))
            view[: len(rest)] = rest
            decoder.buffer_updated(len(rest))
        return decoder

    def inject(self, msg: list[bytes]) -> None:
        """Deliver `msg` before anything received from now on (libzmq's
        phantom subscription for a 1.0 subscriber, which never sends one)."""
        self._inject.append(msg)

    @property
    def has_pending(self) -> bool:
        return bool(self._inject) or self._pos < self._end or bool(self._markers)

    def urgent(self) -> bool:
        """Every unparsed byte: this header walk does not judge frames, so a
        malformed one is found by parsing (a 1.0 peer's backlog is parsed
        as soon as the read-ahead timer runs, as before intake kept one)."""
        return self.has_pending

    def _header(self, p: int, end: int) -> tuple[int, int, int]:
        """(flags, body size, body offset) of the frame header at `p` (which
        must be below `end`). The offset is `INCOMPLETE` while the header is
        not all there, `ZERO_LENGTH` or `OVERSIZED` when it is malformed:
        codes rather than exceptions, because the big-frame scan walks
        headers it must not judge (compiled, an exception is costly too)."""
        buf = self._buf
        length = buf[p]
        if length == ESCAPE:
            if end - p < 10:
                return 0, 0, INCOMPLETE
            length = unpack_u64_from(buf, p + 1)[0]
            if length == 0:
                return 0, 0, ZERO_LENGTH
            if length - 1 > MAX_FRAME_SIZE:
                return 0, length - 1, OVERSIZED
            return buf[p + 9], length - 1, p + 10
        if length == 0:
            return 0, 0, ZERO_LENGTH
        if end - p < 2:
            return 0, 0, INCOMPLETE
        return buf[p + 1], length - 1, p + 2

    def _scan_for_big(self) -> BigFrame | None:
        """Walk complete frames; start big-frame mode if one is arriving."""
        end, markers = self._end, self._markers
        p = max(self._scan, self._pos)
        while end - p >= 2:
            _flags, size, h = self._header(p, end)
            if h < 0:
                break  # incomplete, or malformed: the parser reports it
            if size >= BIG_FRAME:
                if h in markers:
                    p = h
                    continue
                if h + size > end:
                    self._scan = p
                    if 0 <= self._max_size < size or size > ALLOC_MAX:
                        return None  # the parser will reject it
                    return self._start_big(h, size)
            if h + size > end:
                break
            p = h + size
        self._scan = p
        return None

    def _frame_at(self, p: int) -> tuple[int, bytes, int] | None:
        """(flags, body, next offset) of the complete frame at `p`, or None."""
        end = self._end
        flags, size, h = self._header(p, end)
        if h < 0:
            if h == ZERO_LENGTH:
                raise _zero_length()
            if h == OVERSIZED:
                raise _bad_size(size)
            return None
        if 0 <= self._max_size < size:
            raise _too_big(size, self._max_size)
        if size > ALLOC_MAX:
            raise unallocatable_error(size)
        big = self._markers.get(h) if size >= BIG_FRAME else None
        if big is not None:
            if not big.complete:
                return None
            del self._markers[h]
            return flags, big.take(), h
        if h + size > end:
            return None
        return flags, bytes(self._mv[h : h + size]), h + size

    def next_frame(self) -> tuple[int, bytes] | None:
        """One complete frame as (flags, body), or None (the identity frame)."""
        if self._end - self._pos < 1:
            return None
        got = self._frame_at(self._pos)
        if got is None:
            return None
        flags, body, self._pos = got
        return flags & FLAG_MORE, body

    def decode(self, out: list[list[bytes]], limit: int) -> bytes | None:
        """Append up to `limit` complete messages to `out`; never returns a
        command (ZMTP/1.0 has none). A partly received message stays inside."""
        inject = self._inject
        while inject and limit > 0:
            out.append(inject.pop(0))
            limit -= 1
        cur = self._cur
        p = self._pos
        while limit > 0 and self._end - p >= 1:
            got = self._frame_at(p)
            if got is None:
                break
            flags, body, p = got
            self._pos = p
            cur.append(body)
            if not flags & FLAG_MORE:
                out.append(cur)
                cur = []
                limit -= 1
        self._cur = cur
        return None


def _header(size: int, flags: int) -> bytes:
    """The 1.0 header of a frame with a `size`-byte body."""
    length = size + 1
    if length <= SHORT_LENGTH_MAX:
        return bytes((length, flags))
    return b"\xff" + pack_u64(length) + bytes((flags,))


class V1Encoder(FrameEncoder):
    """`FrameEncoder` writing ZMTP/1.0 frame headers.

    Made once the greeting showed a 1.0 peer, it takes over whatever the
    connection had queued before (`take_over`). Commands do not exist in
    ZMTP/1.0: nothing sends one to a 1.0 peer (no heartbeats, no
    subscription commands, no mechanism).
    """

    __slots__ = ()

    @classmethod
    def take_over(cls, before: FrameEncoder) -> V1Encoder:
        encoder = cls()
        for chunk in before.take():
            encoder.add_raw(bytes(chunk))
        return encoder

    def add_frame(self, frame: Buffer, flags: int) -> None:
        size = byte_length(frame)
        self._pieces.append(_header(size, flags & FLAG_MORE))
        if size < BIG_FRAME:
            self._pieces.append(frame)
        else:
            self._add_big(frame)

    def add_messages(self, msgs: Iterable[Sequence[Buffer]]) -> None:
        for msg in msgs:
            last = len(msg) - 1
            for index, frame in enumerate(msg):
                self.add_frame(frame, FLAG_MORE if index < last else 0)

    def add_command(self, body: bytes) -> None:
        raise ProtocolError("ZMTP/1.0 has no commands")
