"""libzmq's framing of ZeroMQ messages over PGM (its pgm_sender and
pgm_receiver), sans-I/O.

Each APDU is::

    offset(2, network order) ZMTP/1.0 frames...

The frames are a byte stream cut at APDU boundaries: a frame may start in
one APDU and end in the next. `offset` is where the first message that
*starts* in this APDU begins (0xFFFF when none does), so that a receiver
that joins late, or lost data, can start at a message boundary instead of
the middle of a frame. libzmq never fragments its APDUs (each fits one
TSDU); `ApduWriter` does the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from purezmq._zmtp.errors import ProtocolError
from purezmq._zmtp.frames import FLAG_MORE, Buffer
from purezmq._zmtp.v1 import V1Decoder, V1Encoder

NO_OFFSET: Final = 0xFFFF


def _encode(msg: Sequence[Buffer]) -> bytes:
    encoder = V1Encoder()
    last = len(msg) - 1
    for index, frame in enumerate(msg):
        encoder.add_frame(frame, FLAG_MORE if index < last else 0)
    return b"".join(bytes(c) for c in encoder.take())


class ApduWriter:
    """Packs messages into APDUs of at most `size` bytes, as pgm_sender does."""

    def __init__(self, size: int) -> None:
        if size <= 2:
            raise ValueError("an APDU needs room for its offset")
        self.size = size
        self._carry = b""  # encoded bytes of a message that did not fit

    @property
    def pending(self) -> bool:
        """Part of a message is waiting for the next APDU."""
        return bool(self._carry)

    def next_apdu(self, pull: Callable[[], Sequence[Buffer] | None]) -> bytes | None:
        """The next APDU: the rest of the message in hand, then whole
        messages from `pull` (None: no more now) while they fit. None when
        there is nothing to send."""
        room = self.size - 2
        body = bytearray(self._carry[:room])
        self._carry = self._carry[room:]
        offset = NO_OFFSET
        while len(body) < room:
            msg = pull()
            if msg is None:
                break
            if offset == NO_OFFSET:
                offset = len(body)
            data = _encode(msg)
            take = room - len(body)
            body += data[:take]
            self._carry = data[take:]
        if not body:
            return None
        return offset.to_bytes(2, "big") + bytes(body)


class PeerReader:
    """One source's message stream: joins at a message start, decodes the
    ZMTP/1.0 frames, and starts again after a loss or a malformed frame."""

    def __init__(self, max_msg_size: int = -1) -> None:
        self._max = max_msg_size
        self._decoder: V1Decoder | None = None
        #: Frames dropped because of a loss or bad input (for statistics).
        self.resets = 0

    @property
    def joined(self) -> bool:
        return self._decoder is not None

    def loss(self) -> None:
        """Data was lost: the message in progress can never complete."""
        if self._decoder is not None:
            self.resets += 1
        self._decoder = None

    def feed(self, apdu: bytes) -> list[list[bytes]]:
        """The complete messages this APDU finishes."""
        if len(apdu) < 2:
            self.loss()
            return []
        offset = int.from_bytes(apdu[:2], "big")
        data = memoryview(apdu)[2:]
        if self._decoder is None:
            if offset == NO_OFFSET or offset > len(data):
                return []
            data = data[offset:]
            self._decoder = V1Decoder(max_msg_size=self._max)
        decoder = self._decoder
        out: list[list[bytes]] = []
        try:
            while data:
                view = decoder.get_buffer(len(data))
                n = min(len(view), len(data))
                view[:n] = data[:n]
                decoder.buffer_updated(n)
                data = data[n:]
                decoder.decode(out, 1 << 30)
        except ProtocolError:
            self.loss()
        return out
