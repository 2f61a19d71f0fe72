"""A ZMTP connection's state and its output: the base of `ZMTPConnection`.

`ConnectionBase` is what the layers of a connection share: its state (the
constructor, the error that ends it) and what it sends - messages encoded
once the handshake is done (subscriptions as commands where the peer's
revision wants them, frames through a transforming mechanism), commands,
the PONGs it owes. The handshake (handshake.py) and the data path in
(connection.py) derive from it, in that order. One class, three modules:
mypyc compiles a class from one module, so `ZMTPConnection` is split by
inheritance; no method of a base is overridden, so mypyc still calls them
directly, and the attributes, all set by the constructor here, are still
plain struct fields. See connection.py for the protocol as a whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from . import commands
from .decoder import FrameDecoder
from .errors import ProtocolError, internal_error
from .frames import FLAG_COMMAND, FLAG_MORE, Buffer, FrameEncoder
from .greeting import signature
from .heartbeat import SAME_AS_IVL, Heartbeat
from .legacy import LegacyHandshake
from .mechanisms.base import Mechanism
from .metadata import EMPTY
from .socktypes import GROUP_JOINERS, PUBLISHERS, is_known

_SUBSCRIBE_MSG: Final = 0x01
_CANCEL_MSG: Final = 0x00


def _first_byte(frame: Buffer) -> int:
    """First byte of a frame, -1 when empty (any buffer type)."""
    view = memoryview(frame)
    if view.nbytes == 0:
        return -1
    return view.cast("B")[0] if view.format != "B" or view.ndim != 1 else view[0]


class ConnectionBase:
    """A ZMTP connection's state and output (see the module docstring);
    the connection itself is `ZMTPConnection` (connection.py)."""

    __slots__ = (
        "_check_type",
        "_decoder",
        "_early",
        "_encoder",
        "_error",
        "_heartbeat",
        "_hs_deadline",
        "_last_rx",
        "_legacy",
        "_legacy_ok",
        "_major_sent",
        "_pong",
        "_pongs",
        "_publisher",
        "_routing_id",
        "_state",
        "_sub_commands",
        "_tcur",
        "_transform",
        "_zap_out",
        "handshake_done",
        "mechanism",
        "peer_identity",
        "peer_major",
        "peer_metadata",
        "peer_minor",
        "peer_socket_type",
        "protocol",
        "socket_type",
    )

    def __init__(
        self,
        *,
        socket_type: str,
        mechanism: Mechanism,
        now: float,
        handshake_ivl: float = 30.0,
        heartbeat_ivl: float = 0.0,
        heartbeat_ttl: float = 0.0,
        heartbeat_timeout: float = SAME_AS_IVL,
        max_msg_size: int = -1,
        buffer_size: int = 256 * 1024,
        check_socket_type: bool = True,
        routing_id: bytes = b"",
        zap_enabled: bool = False,
        signature_sent: int = 0,
    ) -> None:
        """
        Args:
            socket_type: our type, e.g. "DEALER" (READY's Socket-Type).
            mechanism: a fresh mechanism for this connection.
            now: the caller's clock (seconds); every later `now` uses it too.
            handshake_ivl: seconds to finish greeting+handshake, 0 = no limit.
            heartbeat_ivl: seconds between our PINGs, 0 = none.
            heartbeat_ttl: TTL announced in our PINGs (seconds).
            heartbeat_timeout: seconds without traffic after a PING before the
                connection is dead; -1 = heartbeat_ivl (libzmq default).
            max_msg_size: largest frame accepted (libzmq checks per frame),
                -1 = unlimited.
            buffer_size: receive ring size it may grow to without pressure.
            check_socket_type: refuse peers whose Socket-Type is incompatible.
            routing_id: our ROUTING_ID, for the identity frame of ZMTP 1.0/2.0
                peers (and the length in our signature's padding).
            zap_enabled: a ZAP domain is set (libzmq's ``zap_enabled``): like
                any mechanism but NULL, it refuses ZMTP 1.0/2.0 peers.
            signature_sent: bytes of our signature the driver already wrote
                (`purezmq._core.connections.signature_for`).

        Raises:
            ValueError: `socket_type` is not a ZeroMQ socket type name.
        """
        if not is_known(socket_type):
            raise ValueError(f"unknown socket type {socket_type!r}")
        self.socket_type = socket_type
        self.mechanism = mechanism
        mechanism.configure(socket_type=socket_type, check_socket_type=check_socket_type)
        self._decoder = FrameDecoder(buffer_size=buffer_size, max_msg_size=max_msg_size)
        self._encoder = FrameEncoder()
        sig = signature(len(routing_id))
        if signature_sent < len(sig):
            self._encoder.add_raw(sig[signature_sent:])
        self._major_sent = False
        self._routing_id = routing_id
        self._check_type = check_socket_type
        # ZMTP 1.0/2.0 have no security: only NULL without ZAP may downgrade.
        self._legacy_ok = not zap_enabled and mechanism.name == b"NULL" and mechanism.zap is None
        self._legacy: LegacyHandshake | None = None
        self._state = "greeting"
        self._hs_deadline = now + handshake_ivl if handshake_ivl > 0 else None
        self._heartbeat = Heartbeat(ivl=heartbeat_ivl, ttl=heartbeat_ttl, timeout=heartbeat_timeout)
        self._last_rx = now
        self._error: ProtocolError | None = None
        # Sent before the handshake ended; a list only once there is some.
        self._early: list[Sequence[Buffer]] | None = None
        self._zap_out: list[bytes] | None = None
        self._publisher = socket_type in PUBLISHERS
        self._sub_commands = False
        self._transform = False
        self._tcur: list[bytes] = []  # partial message (transforming mechanisms)
        # The context of the PONG owed to the peer's latest PING (None: none
        # owed). One at most, as libzmq: a peer that floods PINGs and reads
        # nothing cannot grow our output (issue 12).
        self._pong: bytes | None = None
        self._pongs = 0  # PONGs encoded since the output was last taken
        #: True once both sides completed the mechanism handshake.
        self.handshake_done = False
        #: the peer's Socket-Type ("" if it sent none).
        self.peer_socket_type = ""
        #: the peer's Identity property (b"" if it sent none).
        self.peer_identity = b""
        #: every ZMTP property the peer sent; case-insensitive look-ups.
        self.peer_metadata = EMPTY
        #: the peer's greeting version (-1 until its greeting arrived; the
        #: major stays -1 for a ZMTP 1.0 peer without a revision).
        self.peer_major = -1
        self.peer_minor = -1
        #: "ZMTP/3.1", "ZMTP/3.0", "ZMTP/2.0" or "ZMTP/1.0" once known.
        self.protocol = ""

    # ------------------------------------------------------------ state
    @property
    def state(self) -> str:
        """ "greeting", "handshake", "ready" or "closed" (after an error)."""
        return "closed" if self._error is not None else self._state

    @property
    def close_reason(self) -> ProtocolError | None:
        """The error that ended the connection, or None while it lives."""
        return self._error

    @property
    def has_output(self) -> bool:
        return bool(self._encoder) or self._pong is not None

    @property
    def queued_output_bytes(self) -> int:
        """Bytes encoded and not yet taken by `data_to_send`, with the PONG
        owed (a gauge for tests and diagnostics: it walks the queue)."""
        pong = self._pong
        return self._encoder.queued_bytes + (0 if pong is None else len(pong) + 7)

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    def _failed(self, error: ProtocolError) -> ProtocolError:
        """Record `error` as the end of this connection and return it."""
        if self._error is None:
            error.during_handshake = not self.handshake_done
            self._error = error
        return self._error

    # ----------------------------------------------------------- data out
    def send_messages(self, msgs: Iterable[Sequence[Buffer]]) -> None:
        """Encode whole messages (lists of frames) for sending.

        Before the handshake is done they wait (the peer's version decides
        how subscriptions go out). Frames are referenced until taken by
        `data_to_send`; big ones until the chunk holding them is written.
        """
        self._raise_if_failed()
        try:
            if not self.handshake_done:
                early = self._early
                if early is None:
                    early = self._early = []
                early.extend(msgs)
            elif self._transform or self._sub_commands:
                for msg in msgs:
                    self._send_general(msg)
            else:
                self._encoder.add_messages(msgs)
        except ProtocolError as exc:
            raise self._failed(exc) from None
        except Exception as exc:
            raise self._failed(internal_error(exc)) from exc

    @property
    def plain_framing(self) -> bool:
        """Do messages go out as plain ZMTP 3 frames (no mechanism transform,
        no subscription commands, not a ZMTP 1.0/2.0 peer)? Then bytes encoded
        once for many connections (`send_encoded`) are right for this one."""
        return (
            self.handshake_done
            and not self._transform
            and not self._sub_commands
            and type(self._encoder) is FrameEncoder
        )

    def send_encoded(self, chunks: list[bytes | bytearray | memoryview]) -> None:
        """Queue messages already encoded as plain ZMTP 3 frames (see
        `plain_framing`), shared with other connections: not modified."""
        self._raise_if_failed()
        self._encoder.add_encoded(chunks)

    def _send_general(self, msg: Sequence[Buffer]) -> None:
        """One message through subscription conversion and/or the mechanism."""
        if self.socket_type in GROUP_JOINERS:  # DISH: JOIN/LEAVE bodies only
            if len(msg) == 1:
                self.send_command(bytes(memoryview(msg[0]).cast("B")))
            return
        if self._sub_commands and len(msg) == 1:
            first = _first_byte(msg[0])
            if first in (_SUBSCRIBE_MSG, _CANCEL_MSG):
                topic = bytes(memoryview(msg[0]).cast("B")[1:])
                make = commands.subscribe if first == _SUBSCRIBE_MSG else commands.cancel
                self.send_command(make(topic))
                return
        if not self._transform:
            self._encoder.add_messages((msg,))
            return
        last = len(msg) - 1
        for index, frame in enumerate(msg):
            flags, wire = self.mechanism.encode_frame(
                FLAG_MORE if index < last else 0, bytes(frame)
            )
            self._encoder.add_frame(wire, flags)

    def send_command(self, body: bytes) -> None:
        """Queue a command (body = name-len name data); internal use."""
        if self._transform and self.handshake_done:
            flags, wire = self.mechanism.encode_frame(FLAG_COMMAND, body)
            self._encoder.add_frame(wire, flags)
        else:
            self._encoder.add_command(body)

    def data_to_send(self) -> list[bytes | bytearray | memoryview]:
        """Everything queued, in order, as chunks for one ``sendmsg``; clears
        the queue. The caller handles partial writes. Raises ProtocolError
        only if taking them fails (the connection is then dead)."""
        try:
            self._pongs = 0
            pong = self._pong
            if pong is not None:
                self._pong = None
                if self._error is None:  # a dead connection owes nothing
                    self.send_command(commands.pong(pong))
            return self._encoder.take()
        except Exception as exc:
            raise self._failed(internal_error(exc)) from exc
