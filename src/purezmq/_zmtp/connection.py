"""`ZMTPConnection`: one ZMTP connection from greeting to close, no I/O.

It speaks ZMTP 3.1 and 3.0, and the older protocols libzmq still accepts:
ZMTP/2.0 and ZMTP/1.0, chosen once from the peer's first bytes (see
greeting.py). Each revision is a codec - a decoder and an encoder class with
the same calls - so the data path below never asks which one it has; an
older peer's handshake (socket type and identity frames) is `legacy.py`'s.

The driver (thread or asyncio) moves bytes, the session moves messages; this
object only transforms one into the other and keeps the protocol's clocks
as arithmetic on the `now` it is given. Everything is pull-based: no
callbacks into the caller.

Life of a connection:

- construction queues the 10-byte signature (``data_to_send()``);
- ``buffer_updated`` / ``receive_data`` feed bytes; the greeting and the
  mechanism handshake are processed at once (replies queued for sending);
- once ``handshake_done``, input is only stored; ``pull(n)`` parses up to n
  messages on the caller's thread, answering commands met on the way;
- ``send_messages`` encodes; ``data_to_send`` hands over chunks for one
  ``sendmsg`` (small frames joined, big frames by reference);
- ``next_deadline`` / ``on_timer(now)`` drive HANDSHAKE_IVL and heartbeats.

Failure: any method that meets bad input or a passed deadline raises
`ProtocolError` and the connection is dead; later calls raise the same
error again (``close_reason`` holds it). No other exception leaves this
object (issue 12's rule): an unexpected one from inside - a mechanism, the
crypto library, an allocation a peer's frame size asked for, a bug - is
contained the same way, as a ProtocolError (`internal_error`) that ends
this connection only, so no peer can reach the application or the I/O
loop through it. ``data_to_send()`` keeps working so
an ERROR command queued for the peer can still be flushed before closing.
If ``pull`` meets the error after decoding some messages, it returns those
first and raises on the next call, so nothing received intact is lost.

Not thread-safe: the session serialises calls (see docs/design.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from . import commands
from .decoder import FrameDecoder
from .errors import ZMTP_UNEXPECTED_COMMAND, ProtocolError, internal_error, timeout_error
from .frames import FLAG_COMMAND, FLAG_MORE, Buffer, FrameEncoder
from .greeting import (
    GREETING_SIZE,
    MAJOR_BYTE,
    PREFIX_SIZE,
    greeting_rest,
    parse_greeting,
    peer_revision,
    signature,
    signature_complete,
)
from .heartbeat import SAME_AS_IVL, Heartbeat
from .legacy import LegacyHandshake, refusal
from .mechanisms.base import Mechanism, MechanismStatus
from .metadata import PROPERTY_IDENTITY, PROPERTY_SOCKET_TYPE, Metadata
from .socktypes import GROUP_JOINERS, GROUP_PUBLISHERS, PUBLISHERS, SUBSCRIBERS, is_known

_SUBSCRIBE_MSG: Final = 0x01
_CANCEL_MSG: Final = 0x00
#: PONGs encoded between two takes of the output before the rest coalesce
#: into one owed PONG (for the latest PING): a peer that reads answers every
#: PING, as libzmq does; one that floods PINGs and reads nothing costs at most
#: this many PONGs and one more (issue 12; libzmq's engine owes one).
PONG_BACKLOG: Final = 16
#: Peer revisions below this are ZMTP 1.0/2.0 (libzmq speaks 3.1 to a 2).
_FIRST_3X_REVISION: Final = 2


def _first_byte(frame: Buffer) -> int:
    """First byte of a frame, -1 when empty (any buffer type)."""
    view = memoryview(frame)
    if view.nbytes == 0:
        return -1
    return view.cast("B")[0] if view.format != "B" or view.ndim != 1 else view[0]


class ZMTPConnection:
    """One ZMTP connection; see the module docstring for the protocol."""

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
        self._encoder.add_raw(signature(len(routing_id)))
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
        self._early: list[Sequence[Buffer]] = []  # sent before the handshake ended
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
        self.peer_metadata = Metadata()
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
    def has_pending_input(self) -> bool:
        """Received bytes not parsed yet (possibly only part of a frame)."""
        return self._decoder.has_pending

    def urgent_input(self) -> bool:
        """Do unparsed bytes hold a command or a malformed frame (or has the
        connection failed)? A session that leaves a backlog unparsed parses
        up to there now (intake.py; `FrameDecoder.urgent`)."""
        return self._error is not None or self._decoder.urgent()

    @property
    def unparsed_bytes(self) -> int:
        """Bytes received and not parsed yet: the driver's back-pressure gauge."""
        return self._decoder.buffered

    @property
    def receiving_big_frame(self) -> bool:
        """A large frame is still arriving. Reading must go on until it is
        complete: its storage is already allocated, and nothing can be parsed
        (so nothing can free room) before it ends."""
        return self._decoder.receiving_big

    @property
    def big_frame_remaining(self) -> int:
        """Bytes the peer must still send to complete the large frame arriving
        now (0: none). The driver may wait for that many before reading."""
        return self._decoder.big_remaining

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

    # ------------------------------------------------------------ input
    def get_buffer(self, sizehint: int = -1) -> memoryview:
        """A writable, non-empty view for ``recv_into``; valid until the
        next `buffer_updated` (which releases big-frame views)."""
        self._raise_if_failed()
        try:
            return self._decoder.get_buffer(sizehint)
        except Exception as exc:
            raise self._failed(internal_error(exc)) from exc

    def direct_body(self, arrived: int) -> int:
        """The size of a big frame's body to receive as bytes of its own now
        (`arrived`: bytes the kernel holds), or 0 (see FrameDecoder.direct_body)."""
        if self._error is not None or not self.handshake_done or self._transform:
            return 0
        return self._decoder.direct_body(arrived)

    def body_received(self, data: bytes, now: float) -> None:
        """The body `direct_body` asked for arrived: `data` is the frame."""
        self._raise_if_failed()
        self._decoder.body_received(data)
        self._last_rx = now
        self._heartbeat.traffic()

    def buffer_updated(self, nbytes: int, now: float) -> None:
        """`nbytes` were written into the last `get_buffer` view at `now`."""
        self._raise_if_failed()
        if nbytes <= 0:
            return
        try:
            self._decoder.buffer_updated(nbytes)
            self._last_rx = now
            self._heartbeat.traffic()
            if not self.handshake_done:
                self._advance_handshake(now)
        except ProtocolError as exc:
            self._drain_safely()
            raise self._failed(exc) from None
        except Exception as exc:
            raise self._failed(internal_error(exc)) from exc

    def receive_data(self, data: Buffer, now: float) -> None:
        """Feed bytes that were read elsewhere (copies them into the buffer)."""
        view = memoryview(data).cast("B")
        offset, total = 0, view.nbytes
        while offset < total:
            space = self.get_buffer(total - offset)
            count = min(len(space), total - offset)
            space[:count] = view[offset : offset + count]
            self.buffer_updated(count, now)
            offset += count

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
        if self._early:
            early, self._early = self._early, []
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

    # ------------------------------------------------------------ data in
    def pull(self, max_msgs: int) -> list[list[bytes]]:
        """Up to `max_msgs` complete messages parsed from buffered bytes.

        Commands met on the way are handled: PING is answered with PONG,
        SUBSCRIBE/CANCEL become ``[b"\\x01" + topic]`` / ``[b"\\x00" + topic]``
        messages for PUB/XPUB (ignored otherwise), ERROR ends the
        connection, others are ignored as libzmq does.
        """
        self._raise_if_failed()
        out: list[list[bytes]] = []
        if not self.handshake_done or max_msgs <= 0:
            return out
        try:
            if self._transform:
                self._pull_transformed(out, max_msgs)
                return out
            decoder = self._decoder
            while len(out) < max_msgs:
                body = decoder.decode(out, max_msgs - len(out))
                if body is None:
                    break
                msg = self._on_command(body)
                if msg is not None:
                    out.append(msg)
        except ProtocolError as exc:
            self._failed(exc)
            if not out:
                raise exc from None
        except Exception as exc:
            error = self._failed(internal_error(exc))
            if not out:
                raise error from exc
        return out

    def _pull_transformed(self, out: list[list[bytes]], max_msgs: int) -> None:
        """Frame-by-frame input through the mechanism's ``decode_frame``."""
        decoder, mechanism, cur = self._decoder, self.mechanism, self._tcur
        while len(out) < max_msgs:
            frame = decoder.next_frame()
            if frame is None:
                break
            flags, body = mechanism.decode_frame(*frame)
            if flags & FLAG_COMMAND:
                msg = self._on_command(body)
                if msg is not None:
                    out.append(msg)
                continue
            cur.append(body)
            if not flags & FLAG_MORE:
                out.append(cur)
                cur = []
        self._tcur = cur

    def _on_command(self, body: bytes) -> list[bytes] | None:
        """A command after the handshake; returns a message to deliver, if any."""
        name, data = commands.split_command(body)
        if name == commands.PING:
            ttl, context = commands.parse_ping(data)
            if self._pongs < PONG_BACKLOG:
                self._pongs += 1
                self.send_command(commands.pong(context))
            else:  # a backlog: owe one PONG, for the latest PING (PONG_BACKLOG)
                self._pong = context
            self._heartbeat.peer_ping(ttl, self._last_rx)
        elif name == commands.SUBSCRIBE:
            return [b"\x01" + data] if self._publisher else None
        elif name == commands.CANCEL:
            return [b"\x00" + data] if self._publisher else None
        elif name in (commands.JOIN, commands.LEAVE):
            # RADIO takes the command body as a message (socktypes).
            return [body] if self.socket_type in GROUP_PUBLISHERS else None
        elif name == commands.ERROR:
            reason = commands.parse_error(data)
            text = reason.decode("utf-8", "replace")
            raise ProtocolError(f"peer sent ERROR: {text}", kind="peer", peer_reason=reason)
        # PONG: its bytes already counted as traffic. READY and unknown
        # commands are ignored, as libzmq's session does.
        return None

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
                self._early.extend(msgs)
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

    # ------------------------------------------------------------ time
    def next_deadline(self) -> float | None:
        """When `on_timer` should run next (absolute, caller's clock)."""
        if self._error is not None:
            return None
        if not self.handshake_done:
            return self._hs_deadline
        try:
            return self._heartbeat.next_deadline()
        except Exception as exc:
            # Asked from everywhere, so it must not raise: a deadline long past
            # has the driver call `on_timer`, which reports the failure.
            self._failed(internal_error(exc))
            return 0.0

    def on_timer(self, now: float) -> None:
        """Fire the deadlines that passed: PINGs, timeouts."""
        self._raise_if_failed()
        if not self.handshake_done:
            if self._hs_deadline is not None and now >= self._hs_deadline:
                error = timeout_error("handshake timed out", during_handshake=True)
                raise self._failed(error)
            return
        try:
            heartbeat = self._heartbeat
            why = heartbeat.expired(now)
            if why is not None:
                raise timeout_error(why, during_handshake=False)
            if heartbeat.ping_due(now):
                self.send_command(commands.ping(heartbeat.ttl_deciseconds))
        except ProtocolError as exc:
            raise self._failed(exc) from None
        except Exception as exc:
            raise self._failed(internal_error(exc)) from exc
