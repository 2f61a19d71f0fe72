"""The security-mechanism seam: a sans-I/O state machine per connection.

Modelled on libzmq's ``mechanism_t`` and JeroMQ's ``Mechanism``. A mechanism
never touches a socket or a clock; `ZMTPConnection` drives it:

1. ``configure(socket_type=..., check_socket_type=...)`` - from the
   connection's constructor (so the socket type is stated once). The
   socket layer may call ``configure`` earlier with ``identity`` and
   ``metadata`` too, for mechanisms made by a factory.
2. ``start(peer)`` - once the peer's 64-byte greeting is validated
   (mechanism names matched). `peer` tells the peer's version and as-server
   flag (CURVE needs the minor version to down-convert subscriptions).
3. The connection then alternates:

   - ``next_handshake_command()`` until it returns None: each result is a
     command *body* (``name-len name data``) that goes out as a command
     frame, in order;
   - ``process_handshake_command(body)`` for each command frame received
     while ``status`` is HANDSHAKING;
   - ``wants_input()``: False pauses command processing (waiting for ZAP);
   - ``zap_request()``: frames of a ZAP request to hand to the socket layer
     (returned once); the socket layer answers with ``zap_reply(frames)``.

   Every call may raise `ProtocolError`. To send an ERROR command before
   failing, queue it first - `_fail` does both - and the connection still
   flushes it (``data_to_send()`` after the exception).
4. ``status`` becomes READY: ``peer_metadata`` (ZMTP properties from READY /
   INITIATE), ``zap_metadata`` and ``user_id`` (from the ZAP reply) are final.
5. After the handshake, if ``transforms_frames`` is True, every frame goes
   through ``encode_frame`` on the way out and ``decode_frame`` on the way in
   (CURVE wraps each frame in a MESSAGE command). Mechanisms that leave
   frames alone keep it False and the codec's fast paths never call them.

Writing PLAIN or CURVE: subclass `Mechanism`, set ``name`` (e.g. b"PLAIN")
and implement `start` and `process_handshake_command` with `_send`, and
`zap_reply` if the mechanism uses ZAP. Helpers: `_ready_properties` (the
property list to send), `_accept_properties` (parse the peer's, check its
Socket-Type), `_fail` (ERROR command + exception), `_peer_error` (the peer
sent ERROR), `_request_zap`.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping, Sequence
from typing import ClassVar, Final, NoReturn

from purezmq._mypyc import mypyc_attr
from purezmq._zmtp import commands
from purezmq._zmtp.errors import ZMTP_INVALID_METADATA, ZMTP_UNEXPECTED_COMMAND, ProtocolError
from purezmq._zmtp.greeting import PeerGreeting
from purezmq._zmtp.metadata import (
    EMPTY,
    PROPERTY_IDENTITY,
    PROPERTY_SOCKET_TYPE,
    encode_properties,
    parse_properties_shared,
)
from purezmq._zmtp.socktypes import compatible

from .zap import ZapConfig, ZapReply, parse_zap_reply, zap_request_frames

#: Encoded property lists without extra metadata, by (Socket-Type, Identity).
#: Values are immutable bytes computed from the key alone, so threads may
#: share it: a race at worst encodes the same list twice.
_READY_CACHE: Final[dict[tuple[str, bytes | None], bytes]] = {}
_READY_CACHE_MAX: Final = 256


class _Keep(enum.Enum):
    KEEP = "keep"


#: `Mechanism.configure` default: leave the value given to the constructor.
KEEP = _Keep.KEEP


class MessageError(ProtocolError):
    """A frame `Mechanism.decode_frame` refused after the handshake (CURVE's
    MESSAGE: a box that does not open, a replayed or reordered nonce...).

    libzmq reports these with a HANDSHAKE_FAILED_PROTOCOL monitor event
    although the handshake is over (``curve_mechanism_base_t::decode``); the
    socket layer does the same for this subclass.
    """


class MechanismStatus(enum.Enum):
    """libzmq's ``mechanism_t::status_t``."""

    HANDSHAKING = "handshaking"
    READY = "ready"
    ERROR = "error"


