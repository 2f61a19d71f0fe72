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

This module is the data path in (bytes fed, messages and commands parsed)
and the clocks; the constructor, the state and the output are
`ConnectionBase`'s (connection_base.py), the handshake
`ConnectionHandshake`'s (handshake.py): `ZMTPConnection` derives from the
handshake, which derives from the base.

Not thread-safe: the session serialises calls (see docs/design.md).
"""

from __future__ import annotations

from typing import Final

from . import commands
from .errors import ProtocolError, internal_error, timeout_error
from .frames import FLAG_COMMAND, FLAG_MORE, Buffer
from .handshake import ConnectionHandshake
from .socktypes import GROUP_PUBLISHERS

#: PONGs encoded between two takes of the output before the rest coalesce
#: into one owed PONG (for the latest PING): a peer that reads answers every
#: PING, as libzmq does; one that floods PINGs and reads nothing costs at most
#: this many PONGs and one more (issue 12; libzmq's engine owes one).
PONG_BACKLOG: Final = 16


class ZMTPConnection(ConnectionHandshake):
    """One ZMTP connection; see the module docstring for the protocol."""

    # The state, the constructor and the output are `ConnectionBase`'s
    # (connection_base.py), the handshake `ConnectionHandshake`'s (handshake.py).
    __slots__ = ()

    # ------------------------------------------------------------ input state
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
    def pressure_bytes(self) -> int:
        """`unparsed_bytes` as back-pressure counts them: one large frame
        that has all arrived does not count (`FrameDecoder.pressure`)."""
        return self._decoder.pressure

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
