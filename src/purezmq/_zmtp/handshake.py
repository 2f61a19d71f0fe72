"""A ZMTP connection's handshake: greeting, mechanism, ZAP, older peers.

From the peer's first bytes to READY: the greeting exchange (greeting.py),
the choice of ZMTP/1.0 or 2.0 for an older peer (its socket type and
identity frames are legacy.py's), the security mechanism's commands and
the ZAP request it makes. Its end, `_ready`, sends what the application
queued meanwhile. `ConnectionHandshake` derives from `ConnectionBase`
(connection_base.py) and `ZMTPConnection` (connection.py) from it; see
connection_base.py for why a class in three modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .connection_base import ConnectionBase
from .errors import ZMTP_UNEXPECTED_COMMAND, ProtocolError, internal_error
from .frames import FLAG_COMMAND
from .greeting import (
    GREETING_SIZE,
    MAJOR_BYTE,
    PREFIX_SIZE,
    greeting_rest,
    parse_greeting,
    peer_revision,
    signature_complete,
)
from .legacy import LegacyHandshake, refusal
from .mechanisms.base import MechanismStatus
from .metadata import PROPERTY_IDENTITY, PROPERTY_SOCKET_TYPE
from .socktypes import GROUP_JOINERS, SUBSCRIBERS

#: Peer revisions below this are ZMTP 1.0/2.0 (libzmq speaks 3.1 to a 2).
_FIRST_3X_REVISION: Final = 2


class ConnectionHandshake(ConnectionBase):
    """The handshake of a `ZMTPConnection` (see the module docstring)."""

    __slots__ = ()

    # -------------------------------------------------------- handshake
    def _advance_handshake(self, now: float) -> None:
        if self._state == "greeting" and not self._read_greeting():
            return
        legacy = self._legacy
        if legacy is not None:
            self._decoder = legacy.advance(self._decoder)
            if legacy.done:
                self._legacy_complete(legacy)
            return
        decoder = self._decoder
        mechanism = self.mechanism
        while self._state == "handshake" and mechanism.wants_input():
            frame = decoder.next_frame()
            if frame is None:
                return
            flags, body = frame
            if not flags & FLAG_COMMAND:
                raise ProtocolError(
                    "message frame before the handshake completed", code=ZMTP_UNEXPECTED_COMMAND
                )
            mechanism.process_handshake_command(body)
            self._after_mechanism(now)

    def _read_greeting(self) -> bool:
        """Handle the peer's greeting bytes; True once all 64 were read, or
        once a ZMTP 1.0/2.0 peer was recognised (`_legacy` carries on)."""
        decoder = self._decoder
        if self.peer_major < 0:
            head = decoder.peek_raw(PREFIX_SIZE)
            if not head:
                return False
            if not self._major_sent and signature_complete(head):
                self._encoder.add_raw(MAJOR_BYTE)
                self._major_sent = True
            revision = peer_revision(head)
            if revision is None:
                return False
            if revision < _FIRST_3X_REVISION:
                self._start_legacy(revision)
                return True
            self.peer_major = revision
            mechanism = self.mechanism
            self._encoder.add_raw(greeting_rest(mechanism.name, mechanism.as_server))
        raw = decoder.take_raw(GREETING_SIZE)
        if raw is None:
            return False
        peer = parse_greeting(raw, self.mechanism.name)
        self.peer_minor = peer.minor
        self.protocol = "ZMTP/3.1" if peer.speaks_31 else "ZMTP/3.0"
        decoder.start_framing()
        self._state = "handshake"
        self.mechanism.start(peer)
        self._drain_mechanism()
        return True

    def _start_legacy(self, revision: int) -> None:
        """The peer speaks ZMTP 1.0 or 2.0: refuse it if we need security (RFC
        37 "Backwards Interoperability", libzmq), else continue in its protocol."""
        if not self._legacy_ok:
            raise refusal(revision, self.mechanism.name)
        legacy = LegacyHandshake(
            revision,
            socket_type=self.socket_type,
            routing_id=self._routing_id,
            check_socket_type=self._check_type,
        )
        self._encoder = legacy.start(self._encoder)
        self._legacy = legacy
        self.protocol = legacy.protocol
        if revision >= 0:
            self.peer_major = revision
        self._state = "handshake"

    def _legacy_complete(self, legacy: LegacyHandshake) -> None:
        """The peer's identity frame arrived. No metadata, no mechanism, no
        heartbeats (ZMTP 1.0/2.0 have no commands), subscriptions as messages."""
        self.peer_socket_type = legacy.peer_socket_type
        self.peer_identity = legacy.peer_identity
        self._ready()

    def _drain_safely(self) -> None:
        """Queue what a failing mechanism wants said (its ERROR command);
        nothing if that fails too - the connection is ending anyway."""
        try:
            self._drain_mechanism()
        except Exception:  # the first error is the one reported
            pass

    def _drain_mechanism(self) -> None:
        """Queue the mechanism's pending commands and ZAP request."""
        mechanism = self.mechanism
        body = mechanism.next_handshake_command()
        while body is not None:
            self._encoder.add_command(body)
            body = mechanism.next_handshake_command()
        request = mechanism.zap_request()
        if request is not None:
            self._zap_out = request

    def _after_mechanism(self, now: float) -> None:
        self._drain_mechanism()
        status = self.mechanism.status
        if status is MechanismStatus.READY:
            self._handshake_complete(now)
        elif status is MechanismStatus.ERROR:
            raise ProtocolError("security handshake failed")

    def _handshake_complete(self, now: float) -> None:
        mechanism = self.mechanism
        metadata = mechanism.peer_metadata
        self.peer_metadata = metadata
        self.peer_socket_type = (metadata.get(PROPERTY_SOCKET_TYPE) or b"").decode("latin-1")
        self.peer_identity = metadata.get(PROPERTY_IDENTITY) or b""
        # libzmq 4.3.3+: SUBSCRIBE/CANCEL as commands only to ZMTP 3.1+ peers.
        speaks_31 = self.protocol == "ZMTP/3.1"
        self._sub_commands = self.socket_type in SUBSCRIBERS and speaks_31
        # DISH: every message it sends is a JOIN/LEAVE command (any ZMTP 3.x).
        self._sub_commands |= self.socket_type in GROUP_JOINERS
        self._transform = mechanism.transforms_frames
        self._heartbeat.start(now)
        self._ready()

    def _ready(self) -> None:
        """The handshake is over: messages flow, those sent early first."""
        self.handshake_done = True
        self._state = "ready"
        self._hs_deadline = None
        early = self._early
        if early is not None:
            self._early = None
            self.send_messages(early)

    def zap_request(self) -> list[bytes] | None:
        """Frames of a ZAP request the mechanism wants sent (returned once)."""
        request, self._zap_out = self._zap_out, None
        return request

    def zap_reply(self, frames: Sequence[bytes], now: float) -> None:
        """Hand the ZAP handler's reply to the mechanism and carry on."""
        self._raise_if_failed()
        try:
            self.mechanism.zap_reply(frames)
            self._after_mechanism(now)
            if not self.handshake_done:
                self._advance_handshake(now)
        except ProtocolError as exc:
            self._drain_safely()
            raise self._failed(exc) from None
        except Exception as exc:
            raise self._failed(internal_error(exc)) from exc
