"""Receive buffer and frame decoder: the input half of the critical path.

Bytes arrive through `get_buffer` / `buffer_updated` (the driver does
``sock.recv_into(view)``) into a ring buffer (a ``bytearray`` that is
compacted, never shifted per frame). Parsing is lazy and batched: `decode`
turns as many buffered frames into messages as it is asked for.

Why a ``bytes`` snapshot: frames must come out as ``bytes``. Slicing a bytes
object makes a frame in one step, whereas a bytearray or memoryview slice
needs a second copy; measured here, parsing 64-byte messages ran at about
3.5 M msg/s from a snapshot against 1.6-1.8 M msg/s through memoryview
slices. So `decode` copies the unparsed region once into a bytes object
(about 20 us per 256 KiB) and slices frames out of it. The snapshot stays
valid until the bytes it covers move (compaction adjusts its offset; only
the big-frame hand-over below discards it), so calling ``decode`` with a
small limit does not copy the buffer again each time.

Large frames: once a frame header announcing `BIG_FRAME` bytes or more sits
at the tail of the buffer, `get_buffer` moves that frame's body into its own
`BigFrame` storage and hands out views into it, so the kernel writes the
body where it will be delivered from. The ring keeps only the header; a
*marker* (ring offset of the header's end -> storage) tells the parser where
the body went. Bytes received after the body go to the ring after the header.

After a big frame, the next read into the ring is small (`HEADER_READ`):
a peer that sent one big frame likely sends more, and whatever of the next
body lands in the ring with its header is copied once into the frame's
storage (and again when that storage first grows). At 64 KiB round trips
that read took about 50 KiB of body, copied twice per message; a small
read takes the headers, and the body goes straight into its storage.
libzmq's decoder does the same with its 8 KiB batch buffer. One read that
finds a small message instead costs one extra ``recv`` after a big frame.

A big frame starts as soon as the read that brought its header is taken in
(`buffer_updated`, when that read filled its view), not at the next
`get_buffer`: `receiving_big` is true right after that read, so a driver
can see that the body is already waiting in the kernel (FIONREAD) and read
it in the same wake-up, instead of going back to poll for a readiness it
already has (the engine's `_read_more`).
"""

from __future__ import annotations

import os
from typing import Final

from .bigframe import BigFrame
from .errors import ProtocolError
from .frames import (
    BIG_FRAME,
    FLAG_COMMAND,
    FLAG_LONG,
    FLAG_MORE,
    FLAGS_RESERVED,
    SHORT_MAX,
    long_size,
    unpack_u64_from,
)

#: First ring size; it grows (up to the configured buffer size) while reads
#: keep filling it, so idle connections stay small. libzmq's batch buffer is
#: 8 KiB too. A connection takes a spare ring when there is one (below).
INITIAL_RING: Final = 8 * 1024
#: Rings of INITIAL_RING bytes whose decoders are gone, for the next ones:
#: a connection then skips allocating and zero-filling 8 KiB. Small: a
#: decoder's life 0.8 µs instead of 1.1-1.2 (timeit, compiled); valgrind
#: makes it look larger (9k instructions, memset counted per byte).
#: Nothing outlives a decoder in its ring (frames are copies, big bodies
#: have their own storage, views are lent for one read), and a decoder
#: reads only the bytes it received, so a ring is safe to hand on. Bounded;
#: `list.append` and `pop` are atomic.
_SPARE_RINGS: Final[list[bytearray]] = []
MAX_SPARE_RINGS: Final = 16

#: Never hand the driver less than this much ring space.
MIN_READ: Final = 4096

#: Size of the ring read after a big frame: the next frames' headers
#: (identity, delimiter, size), not the next body (see the module docstring).
HEADER_READ: Final = 512
#: Bytes of the ring `_scan_for_big` copies at a time to read headers from
#: (hundreds of small frames per copy; one header per copy for frames near
#: BIG_FRAME, at the cost of a small memcpy).
SCAN_WINDOW: Final = 2048
#: Most bytes `decode` copies into one snapshot (more when one frame needs
#: more). A connection whose reader lags may hold a long backlog (an
#: unbounded pipe keeps it here as bytes, see intake.py): copying all of it
#: at once would double its memory for nothing, the parse takes a batch.
SNAP_MAX: Final = 256 * 1024

_COMMAND_MORE: Final = FLAG_COMMAND | FLAG_MORE
#: The part of a big frame's body that came with its header, when none did.
_NOTHING: Final = memoryview(b"")
#: Flags the header walk reports (`FrameDecoder.urgent`).
_URGENT_FLAGS: Final = FLAG_COMMAND | FLAGS_RESERVED


