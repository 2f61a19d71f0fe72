"""Sessions: what sits between a socket's pipe and one ZMTP connection at a time.

A session owns the session-side endpoint of a pipe pair and the current
`ZMTPConnection`. A driver (the I/O thread's, or asyncio's) owns
the OS socket and moves bytes; everything else - handshake results, HWM
back-pressure, lazy parsing, linger, reconnect pacing, monitor events - is
decided here, once, for both drivers.

Threads. The driver calls in from its thread; the socket's thread calls in through the pipe
(`refill` when its queue runs dry, `read_activated` when it queued output, `pipe_closed` on
close). `lock` serialises every use of the connection object; nothing blocks holding it.

Lifecycle.
- connect side: made by connect(); lives until the socket closes or the endpoint is
  disconnected; survives reconnects and keeps its pipe (messages queue while
  disconnected), unless IMMEDIATE is set: then the pipe exists only while connected.
- bind side: made per accepted connection; gone with it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from purezmq import constants as C
from purezmq._routing.pipe import Pipe, pipepair
from purezmq._zmtp import ProtocolError, ZMTPConnection
from purezmq._zmtp.frames import Buffer
from purezmq._zmtp.raw import RawConnection

from .clock import monotonic
from .connections import Backoff, Connection, open_connection
from .failures import may_reconnect, report_failure
from .intake import ReadAhead, buffer_has_room, bytes_arrived, parse_batch, read_ahead, salvage
from .outflow import DRAIN_AT, Linger, encode_batch, has_queued_output, unhook
from .stats import ConnectionCounters
from .zap import SessionZap, zap_properties

if TYPE_CHECKING:
    from .protocols import EngineHandle, SessionOwner
    from .session_config import SessionConfig

log = logging.getLogger("purezmq")

_EVENT_CONNECTED: Final = int(C.EVENT_CONNECTED)
_EVENT_ACCEPTED: Final = int(C.EVENT_ACCEPTED)
_EVENT_DISCONNECTED: Final = int(C.EVENT_DISCONNECTED)
_EVENT_HANDSHAKE_SUCCEEDED: Final = int(C.EVENT_HANDSHAKE_SUCCEEDED)


class Session:
    """Bridges one pipe and successive ZMTP connections (see module docstring)."""

    def __init__(self, owner: SessionOwner, config: SessionConfig) -> None:
        self.owner = owner
        self.config = config
        self.monitor = owner.monitor
        #: The socket's record of its direct writes, which engines consult.
        self.burst = owner.burst
        self.lock = lock = threading.Lock()
        # Bound once for the per-message paths (receive_with, collect_output):
        # a `with` on a lock is about 1,200 instructions compiled, these 670.
        self._acquire: Callable[[], bool] = lock.acquire
        self._release: Callable[[], None] = lock.release
        self.conn: Connection | None = None
        self.engine: EngineHandle | None = None
        #: Our endpoint of the pipe pair (the socket holds `pipe.peer`).
        self.pipe: Pipe | None = None
        self.peer_address = ""
        self._handshaken = False
        self._identified = False
        self._input_paused = False
        self._done = False
        self._readahead = ReadAhead()
        self._backoff = Backoff(config.reconnect_ivl, config.reconnect_ivl_max)
        self._fd = -1
        self._no_reconnect = False
        #: A failure met while encoding, for the driver's timer to act on.
        self._failure: ProtocolError | None = None
        self.counters = ConnectionCounters()  # for Socket.get_stats
        self._linger = Linger(config.linger)
        self._zap = SessionZap(owner.ctx)
        #: The driver's own bookkeeping when the session ends (after the owner's).
        self.on_done: Callable[[Session], None] | None = None
        if config.connect_side and not config.immediate:
            self._make_pipe()

    def __repr__(self) -> str:
        side = "connect" if self.config.connect_side else "bind"
        return f"<Session {side} {self.config.endpoint} {self.peer_address}>"

    # ------------------------------------------------------------ pipe
    def _make_pipe(
        self, conn: Connection | None = None, meta: dict[str, str] | None = None
    ) -> Pipe:
        """Make the pipe pair to the socket; `conn` and `meta` describe the peer
        when the pipe is made after its handshake (IMMEDIATE, bind side)."""
        ours, theirs = pipepair(self, None)
        cfg = self.config
        # Our outbound (toward the socket) is bounded by RCVHWM; the socket's by SNDHWM.
        ours.set_hwms(0 if cfg.conflate else cfg.rcvhwm, 0 if cfg.conflate else cfg.sndhwm)
        ours.conflate = theirs.conflate = cfg.conflate
        theirs.routing_id = cfg.connect_routing_id
        theirs.label = cfg.endpoint
        theirs.shares_messages = True  # we only encode what the socket writes
        theirs.refill = self.refill
        theirs.set_drain(self.drain_output, DRAIN_AT)
        if conn is not None and meta is not None:
            theirs.metadata = meta
            theirs.peer_identity = conn.peer_identity
            self._identified = True
        self.pipe = ours
        self.owner.attach_pipe_from_session(theirs, self)
        return ours

    # PipeOwner: called from the socket's thread.
    def read_activated(self, pipe: Pipe) -> None:
        """The socket queued messages for the peer."""
        engine = self.engine
        if engine is not None and self._handshaken:
            engine.kick_output()

    def write_activated(self, pipe: Pipe) -> None:
        """The socket drained our outbound queue to its low-water mark."""
        engine = self.engine
        if engine is not None:
            engine.resume_input()

    def set_linger(self, linger: float | None) -> None:
        """The socket's LINGER at close time (libzmq uses that, not the value at
        connect time). Seconds; None = forever. Call before closing the pipe."""
        self._linger.seconds = linger

    def pipe_closed(self, pipe: Pipe) -> None:
        """The socket closed its side: deliver what is queued (LINGER), then end."""
        if pipe is not self.pipe:
            return  # a pipe we let go (IMMEDIATE, broken connection) acknowledged
        linger = self._linger
        linger.start(monotonic())
        engine = self.engine
        if linger.seconds == 0 or (engine is None and not has_queued_output(self.pipe)):
            # LINGER 0 drops what is queued (libzmq): no flush, no timer. The
            # engine still writes what it had encoded (EngineCore.close).
            self.finish()
        elif engine is not None:
            engine.kick_output()
            engine.schedule(linger.deadline)

    def hiccuped(self, pipe: Pipe) -> None:  # pragma: no cover - sessions never hiccup themselves
        pass

    # ------------------------------------------------------------ driver side
    def start_connection(
        self, engine: EngineHandle, peer: str, fd: int = -1, sent: int = 0
    ) -> Connection:
        """A new OS connection is up (`sent`: signature bytes written): make its connection."""
        cfg = self.config
        conn = open_connection(cfg, peer, monotonic(), sent)
        with self.lock:
            self.conn = conn
            self.engine = engine
            self.peer_address = peer
            self._handshaken = False
            self._input_paused = False
            self._zap.reset()
            self._fd = fd
        kind = _EVENT_CONNECTED if cfg.connect_side else _EVENT_ACCEPTED
        self.monitor.event(kind, fd, cfg.endpoint)
        if isinstance(conn, RawConnection):
            # A STREAM connection has no handshake: the peer is there at once.
            with self.lock:
                self._handshake_complete(conn)
            pipe = self.pipe
            if cfg.stream_notify and pipe is not None:
                pipe.force_write([b""])  # "a peer connected", as libzmq's raw engine says it
        else:
            engine.schedule(self.next_deadline())
        return conn

    def receive_with(
        self,
        recv_into: Callable[[memoryview], int],
        notify: bool = True,
        sizehint: int = -1,
        recv: Callable[[int], bytes] | None = None,
    ) -> int:
        """Fill the connection's buffer with `recv_into` and take the bytes in. Driver thread
        (or the reader's, on the direct read path, which passes notify=False: it parses right
        away, so nobody needs waking and no read-ahead timer). Returns the byte count (0 = end
        of stream). The read runs under the lock: the reader's thread may be parsing
        (compacting) the same buffer. `sizehint`: bytes waiting in the kernel, if known. With
        `recv`, a big frame's body that has all arrived is received as bytes of its own
        (`FrameDecoder.direct_body`: no storage, no zero fill, no copy). Raises the read's
        OSError and ProtocolError (then `connection_failed`)."""
        conn = self.conn
        assert conn is not None
        self._acquire()
        try:
            zmtp = conn if self._handshaken and isinstance(conn, ZMTPConnection) else None
            body = zmtp.direct_body(sizehint) if zmtp is not None and recv is not None else 0
            now = monotonic()
            if zmtp is not None and recv is not None and body:
                data = recv(body)
                n = len(data)
                if n:
                    zmtp.body_received(data, now)
            else:
                n = recv_into(conn.get_buffer(sizehint))
                if n:
                    conn.buffer_updated(n, now)
            if not n:
                return 0
            self.counters.bytes_in += n
            if not self._handshaken:
                if isinstance(conn, ZMTPConnection):
                    self._zap.send_pending(conn, self._wake_timer)  # a mechanism asked ZAP
                if not conn.handshake_done or not self._handshake_complete(conn, notify):
                    return n  # nothing to parse (yet): nobody to wake
            if not buffer_has_room(conn, self.pipe):
                self._input_paused = True
        finally:
            self._release()
        if notify:
            bytes_arrived(self.pipe, self._readahead, self.engine, now)
        else:
            pipe = self.pipe
            if pipe is not None and pipe.claim_reader():
                self.owner.read_activated_here(pipe.peer)
        return n

    @property
    def handshaken(self) -> bool:
        """The current connection finished its handshake (messages can flow)."""
        return self._handshaken

    @property
    def input_paused(self) -> bool:
        """The receive buffer is full of unparsed bytes: stop reading for now."""
        return self._input_paused

    def _handshake_complete(self, conn: Connection, flush_follows: bool = False) -> bool:
        """With the lock held, once per connection; True if bytes wait to be parsed.
        `flush_follows`: the driver's read writes the connection's output next
        (our READY, and with it the early messages: no kick, no wake-up)."""
        self._handshaken = True
        self._backoff.reset()
        meta = zap_properties(conn)  # User-Id and ZAP metadata win over ZMTP's, as in libzmq
        for k, v in conn.peer_metadata.pairs():
            meta.setdefault(k, v.decode("utf-8", "replace"))
        meta["Peer-Address"] = self.peer_address
        pipe = self.pipe
        if pipe is None:
            pipe = self._make_pipe(conn, meta)
        else:
            peer_end = pipe.peer
            peer_end.metadata = meta
            if not self._identified:
                peer_end.peer_identity = conn.peer_identity
                self._identified = True
                if self.config.wants_identity:
                    self.owner.post_identified(peer_end)
        self.monitor.event(_EVENT_HANDSHAKE_SUCCEEDED, 0, self.config.endpoint)
        engine = self.engine
        if engine is not None:
            # Heartbeats start now: arm the timer for them.
            engine.schedule(self.next_deadline())
            if (pipe.peer.outbound_size or pipe.peer.shared) and not (
                flush_follows and conn.has_output
            ):
                engine.kick_output()
        return conn.has_pending_input

    # ------------------------------------------------------------ parsing
    def refill(self, look: bool = True) -> None:
        """Parse buffered bytes into the socket's queue: the reader's thread
        calls this when its queue is empty (lazy parsing, no thread hop). With
        `look`, a parked connection is read too; the pipe's second call of a
        read passes False (one system call finding nothing per read is enough)."""
        conn = self.conn
        if conn is None or not self._handshaken:
            return
        if not conn.has_pending_input:
            if not look:
                return
            # Nothing buffered. A connection parked by the direct read path is
            # read by nobody else right now: look at the socket itself.
            engine = self.engine
            if engine is None:
                return
            engine.read_if_parked()
            if not conn.has_pending_input:
                return
        self._parse_into_pipe(conn)

    def _parse_into_pipe(self, conn: Connection, timer: bool = False, idle: bool = True) -> None:
        """The reader's parse, or (`timer`) read-ahead's: `idle` = nobody parsed meanwhile."""
        pipe = self.pipe
        if pipe is None:
            return
        with self.lock:
            if self.conn is not conn:
                return
            parsed, failure = read_ahead(conn, pipe, idle) if timer else parse_batch(conn, pipe)
            if not parsed:
                return
            self._readahead.parsed()
            resume = self._input_paused and buffer_has_room(conn, pipe)
            if resume:
                self._input_paused = False
            has_output = conn.has_output
        engine = self.engine
        if engine is None:
            return
        if failure is not None:
            self._fail_from_any_thread(failure)
            return
        if resume:
            engine.resume_input()
        if has_output:
            engine.kick_output()
        # A PING may have armed its TTL: make sure a timer covers it.
        engine.schedule(self.next_deadline())

    # ------------------------------------------------------------ output
    def collect_output(self) -> list[Buffer]:
        """Encode queued messages; return the chunks to write. Caller holds no lock.

        A connection that failed (a bad frame parsed meanwhile, a mechanism refusing to encode)
        takes nothing more, and its error is the driver's to act on, from its timer: never the
        sending application's - a peer cannot make `send()` raise."""
        conn = self.conn
        pipe = self.pipe
        if conn is None:
            return []
        self._acquire()
        try:
            if self._handshaken and pipe is not None and conn.close_reason is None:
                try:
                    encode_batch(pipe, conn)
                except ProtocolError as e:
                    self._failure = e
            try:
                chunks = conn.data_to_send()
            except ProtocolError as e:  # contained inside the connection (issue 12)
                self._failure = e
                chunks = []
        finally:
            self._release()
        if self._failure is not None:
            self._wake_timer()
        return chunks

    def drain_output(self) -> None:
        """The socket's queue to us is long (or full): write it now, from the
        caller's thread, if the connection is up and nobody else is writing."""
        engine = self.engine
        if engine is not None and self._handshaken:
            engine.flush_now()

    def output_drained(self) -> None:
        """The driver wrote all it had: a closing session ends once its DELIMITER is out."""
        if self._linger.closing and self.pipe is not None and self.pipe.in_closed:
            self.finish()

    # ------------------------------------------------------------ time
    def next_deadline(self) -> float | None:
        """The earliest of the connection's timers, read-ahead and linger. Asked
        after every parse: written out (a loop over a tuple cost 800 instructions)."""
        conn = self.conn
        best = conn.next_deadline() if conn is not None else None
        d = self._readahead.deadline
        if d is not None and (best is None or d < best):
            best = d
        d = self._linger.pending
        return d if d is not None and (best is None or d < best) else best

    def on_timer(self) -> None:
        """The driver's timer fired (driver thread). Raises ProtocolError."""
        now = monotonic()
        if self._linger.expired(now):
            self.finish()
            return
        conn = self.conn
        if conn is None:
            return
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure  # met while encoding (collect_output)
        with self.lock:
            if self._zap.pending and isinstance(conn, ZMTPConnection):
                # The ZAP handler answered: its reply may finish the handshake.
                self._zap.deliver(conn, now)
                if conn.handshake_done and not self._handshaken and self._handshake_complete(conn):
                    bytes_arrived(self.pipe, self._readahead, self.engine, now)
            conn.on_timer(now)
            has_output = conn.has_output
        readahead = self._readahead
        if readahead.fire(now) and conn.has_pending_input:
            self._parse_into_pipe(conn, True, readahead.nobody_parsed)
            if self.conn is conn:
                readahead.rearm_unless_full(conn, self.pipe, now)
        engine = self.engine
        if engine is not None:
            if has_output:
                engine.kick_output()
            engine.schedule(self.next_deadline())

    def _wake_timer(self) -> None:
        """Run `on_timer` on the driver soon (any thread): ZAP answered, or encoding failed."""
        engine = self.engine
        if engine is not None:
            engine.schedule(monotonic())

    # ------------------------------------------------------------ failures
    def _fail_from_any_thread(self, err: ProtocolError) -> None:
        """A protocol error found while parsing on the reader's thread."""
        log.debug("purezmq: %s: closing connection: %s", self.config.endpoint, err.reason)
        self.connection_failed(err)
        engine = self.engine
        if engine is not None:
            engine.close()

    def connection_failed(self, err: ProtocolError) -> None:
        """The connection broke the protocol (found by the driver or the reader):
        report it, and do not reconnect unless it was a timeout."""
        log.debug("purezmq: %s: connection closed: %s", self.config.endpoint, err.reason)
        report_failure(self.monitor, self.config.endpoint, err)
        if err.during_handshake:
            self.counters.handshake_failures += 1
        if not may_reconnect(err):
            self._no_reconnect = True

    def connection_lost(self) -> float | None:
        """The OS connection is gone. Returns the delay before reconnecting, or None (over)."""
        conn, pipe, cfg = self.conn, self.pipe, self.config
        if conn is not None and pipe is not None and self._handshaken:
            with self.lock:  # deliver what the peer sent before it went away
                salvage(conn, pipe)
            if pipe.reader_asleep and pipe.outbound_size:
                pipe.notify_reader()
        if cfg.raw and cfg.stream_notify and self._handshaken and self.pipe is not None:
            self.pipe.force_write([b""])  # "the peer is gone"
        with self.lock:
            was_up = self.conn is not None
            self.conn = None
            self.engine = None
            self._zap.reset()
            handshaken = self._handshaken
            self._handshaken = False
            self._readahead.cancel()
        if was_up:
            self.monitor.event(_EVENT_DISCONNECTED, self._fd, self.config.endpoint)
        if not cfg.connect_side or self._done or self._no_reconnect:
            self.finish()
            return None
        if self._linger.closing and (not has_queued_output(self.pipe) or self._linger.seconds == 0):
            self.finish()
            return None
        if cfg.immediate and self.pipe is not None:
            # IMMEDIATE: no pipe while disconnected (queued messages are dropped).
            pipe, self.pipe = self.pipe, None
            self._identified = False
            pipe.close()
        elif handshaken and self.pipe is not None:
            self.pipe.hiccup()
        self.counters.reconnects += 1
        return self.next_reconnect_delay()

    def next_reconnect_delay(self) -> float:
        """How long the driver waits before the next connect attempt."""
        return self._backoff.next_delay()

    def linger_expired(self) -> bool:
        """The socket closed and LINGER ran out (never true with LINGER -1)."""
        return self._linger.expired(monotonic())

    @property
    def done(self) -> bool:
        return self._done

    def finish(self) -> None:
        """End the session for good: close our pipe end and the connection
        (unbind ends the accepted ones this way, dropping what they queue)."""
        if self._done:
            return
        self._done = True
        pipe = self.pipe
        if pipe is not None:
            pipe.close()
            pipe.drain_inbound()
            unhook(pipe)
        engine = self.engine
        if engine is not None:
            engine.close()
        self.owner.session_done(self)
        if self.on_done is not None:
            self.on_done(self)
