"""The handshake of a ZMTP/2.0 or ZMTP/1.0 peer, once the greeting told which.

libzmq 4.3 talks to older peers in their protocol (``zmtp_engine_t``'s
``handshake_v2_0``, ``handshake_v1_0`` and ``handshake_v1_0_unversioned``),
and so does purezmq. What follows our signature and major version:

=====================  ====================================  ===================
peer                   we send, then expect from the peer    framing afterwards
=====================  ====================================  ===================
2.0 (revision 1)       socket-type octet, identity frame     2.0 (3.x, no
                                                             commands)
1.0 with revision 0    socket-type octet, identity frame     1.0
1.0 (no revision)      the body of our identity frame (our   1.0
                       signature was its header); the peer
                       sends its identity frame at once
=====================  ====================================  ===================

The identity frame carries the socket's ROUTING_ID (every socket type sends
one, possibly empty); a ROUTER takes the peer's as its routing id, as a READY's
Identity. There is no mechanism, no metadata, no heartbeat and no command: a
socket that needs security refuses these peers before any of this
(`ZMTPConnection`). Subscriptions travel as 0x01/0x00 messages (RFC 15
"Publish-Subscribe"). A 1.0 subscriber never sends any (in ZeroMQ 2.x the
subscriber filters), so a publisher gets a phantom subscription to everything
from it, as libzmq injects one; our own SUB filters what it receives anyway.

RFC 15 "Socket Compatibility": the socket-type octet of a 2.0 (or versioned
1.0) peer is checked against ours, with the table the 3.x Socket-Type check
uses. libzmq 4.3.5 does not check it; RFC 15 says an implementation SHOULD.
"""

from __future__ import annotations

from typing import Final

from .decoder import FrameDecoder
from .errors import NO_CODE, ZMTP_INVALID_METADATA, ProtocolError
from .frames import FrameEncoder
from .greeting import REVISION_ZMTP20, SIGNATURE_SIZE, UNVERSIONED
from .socktypes import PUBLISHERS, compatible, type_name, type_number
from .v1 import V1Decoder, V1Encoder

#: The greeting of a 2.0 (or versioned 1.0) peer: signature, revision, type.
LEGACY_GREETING_SIZE: Final = SIGNATURE_SIZE + 2

_SUBSCRIBE_ALL: Final = b"\x01"


def refusal(revision: int, mechanism: bytes) -> ProtocolError:
    """The error that ends a connection to a ZMTP 1.0/2.0 peer on a socket
    that requires security (RFC 37: it MUST close; libzmq does at once)."""
    protocol = "ZMTP/2.0" if revision == REVISION_ZMTP20 else "ZMTP/1.0"
    return ProtocolError(
        f"{protocol} peer refused: it has no security, and this socket requires "
        f"{mechanism.decode('ascii', 'replace')} or ZAP",
        code=NO_CODE,
        kind="refused",
    )


class LegacyHandshake:
    """Identity exchange with a ZMTP/1.0 or 2.0 peer; see the module docstring.

    The connection calls `start` once the peer's revision is known, then
    `advance` with each input until `done`; both hand back the encoder or
    decoder the connection uses from then on (this revision's codec).
    """

    __slots__ = (
        "_check",
        "_greeting_read",
        "_revision",
        "_routing_id",
        "_socket_type",
        "_v1_decoder",
        "done",
        "peer_identity",
        "peer_socket_type",
        "protocol",
    )

    def __init__(
        self, revision: int, *, socket_type: str, routing_id: bytes, check_socket_type: bool
    ) -> None:
        """`revision`: `greeting.peer_revision`'s answer (`UNVERSIONED`, 0 or 1)."""
        self._revision = revision
        self._socket_type = socket_type
        self._routing_id = routing_id
        self._check = check_socket_type
        self._greeting_read = False
        self._v1_decoder: V1Decoder | None = None
        #: "ZMTP/1.0" or "ZMTP/2.0".
        self.protocol = "ZMTP/2.0" if revision == REVISION_ZMTP20 else "ZMTP/1.0"
        #: True once the peer's identity frame arrived: messages may flow.
        self.done = False
        #: The peer's identity frame (its ROUTING_ID; b"" if anonymous).
        self.peer_identity = b""
        #: The type its socket-type octet names ("" for a 1.0 peer without one).
        self.peer_socket_type = ""

    def start(self, encoder: FrameEncoder) -> FrameEncoder:
        """Queue the rest of our greeting and our identity; returns the
        encoder to use from now on (which holds what `encoder` held)."""
        if self._revision != REVISION_ZMTP20:
            encoder = V1Encoder.take_over(encoder)
        if self._revision == UNVERSIONED:
            if self._routing_id:  # (an empty chunk would stall the engine's writes)
                encoder.add_raw(self._routing_id)
        else:
            encoder.add_raw(bytes((type_number(self._socket_type),)))
            encoder.add_frame(self._routing_id, 0)
        return encoder

    def advance(self, decoder: FrameDecoder) -> FrameDecoder:
        """Read the peer's greeting and identity frame as far as they arrived;
        returns the decoder to use from now on. Raises `ProtocolError`."""
        if not self._greeting_read:
            size = 0 if self._revision == UNVERSIONED else LEGACY_GREETING_SIZE
            greeting = decoder.take_raw(size)
            if greeting is None:
                return decoder
            self._greeting_read = True
            if greeting:
                self._check_peer_type(greeting[SIGNATURE_SIZE + 1])
            if self._revision == REVISION_ZMTP20:
                decoder.start_framing()
            else:
                decoder = self._v1_decoder = V1Decoder.take_over(decoder)
        frame = decoder.next_frame()
        if frame is None:
            return decoder
        # The identity frame's flags are not checked (RFC 13; libzmq ignores them).
        self.peer_identity = frame[1]
        self.done = True
        v1 = self._v1_decoder
        if v1 is not None and self._revision == UNVERSIONED and self._socket_type in PUBLISHERS:
            v1.inject([_SUBSCRIBE_ALL])
        return decoder

    def _check_peer_type(self, number: int) -> None:
        name = type_name(number)
        self.peer_socket_type = name
        if self._check and not compatible(self._socket_type, name):
            shown = name or f"unknown type {number}"
            raise ProtocolError(
                f"incompatible socket types: we are {self._socket_type}, "
                f"{self.protocol} peer is {shown}",
                code=ZMTP_INVALID_METADATA,
            )