def _bad_flags(flags: int) -> ProtocolError:
    if flags & FLAGS_RESERVED:
        return ProtocolError(f"frame flags {flags:#04x} set reserved bits")
    return ProtocolError(f"command frame with MORE flag ({flags:#04x})")


def _too_big(size: int, limit: int) -> ProtocolError:
    return ProtocolError(f"frame of {size} bytes exceeds max_msg_size {limit}")


#: RFC 37: a long size is 0..2^63-1; a peer claiming more is malformed.
MAX_FRAME_SIZE: Final = (1 << 63) - 1


def _bad_size(size: int) -> ProtocolError:
    return ProtocolError(f"frame size {size} is beyond ZMTP's 2^63-1 limit")


def _physical_memory() -> int:
    """This machine's RAM in bytes (2^63-1 where the platform cannot say)."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page_size = os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return MAX_FRAME_SIZE
    if pages <= 0 or page_size <= 0:
        return MAX_FRAME_SIZE
    return pages * page_size


#: The largest frame this process could ever hold. libzmq allocates a
#: frame's declared size up front and drops the connection when malloc
#: fails (ENOMEM): under Linux's default overcommit that is any size beyond
#: RAM and swap, so 2^62 or 2^63-1 bytes are refused while 2^30 is taken
#: (lazily mapped: memory follows the bytes that arrive). We never reserve
#: the declared size (see bigframe), so we refuse by rule what libzmq's
#: allocation refuses: frames larger than the machine's RAM, whatever
#: MAXMSGSIZE says (a frame that large could not be delivered anyway).
ALLOC_MAX: Final = _physical_memory()


def _ring(cap: int) -> bytearray:
    """A ring of `cap` bytes: a spare one if it is the initial size."""
    if cap == INITIAL_RING and _SPARE_RINGS:
        try:
            return _SPARE_RINGS.pop()
        except IndexError:  # another thread took the last one
            pass
    return bytearray(cap)


def unallocatable_error(size: int) -> ProtocolError:
    """libzmq would fail to allocate it (see ALLOC_MAX); v1 uses it too."""
    return ProtocolError(f"frame of {size} bytes is larger than this machine's memory")


class FrameDecoder:
    """Buffered input of one connection: raw bytes first, then frames."""

    __slots__ = (
        "_big",
        "_buf",
        "_cap",
        "_cur",
        "_end",
        "_handed",
        "_header_read",
        "_lead",
        "_markers",
        "_max_size",
        "_mv",
        "_pos",
        "_read_at",
        "_scan",
        "_short_final",
        "_size_limit",
        "_snap",
        "_snap_pos",
        "_target",
        "_urgent_at",
        "framing",
    )

    def __init__(self, *, buffer_size: int = 256 * 1024, max_msg_size: int = -1) -> None:
        self._target = max(buffer_size, 2 * MIN_READ)
        self._cap = min(self._target, INITIAL_RING)
        self._buf = _ring(self._cap)
        self._mv = memoryview(self._buf)
        self._pos = 0  # first unparsed byte
        self._end = 0  # end of received bytes
        self._handed = 0  # size of the last ring view handed out
        self._header_read = False  # the next ring read is a header read
        #: Bytes from a read's start to the last big body's start, when that
        #: is at most HEADER_READ: the next header read is that long (0:
        #: HEADER_READ), so it stops where the next body of the same shape
        #: begins and none of that body lands in the ring (`direct_body`).
        self._lead = 0
        self._read_at = 0  # ring offset where the last ring read began
        self._scan = 0  # headers before this offset were already scanned
        self._markers: dict[int, BigFrame] = {}
        self._big: BigFrame | None = None  # the big frame being received
        self._snap = b""
        self._snap_pos = 0
        self._cur: list[bytes] = []  # frames of a partly parsed message
        self._max_size = max_msg_size
        # The short-frame fast path compares flags with this: 0 normally,
        # -1 (matches nothing) when max_msg_size could reject a short frame.
        self._short_final = 0 if max_msg_size < 0 or max_msg_size >= SHORT_MAX else -1
        #: The largest frame the parser accepts (the scan's one compare).
        self._size_limit = ALLOC_MAX if max_msg_size < 0 else min(max_msg_size, ALLOC_MAX)
        #: Ring offset of the last frame header the scan found that the
        #: parser must meet soon: a command (a PING to answer, an ERROR) or a
        #: malformed frame (the end of the connection). See `urgent`.
        self._urgent_at = -1
        self.framing = False  # False while the greeting is being read

    def __del__(self) -> None:
        """Hand an initial-size ring on to the next connection (see
        `_SPARE_RINGS`); a grown one goes back to the allocator."""
        try:
            if self._cap == INITIAL_RING and len(_SPARE_RINGS) < MAX_SPARE_RINGS:
                _SPARE_RINGS.append(self._buf)
        except (TypeError, AttributeError):  # pragma: no cover - interpreter exit
            pass  # the module's globals are already gone (pure build)

    # ------------------------------------------------------------ input side
    def get_buffer(self, sizehint: int = -1) -> memoryview:
        """A writable, non-empty view for the next ``recv_into``. While a big
        frame arrives, `sizehint` is the bytes waiting in the kernel (if the
        driver knows): its storage grows to take them (bigframe)."""
        big = self._big
        if big is not None:
            return big.writable(sizehint)
        if self.framing and self._end - self._scan >= 2:
            big = self._scan_for_big()
            if big is not None:
                return big.writable()
        need = max(min(sizehint, self._target), MIN_READ)
        if self._cap - self._end < need:
            self._make_room(need)
        self._read_at = self._end
        if self._header_read:
            handed = self._handed = self._lead or HEADER_READ
            return self._mv[self._end : self._end + handed]
        self._handed = self._cap - self._end
        return self._mv[self._end :]

    def direct_body(self, arrived: int) -> int:
        """Bytes the driver may receive as one ``bytes`` object and pass to
        `body_received`: the whole body of the big frame arriving now, when
        none of it is here and `arrived` (FIONREAD) covers it; else 0.
        See bigframe: no storage, no zero fill, no copy."""
        big = self._big
        return big.direct_size(arrived) if big is not None else 0

    def body_received(self, data: bytes) -> None:
        """The driver received `data` after `direct_body` said yes."""
        big = self._big
        if big is None:
            raise ProtocolError("body_received without a big frame arriving")
        big.take_bytes(data)
        if big.complete:
            self._big = None

    def buffer_updated(self, nbytes: int) -> None:
        """The driver wrote `nbytes` at the start of the last view."""
        big = self._big
        if big is not None:
            big.written(nbytes)
            if big.complete:
                self._big = None
            return
        self._end += nbytes
        header_read = self._header_read
        self._header_read = False
        full = nbytes >= self._handed
        if (
            (header_read or full)
            and self.framing
            and self._end - self._scan >= 2
            and self._scan_for_big() is not None
        ):
            # A big frame's header came with this read: its storage takes
            # the rest from the next read on, and `receiving_big` says so at
            # once, so a driver that sees the body waiting reads it now
            # instead of waiting for readiness again (see the docstring).
            # Only after a read that filled its view (a header read after a
            # big frame, or a full ring read): a small message's read is
            # parsed before the next get_buffer, whose scan then skips it.
            return
        if not header_read and full and self._cap < self._target:
            # The read filled everything we offered: let the ring grow.
            self._make_room(min(self._target, self._cap * 4) - (self._end - self._pos))

    @property
    def buffered(self) -> int:
        """Bytes received and not yet consumed by the parser."""
        total = self._end - self._pos
        for big in self._markers.values():
            total += big.filled
        return total

    @property
    def pressure(self) -> int:
        """`buffered` less the largest big frame that has all arrived: the
        back-pressure gauge (intake's `buffer_has_room`). A whole frame
        waiting for its reader is one message, as in libzmq's pipe. Counted
        as bytes, it paused reading after every 1 MiB message of a round
        trip, and over asyncio took the descriptor out of the loop's
        selector and back each time (issue 14)."""
        markers = self._markers
        if not markers:
            return self.buffered
        whole = 0
        for big in markers.values():
            if big.complete and big.filled > whole:
                whole = big.filled
        return self.buffered - whole

    @property
    def receiving_big(self) -> bool:
        """A large frame is arriving straight into its own storage."""
        return self._big is not None

    @property
    def big_remaining(self) -> int:
        """Bytes still to come of the large frame arriving now (0: none)."""
        big = self._big
        return big.size - big.filled if big is not None else 0

    @property
    def has_pending(self) -> bool:
        """Received bytes not yet parsed (possibly only part of a frame)."""
        return self._pos < self._end or bool(self._markers)

    def urgent(self) -> bool:
        """Do unparsed bytes hold a command frame or a malformed one?

        Walks the headers not walked yet first (the I/O thread's reads walk
        them too, `_scan_for_big`). A session that leaves a backlog unparsed
        (intake.py) asks this: libzmq's engine meets a PING, an ERROR or a
        bad frame as soon as it reads it, whatever the pipe holds, so the
        backlog up to that frame must be parsed now, not when the reader
        gets there."""
        if self.framing and self._big is None and self._end - self._scan >= 2:
            self._scan_for_big()
        return self._urgent_at >= self._pos

    def _make_room(self, need: int) -> None:
        """Compact (and grow if needed) so `need` bytes fit after the data.

        It grows when the data would fill more than half the ring: a
        compaction moves all the live bytes, so one that frees less room
        than it moves would be repeated read after read while a backlog
        waits unparsed (intake.py), copying the whole backlog each time."""
        pos, end = self._pos, self._end
        live = end - pos
        if live + need > self._cap or 2 * live > self._cap:
            cap = max(self._cap * 2, live + need)
            buf = bytearray(cap)
            buf[:live] = self._mv[pos:end]
            self._buf, self._mv, self._cap = buf, memoryview(buf), cap
        elif pos:
            self._mv[:live] = self._mv[pos:end]  # memoryview copy is a memmove
        self._shift(pos)

    def _shift(self, shift: int) -> None:
        """Data moved `shift` bytes towards the start: fix every offset."""
        if not shift:
            return
        self._pos -= shift
        self._end -= shift
        self._scan = max(0, self._scan - shift)
        self._read_at = max(0, self._read_at - shift)
        self._snap_pos -= shift
        self._urgent_at -= shift
        if self._markers:
            self._markers = {at - shift: big for at, big in self._markers.items()}

    def _scan_for_big(self) -> BigFrame | None:
        """Walk complete frames; start big-frame mode if one is arriving.

        The I/O thread walks every frame it receives here, so with small
        messages this loop is much of its work per message. It reads the
        headers from a `bytes` copy of up to SCAN_WINDOW bytes of the ring
        (copied again when the walk leaves it), as `decode` reads its
        snapshot: compiled, indexing bytes is a native load, indexing the
        bytearray a generic call that boxes its index and its result."""
        mv, end, markers = self._mv, self._end, self._markers
        limit = self._size_limit
        p = max(self._scan, self._pos)
        win = b""
        base = p  # ring offset of win[0]
        while end - p >= 2:
            i = p - base
            if i + 9 > len(win) and base + len(win) < end:
                base = p
                i = 0
                win = bytes(mv[p : min(end, p + SCAN_WINDOW)])
            flags = win[i]
            size: int
            if flags & FLAG_LONG:
                if end - p < 9:
                    break
                size = long_size(win, i + 1)
                h = p + 9
            else:
                size = win[i + 1]
                h = p + 2
            if flags & _URGENT_FLAGS:
                self._urgent_at = p  # a command, or reserved bits (bad)
                if flags & FLAGS_RESERVED or flags & _COMMAND_MORE == _COMMAND_MORE:
                    break  # the parser rejects it: walk no further
            if size > limit:
                self._urgent_at = p  # the parser rejects it
                break
            if size >= BIG_FRAME:
                if h in markers:  # body already in its own storage
                    p = h
                    continue
                if h + size > end:
                    self._scan = p
                    return self._start_big(h, size)
            if h + size > end:
                break
            p = h + size
        self._scan = p
        return None

    def _start_big(self, header_end: int, size: int) -> BigFrame:
        lead = header_end - self._read_at  # the body starts `lead` bytes into the read
        if 0 < lead <= HEADER_READ:
            self._lead = lead
        # Usually none of the body came with its header (the read was sized
        # to end there, `_lead`): no view of nothing is made then.
        end = self._end
        big = BigFrame(size, self._mv[header_end:end] if end > header_end else _NOTHING)
        self._end = header_end
        self._markers[header_end] = big
        self._big = big
        self._header_read = True
        if self._snap_pos + len(self._snap) > header_end:
            self._snap = b""  # it covers bytes that moved to the big frame
            self._snap_pos = self._pos
        return big

    # ------------------------------------------------------- greeting bytes
    def peek_raw(self, nbytes: int) -> bytes:
        """Up to `nbytes` unparsed bytes, without consuming them."""
        return bytes(self._mv[self._pos : min(self._end, self._pos + nbytes)])

    def take_raw(self, nbytes: int) -> bytes | None:
        """Exactly `nbytes` raw bytes (the greeting), or None if not there yet."""
        if self._end - self._pos < nbytes:
            return None
        data = bytes(self._mv[self._pos : self._pos + nbytes])
        self._pos += nbytes
        return data

    def start_framing(self) -> None:
        """The greeting is consumed; everything from here on is frames."""
        self.framing = True
        self._scan = self._pos

    # ---------------------------------------------------------------- frames
    def next_frame(self) -> tuple[int, bytes] | None:
        """One complete frame as (flags, body), or None; the general path.

        Used for the handshake and for mechanisms that transform frames;
        data traffic goes through `decode`.
        """
        buf, p, end = self._buf, self._pos, self._end
        if end - p < 2:
            return None
        flags = buf[p]
        if flags & FLAGS_RESERVED or flags & _COMMAND_MORE == _COMMAND_MORE:
            raise _bad_flags(flags)
        if flags & FLAG_LONG:
            if end - p < 9:
                return None
            size = unpack_u64_from(buf, p + 1)[0]
            h = p + 9
            if size > MAX_FRAME_SIZE:
                raise _bad_size(size)
        else:
            size = buf[p + 1]
            h = p + 2
        if 0 <= self._max_size < size:
            raise _too_big(size, self._max_size)
        if size > ALLOC_MAX:
            raise unallocatable_error(size)
        big = self._markers.get(h) if size >= BIG_FRAME else None
        if big is not None:
            if not big.complete:
                return None
            del self._markers[h]
            self._pos = h
            return flags, big.take()
        if h + size > end:
            return None
        self._pos = h + size
        return flags, bytes(self._mv[h : h + size])

    def decode(self, out: list[list[bytes]], limit: int) -> bytes | None:
        """Append up to `limit` complete data messages to `out`.

        Stops early at the end of the buffered data and returns the body of
        a command frame when it meets one (the caller handles it and calls
        again); a partly received multipart message stays inside.

        The loop is deliberately inlined for speed (one function, locals
        only): the common case, a final short data frame, costs one index,
        one slice, one list and one append.
        """
        cur = self._cur
        markers = self._markers
        max_size = self._max_size
        short_final = self._short_final
        long_final = FLAG_LONG if max_size < 0 else -1  # -1: take the general path
        left = limit
        while True:
            data = self._snap
            base = self._snap_pos
            end = len(data)
            p = self._pos - base
            # A frame header needs two bytes (flags and a short size): the loop
            # stops when fewer are buffered. (Testing, not catching IndexError:
            # compiled, an exception costs thousands of instructions, and a
            # request/reply loop meets one per message.)
            while left and p + 1 < end:
                flags = data[p]
                if flags == short_final:
                    s = p + 2 + data[p + 1]
                    if s > end:
                        break
                    if cur:
                        cur.append(data[p + 2 : s])
                        out.append(cur)
                        cur = []
                    else:
                        out.append([data[p + 2 : s]])
                    p = s
                    left -= 1
                    continue
                if flags == long_final:
                    # Final long data frame held in the snapshot (no
                    # marker possible below BIG_FRAME): 1 KiB messages.
                    if p + 9 > end:
                        break
                    size = long_size(data, p + 1)
                    if size < BIG_FRAME:
                        s = p + 9 + size
                        if s > end:
                            break
                        if cur:
                            cur.append(data[p + 9 : s])
                            out.append(cur)
                            cur = []
                        else:
                            out.append([data[p + 9 : s]])
                        p = s
                        left -= 1
                        continue
                if flags & FLAGS_RESERVED or flags & _COMMAND_MORE == _COMMAND_MORE:
                    raise _bad_flags(flags)
                if flags & FLAG_LONG:
                    if p + 9 > end:
                        break
                    size = long_size(data, p + 1)
                    h = p + 9
                    if size > MAX_FRAME_SIZE:
                        raise _bad_size(size)
                else:
                    size = data[p + 1]
                    h = p + 2
                if 0 <= max_size < size:
                    raise _too_big(size, max_size)
                if size > ALLOC_MAX:
                    raise unallocatable_error(size)
                big = markers.get(base + h) if size >= BIG_FRAME and markers else None
                if big is not None:
                    if not big.complete:
                        break
                    del markers[base + h]
                    frame = big.take()
                    s = h
                else:
                    s = h + size
                    if s > end:
                        break
                    frame = data[h:s]
                p = s
                if flags & FLAG_COMMAND:
                    self._pos = base + p
                    self._cur = cur
                    return frame
                if flags & FLAG_MORE:
                    cur.append(frame)
                    continue
                if cur:
                    cur.append(frame)
                    out.append(cur)
                    cur = []
                else:
                    out.append([frame])
                left -= 1
            self._pos = base + p
            if not left or base + end >= self._end:
                self._cur = cur
                return None
            # The snapshot ran out but more bytes arrived since: take a new
            # one, of at most SNAP_MAX bytes - unless this one was that
            # long, began here and held no whole frame: then all of it.
            pos = self._pos
            stop = self._end
            if stop - pos > SNAP_MAX and (p or end < SNAP_MAX):
                stop = pos + SNAP_MAX
            self._snap = bytes(self._mv[pos:stop])
            self._snap_pos = pos
