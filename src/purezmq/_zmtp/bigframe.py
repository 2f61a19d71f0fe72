"""Receive a large frame body straight into the storage it is delivered in.

A frame of `frames.BIG_FRAME` bytes or more gets its own storage, and the
driver's ``recv_into`` writes directly into it; the finished body comes out
as ``bytes`` without a final copy.

Measured on this machine (CPython 3.11, 1 MiB frames over a socketpair,
``recv_into`` until full, 300 frames, best of two runs):

  =========================================================  ===========
  bytearray(n) + recv_into + bytes(ba)   (one extra memcpy)   ~4.1-4.7 GB/s
  io.BytesIO sized by seek+write, recv_into getbuffer() view,
  views released, then getvalue()        (no extra copy)      ~5.7-5.9 GB/s
  =========================================================  ===========

``BytesIO.getvalue()`` returns its internal bytes object itself (no copy)
when no buffer export is alive and the size matches; measured 1 us for 1 MiB
against 600 us while a view was still exported. So every view we hand out is
``release()``d once the driver reported the bytes (the driver may not use a
view after ``buffer_updated``, the asyncio ``BufferedProtocol`` contract); if
the driver kept a derived view alive, ``getvalue()`` still works, it copies.

Storage grows geometrically from `INITIAL_RESERVE` rather than trusting the
size in the frame header, so a peer claiming a 1 TB frame costs us memory
only for what it actually sends (growing a large BytesIO is a ``realloc``,
which Linux serves with ``mremap`` - no copy). The storage is at most twice
what arrived, or INITIAL_RESERVE: a peer that declares 2^62 bytes and sends
a few costs 64 KiB, not the 1 MiB first reserve this had (issue 12: 200
such connections took 206 MiB; libzmq's lazily mapped malloc costs 29 KiB a
connection at 2^30). Extending a BytesIO zero-fills the new part, so its
pages are touched: a reserve far beyond the received bytes is real memory.

That zero fill was most of what a large frame cost in user space (callgrind,
64 KiB REQ/REP round trips: 65k of 151k instructions; 1 MiB: 1,048k of
1,173k). When the whole body is already waiting in the kernel and none of it
came with the header, a driver can skip the storage altogether: it asks
`direct_size`, receives that many bytes as a ``bytes`` object of its own
(``socket.recv(n)`` allocates without initialising and the kernel writes the
body into it, as libzmq's ``malloc`` + ``recv``) and hands it to
`take_bytes`. The size asked for is what has arrived, never what the peer
declared. Storage is allocated only when a view is first asked for.

Over ipc the body of a 1 MiB frame never sat whole in the kernel (a unix
socket holds its sender's SO_SNDBUF, about 208 KiB by default), so this
storage and its fill were the rule there. A purezmq sender now raises its
send buffer for large frames (`purezmq._io.engine_core.IPC_SNDBUF`) and the
body arrives whole. From a sender that does not (libzmq), the body still
comes in pieces, and the fill stays: the alternatives measured worse
(1 MiB ping-pong between two processes over a socketpair, CPython 3.11,
per round trip; this storage 0.44-0.76 ms): pieces received as ``bytes``
by ``recv`` (no fill) and joined once, 2.3-4.7 ms - glibc gave the freed
pieces back to the system and grew the heap again for every message
(4,300 ``brk`` per 600 messages; 490k minor page faults per 1,000
messages against 13.6k), so the kernel zeroed fresh pages instead; a
reused per-connection ``bytearray`` copied out by ``bytes()`` at the end,
0.69-0.73 ms against 0.44-0.61 ms alternated with it (the copy comes after
the last piece, on the latency path, where the fill is spread over the
reads).
"""

from __future__ import annotations

import io
from typing import Final

#: First allocation for a big frame; later ones double up to the frame size.
INITIAL_RESERVE: Final = 64 * 1024
#: Smallest growth step, so a tiny reserve never means tiny reads.
MIN_GROWTH: Final = 64 * 1024


class BigFrame:
    """Storage for one large frame body, filled by the driver's reads."""

    __slots__ = ("_bio", "_cap", "_views", "_whole", "filled", "size")

    def __init__(self, size: int, already: memoryview) -> None:
        """`already`: the part of the body that arrived with the header.
        Storage is reserved by the first `writable` (see `direct_size`)."""
        self.size = size
        self.filled = len(already)
        #: The storage, made when first needed: a body received whole as
        #: bytes of its own (`take_bytes`) never needs one.
        self._bio: io.BytesIO | None = None
        if self.filled:
            self._storage().write(already)
        self._cap = self.filled
        self._views: tuple[memoryview, ...] = ()
        #: The whole body, received by the driver as one bytes object.
        self._whole: bytes | None = None

    @property
    def complete(self) -> bool:
        return self.filled >= self.size

    def direct_size(self, arrived: int) -> int:
        """How many bytes the driver may receive as a bytes object of its
        own and pass to `take_bytes`: the whole body, when none of it is
        here yet and at least that much has `arrived` in the kernel
        (FIONREAD); else 0 (receive into `writable` views)."""
        if self.filled == 0 and self._cap == 0 and arrived >= self.size:
            return self.size
        return 0

    def take_bytes(self, data: bytes) -> None:
        """The driver received `data` after `direct_size` said yes. A short
        read (a signal, a reset) is stored as a first part, copied once."""
        if len(data) >= self.size:
            self._whole = data if len(data) == self.size else data[: self.size]
            self.filled = self.size
            return
        self._storage().write(data)
        self.filled = self._cap = len(data)

    def _storage(self) -> io.BytesIO:
        bio = self._bio
        if bio is None:
            bio = self._bio = io.BytesIO()
        return bio

    def _reserve(self, cap: int) -> None:
        """Make the storage `cap` bytes long (zero-filled past `filled`)."""
        if cap <= self._cap:
            return
        bio = self._storage()
        try:
            bio.seek(cap - 1)
            bio.write(b"\0")
        except BufferError:
            # A view the driver kept alive pins the old storage: move to new.
            old = bio.getbuffer()
            bio = self._bio = io.BytesIO()
            bio.write(old[: self.filled])
            old.release()
            bio.seek(cap - 1)
            bio.write(b"\0")
        self._cap = cap

    def writable(self, arrived: int = -1) -> memoryview:
        """A view of the unfilled part of the storage for ``recv_into``.

        `arrived`: bytes known to be waiting in the kernel (the driver's
        FIONREAD, -1 when unknown). The storage grows to take them in one
        read - they have arrived, so the bound holds - instead of doubling
        its way there a read at a time."""
        self._release()
        filled, cap = self.filled, self._cap
        if filled >= cap or arrived > cap - filled:
            target = filled + arrived
            if filled >= cap:
                grown = INITIAL_RESERVE if cap < INITIAL_RESERVE else cap + max(cap, MIN_GROWTH)
                target = max(target, grown)
            self._reserve(min(self.size, target))
        base = self._storage().getbuffer()
        view = base[self.filled : self._cap]
        self._views = (view, base)
        return view

    def written(self, nbytes: int) -> None:
        """The driver stored `nbytes` at the start of the last view."""
        self.filled += nbytes
        self._release()

    def take(self) -> bytes:
        """The complete body (no copy when no view is alive any more)."""
        whole = self._whole
        if whole is not None:
            self._whole = None
            return whole
        self._release()
        return self._storage().getvalue()

    def _release(self) -> None:
        for view in self._views:
            try:
                view.release()
            except BufferError:  # the driver derived a view from ours
                pass
        self._views = ()