@mypyc_attr(allow_interpreted_subclasses=True)  # PLAIN, CURVE and tests' own
class Mechanism(ABC):
    """One side of a security handshake; see the module docstring."""

    #: Mechanism name as in the greeting (b"NULL", b"PLAIN", b"CURVE").
    name: ClassVar[bytes]
    #: True when data frames are rewritten after the handshake (CURVE).
    transforms_frames: ClassVar[bool] = False

    def __init__(
        self,
        *,
        as_server: bool = False,
        identity: bytes | None = None,
        properties: Mapping[str, bytes] | None = None,
        zap: ZapConfig | None = None,
    ) -> None:
        """
        Args:
            as_server: our as-server greeting flag (meaningless for NULL).
            identity: Identity property to send; None sends none. libzmq
                sends it (possibly empty) for REQ, DEALER and ROUTER only
                (`socktypes.sends_identity`).
            properties: extra properties for READY/INITIATE, e.g. ``X-*``
                application metadata (ZMQ_METADATA).
            zap: ask ZAP to authenticate the peer (see `ZapConfig`).
        """
        self.as_server = as_server
        self.identity = identity
        self.properties = dict(properties or {})
        self.zap = zap
        self.socket_type = ""
        self.check_socket_type = True
        self.peer: PeerGreeting | None = None
        #: ZMTP properties the peer sent (Socket-Type, Identity, X-...).
        self.peer_metadata = EMPTY
        #: properties from the ZAP reply (libzmq adds them to message metadata).
        self.zap_metadata = EMPTY
        #: User-Id from the ZAP reply (b"" without ZAP).
        self.user_id = b""
        self._status = MechanismStatus.HANDSHAKING
        self._outbox: deque[bytes] = deque()
        self._zap_out: list[bytes] | None = None

    # ------------------------------------------------------------ interface
    def configure(
        self,
        *,
        socket_type: str,
        check_socket_type: bool | None = None,
        identity: bytes | _Keep | None = KEEP,
        metadata: Mapping[str, bytes] | None = None,
    ) -> None:
        """Set what the socket knows, before the handshake starts.

        The connection calls it with `socket_type` and `check_socket_type`;
        the socket layer may call it first with `identity` and `metadata`
        (a mechanism factory need not know them). Arguments left out keep
        their current value.
        """
        self.socket_type = socket_type
        if check_socket_type is not None:
            self.check_socket_type = check_socket_type
        if identity is not KEEP:
            self.identity = identity
        if metadata is not None:
            self.properties = dict(metadata)

    @property
    def status(self) -> MechanismStatus:
        return self._status

    @abstractmethod
    def start(self, peer: PeerGreeting) -> None:
        """The peer's greeting arrived; queue the first command(s)."""

    def next_handshake_command(self) -> bytes | None:
        """The next command body to send, or None when nothing is due now."""
        return self._outbox.popleft() if self._outbox else None

    @abstractmethod
    def process_handshake_command(self, body: bytes) -> None:
        """Handle one command body received during the handshake."""

    def wants_input(self) -> bool:
        """May the connection feed it another handshake command now?

        False while the mechanism waits for something else (e.g. a ZAP
        reply before it can judge the next command); received commands then
        stay buffered until `zap_reply` is processed.
        """
        return True

    def zap_request(self) -> list[bytes] | None:
        """ZAP request frames to deliver (once), or None."""
        frames, self._zap_out = self._zap_out, None
        return frames

    def zap_reply(self, frames: Sequence[bytes]) -> None:
        """The ZAP handler answered; mechanisms that use ZAP override this."""
        raise ProtocolError("ZAP reply without a request", code=ZMTP_UNEXPECTED_COMMAND)

    def encode_frame(self, flags: int, body: bytes) -> tuple[int, bytes]:
        """Wrap one outgoing frame (only called when `transforms_frames`)."""
        return flags, body

    def decode_frame(self, flags: int, body: bytes) -> tuple[int, bytes]:
        """Unwrap one incoming frame (only called when `transforms_frames`)."""
        return flags, body

    # -------------------------------------------------- helpers for subclasses
    def _send(self, body: bytes) -> None:
        """Queue a command body for `next_handshake_command`."""
        self._outbox.append(body)

    def _set_status(self, status: MechanismStatus) -> None:
        self._status = status

    def _ready_properties(self) -> bytes:
        """Socket-Type, Identity (if set) and extra properties, encoded.

        Without extra properties the list depends on the socket type and
        identity only, so it is encoded once and then looked up: every
        handshake sends one, and encoding it cost about 7k instructions
        compiled per connection (issue 14)."""
        if self.properties:  # usually none: Mapping.items() is interpreted code
            return encode_properties(self._property_items() + list(self.properties.items()))
        key = (self.socket_type, self.identity)
        encoded = _READY_CACHE.get(key)
        if encoded is None:
            encoded = encode_properties(self._property_items())
            if len(_READY_CACHE) >= _READY_CACHE_MAX:
                _READY_CACHE.clear()  # an identity per socket must not grow it for ever
            _READY_CACHE[key] = encoded
        return encoded

    def _property_items(self) -> list[tuple[str, bytes]]:
        items: list[tuple[str, bytes]] = [(PROPERTY_SOCKET_TYPE, self.socket_type.encode())]
        if self.identity is not None:
            items.append((PROPERTY_IDENTITY, self.identity))
        return items

    def _accept_properties(self, data: bytes) -> None:
        """Parse the peer's properties and check its Socket-Type.

        A missing Socket-Type is accepted (RFC 37 says SHOULD; libzmq does
        not require it). An incompatible one is refused with an ERROR
        command (RFC 37; libzmq just closes) and INVALID_METADATA, the code
        libzmq's PLAIN/CURVE report when ``parse_metadata`` refuses it.
        """
        self.peer_metadata = parse_properties_shared(data, code=ZMTP_INVALID_METADATA)
        peer_type = self.peer_metadata.get(PROPERTY_SOCKET_TYPE)
        if (
            self.check_socket_type
            and peer_type is not None
            and not compatible(self.socket_type, peer_type.decode("latin-1"))
        ):
            shown = peer_type.decode("latin-1")
            self._fail(
                ProtocolError(
                    f"incompatible socket types: we are {self.socket_type}, peer is {shown!r}",
                    code=ZMTP_INVALID_METADATA,
                ),
                error_reason=f"Incompatible Socket-Type {shown}".encode("latin-1"),
            )

    def _fail(self, error: ProtocolError, *, error_reason: bytes | None) -> NoReturn:
        """Queue ERROR(`error_reason`) unless None, enter ERROR, raise."""
        if error_reason is not None:
            self._send(commands.error(error_reason))
        self._status = MechanismStatus.ERROR
        raise error

    def _peer_error(self, data: bytes) -> NoReturn:
        """The peer sent ERROR with `data` (after the name)."""
        reason = commands.parse_error(data)
        self._status = MechanismStatus.ERROR
        text = reason.decode("utf-8", "replace")
        raise ProtocolError(f"peer sent ERROR: {text}", kind="peer", peer_reason=reason)

    def _request_zap(self, credentials: Sequence[bytes] = ()) -> None:
        """Queue a ZAP request for this mechanism with `credentials`."""
        assert self.zap is not None
        self._zap_out = zap_request_frames(self.zap, self.name, credentials)

    def _take_zap_reply(self, frames: Sequence[bytes]) -> ZapReply:
        """Check a ZAP reply and keep its User-Id and metadata."""
        reply = parse_zap_reply(frames)
        self.user_id = reply.user_id
        self.zap_metadata = reply.metadata
        return reply

    def _zap_refused(self, reply: ZapReply) -> NoReturn:
        """ZAP said no (300/400/500): ERROR with the status code as reason
        (none for 300, a temporary failure: RFC 27 and CurveZMQ disconnect
        silently then), then ``ProtocolError(kind="auth")`` - as libzmq's
        ``zap_client_common_handshake_t``."""
        text = reply.status_text.decode("utf-8", "replace")
        self._fail(
            ProtocolError(
                f"ZAP refused the peer: {reply.status_code} {text}",
                kind="auth",
                zap_status=reply.status_code,
            ),
            error_reason=None if reply.status_code == 300 else str(reply.status_code).encode(),
        )
