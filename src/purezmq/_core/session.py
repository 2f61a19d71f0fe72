"""Sessions: what sits between a socket's pipe and one ZMTP connection at a time.

A session owns the session-side endpoint of a pipe pair and the current
`ZMTPConnection`. A driver (the threaded I/O driver now, asyncio later) owns
the OS socket and moves bytes; everything else - handshake results, HWM
back-pressure, lazy parsing, linger, reconnect pacing, monitor events - is
decided here, once, for both drivers.

Threads. The driver calls in from its thread; the socket's thread calls in
through the pipe (`refill` when its queue runs dry, `read_activated` when it
queued output, `pipe_closed` on close). `lock` serialises every use of the
connection object. Nothing here blocks while holding it.

Lifecycle.
- connect side: made by connect(); lives until the socket closes or the
  endpoint is disconnected; survives reconnects and keeps its pipe (messages
  queue while disconnected), unless IMMEDIATE is set, in which case the pipe
  exists only while a connection is up.
- bind side: made per accepted connection; gone with it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from errno import EFAULT
from typing import TYPE_CHECKING, Any, Protocol

from purezmq import constants as ev
from purezmq._routing.pipe import DELIMITER, Pipe, pipepair
from purezmq._zmtp import ProtocolError, ZMTPConnection
from purezmq._zmtp.mechanisms.base import MessageError
from purezmq._zmtp.mechanisms.null import NullMechanism
from purezmq._zmtp.raw import RawConnection

from .clock import monotonic
from .zap import SessionZap, zap_properties

if TYPE_CHECKING:
    from .socket_core import SocketCore

log = logging.getLogger("purezmq")

#: What a session drives: a ZMTP connection, or a STREAM socket's raw one.
Connection = ZMTPConnection | RawConnection

#: How long bytes may wait unparsed before the driver parses them itself. The
#: reader's thread normally parses when its queue runs dry; this bound keeps
#: heartbeats answered and read-ahead going while the application is busy.
READAHEAD_DELAY = 0.005
#: Unparsed bytes a connection may hold before reading pauses (back-pressure
#: then reaches the peer through TCP, as libzmq's does through its pipe).
READAHEAD_LIMIT = 256 * 1024
#: Messages, and bytes (first frames), taken from the pipe per encode batch.
OUT_BATCH = 1024
OUT_BATCH_BYTES = 256 * 1024
#: Queued messages at which the sending thread writes them itself (Pipe.drain).
DRAIN_AT = 128
#: Messages parsed per refill when the pipe has no HWM.
IN_BATCH = 1024


class EngineHandle(Protocol):
    """What a session needs from the driver's engine for its OS connection."""

    def kick_output(self) -> None:
        """Output is queued in the pipe or the connection: write it soon."""

    def resume_input(self) -> None:
        """The receive buffer has room again: read when data is available."""

    def flush_now(self) -> None:
        """Write queued output from the calling thread if possible, else soon."""

    def schedule(self, deadline: float | None) -> None:
        """Make sure `Session.on_timer` runs by `deadline` (monotonic). Any thread.

        Keeps the earliest request: a timer that fires early does no harm (the
        session recomputes and asks again), one that fires late would."""

    def close(self) -> None:
        """Close the OS connection (after writing what is already in hand)."""


class DirectReader(Protocol):
    """Optional engine methods for the direct read path (see SocketCore._block_recv):
    a receiving thread that is about to block takes over reading the few
    connections of its socket, so a message wakes it once - not the I/O
    thread first and then, through a signal, the receiver."""

    def park(self) -> int | None:
        """Stop the driver reading; return the descriptor to wait on, or None
        if the engine cannot be read directly now."""

    def unpark(self) -> None:
        """Give reading back to the driver."""

    def read_direct(self) -> bool:
        """Read what is there (the descriptor was readable); False if the
        connection ended (the driver then tidies up)."""


@dataclass(frozen=True)
class SessionConfig:
    """The options a session needs, copied from the socket when it is made."""

    socket_type: str
    endpoint: str
    connect_side: bool
    sndhwm: int = 1000
    rcvhwm: int = 1000
    immediate: bool = False
    conflate: bool = False
    linger: float | None = None  # seconds; None = forever
    routing_id: bytes = b""
    sends_identity: bool = False
    handshake_ivl: float = 30.0
    heartbeat_ivl: float = 0.0
    heartbeat_ttl: float = 0.0
    heartbeat_timeout: float = -1.0
    max_msg_size: int = -1
    reconnect_ivl: float = 0.1
    reconnect_ivl_max: float = 0.0
    metadata: dict[str, bytes] = field(default_factory=dict)
    #: Makes each connection's security mechanism, given the peer's address
    #: (`security.mechanism_factory`); None = NULL without ZAP.
    mechanism_factory: Callable[[str], Any] | None = None
    #: STREAM sockets: raw bytes instead of ZMTP, one pipe per connection.
    raw: bool = False
    #: STREAM_NOTIFY: announce connects and disconnects with an empty message.
    stream_notify: bool = True
    #: CONNECT_ROUTING_ID given for this connect(): the id the socket's ROUTER or
    #: STREAM knows this peer by (set on every pipe the session makes).
    connect_routing_id: bytes = b""


class Session:
    """Bridges one pipe and successive ZMTP connections (see module docstring)."""

    def __init__(self, socket: SocketCore, config: SessionConfig) -> None:
        self.socket = socket
        self.config = config
        self.lock = threading.Lock()
        self.conn: Connection | None = None
        self.engine: EngineHandle | None = None
        #: Our endpoint of the pipe pair (the socket holds `pipe.peer`).
        self.pipe: Pipe | None = None
        self.peer_address = ""
        self._handshaken = False
        self._identified = False
        self._input_paused = False
        self._closing = False  # the socket closed its side: flush, then end
        self._done = False
        self._parse_gen = 0
        self._readahead_gen = -1
        self._readahead_deadline: float | None = None
        self._linger_deadline: float | None = None
        self._reconnect_ivl = config.reconnect_ivl
        self._fd = -1
        self._no_reconnect = False
        self._linger = config.linger
        self._zap = SessionZap(socket.ctx, self._zap_wake)
        self.on_done: Callable[[Session], None] | None = None
        if config.connect_side and not config.immediate:
            self._make_pipe()

    def __repr__(self) -> str:
        side = "connect" if self.config.connect_side else "bind"
        return f"<Session {side} {self.config.endpoint} {self.peer_address}>"

    # ------------------------------------------------------------ pipe
    def _make_pipe(self) -> Pipe:
        ours, theirs = pipepair(self, None)
        cfg = self.config
        # Our outbound (toward the socket) is bounded by RCVHWM; the socket's by SNDHWM.
        ours.set_hwms(0 if cfg.conflate else cfg.rcvhwm, 0 if cfg.conflate else cfg.sndhwm)
        ours.conflate = theirs.conflate = cfg.conflate
        ours.refill = None
        theirs.routing_id = cfg.connect_routing_id
        theirs.refill = self.refill
        theirs.set_drain(self.drain_output, DRAIN_AT)
        self.pipe = ours
        self.socket.attach_pipe_from_session(theirs, self)
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
        self._linger = linger

    def pipe_closed(self, pipe: Pipe) -> None:
        """The socket closed its side: deliver what is queued (LINGER), then end."""
        if pipe is not self.pipe:
            # The socket acknowledging a pipe we already let go (IMMEDIATE drops
            # the pipe of a broken connection): not a request to end this session.
            return
        self._closing = True
        linger = self._linger
        self._linger_deadline = None if linger is None else monotonic() + linger
        engine = self.engine
        if engine is not None:
            engine.kick_output()
            engine.schedule(self._linger_deadline)
        elif not self._has_queued_output() or linger == 0:
            self.finish()

    def hiccuped(self, pipe: Pipe) -> None:  # pragma: no cover - sessions never hiccup themselves
        pass

    # ------------------------------------------------------------ driver side
    def start_connection(self, engine: EngineHandle, peer_address: str, fd: int = -1) -> Connection:
        """A new OS connection is up: make its ZMTP connection. Driver thread."""
        cfg = self.config
        if cfg.raw:
            return self._start_raw(engine, peer_address, fd)
        factory = cfg.mechanism_factory
        identity = cfg.routing_id if cfg.sends_identity else None
        if factory is not None:
            mechanism = factory(peer_address)
            mechanism.configure(
                socket_type=cfg.socket_type, identity=identity, metadata=cfg.metadata
            )
        else:
            mechanism = NullMechanism(identity=identity, properties=cfg.metadata)
        now = monotonic()
        conn = ZMTPConnection(
            socket_type=cfg.socket_type,
            mechanism=mechanism,
            now=now,
            handshake_ivl=cfg.handshake_ivl,
            heartbeat_ivl=cfg.heartbeat_ivl,
            heartbeat_ttl=cfg.heartbeat_ttl,
            heartbeat_timeout=cfg.heartbeat_timeout,
            max_msg_size=cfg.max_msg_size,
        )
        with self.lock:
            self.conn = conn
            self.engine = engine
            self.peer_address = peer_address
            self._handshaken = False
            self._input_paused = False
            self._zap.reset()
        self._fd = fd
        kind = ev.EVENT_CONNECTED if cfg.connect_side else ev.EVENT_ACCEPTED
        self.socket.monitor_event(kind, fd, cfg.endpoint)
        engine.schedule(self.next_deadline())
        return conn

    def _start_raw(self, engine: EngineHandle, peer_address: str, fd: int) -> RawConnection:
        """A STREAM connection: no handshake, the peer is there at once."""
        conn = RawConnection()
        with self.lock:
            self.conn = conn
            self.engine = engine
            self.peer_address = peer_address
            self._fd = fd
            kind = ev.EVENT_CONNECTED if self.config.connect_side else ev.EVENT_ACCEPTED
            self.socket.monitor_event(kind, fd, self.config.endpoint)
            self._handshake_complete(conn)
        pipe = self.pipe
        if self.config.stream_notify and pipe is not None:
            pipe.force_write([b""])  # "a peer connected", as libzmq's raw engine says it
        return conn

    def receive_with(self, recv_into: Callable[[memoryview], int], notify: bool = True) -> int:
        """Fill the connection's buffer with `recv_into` and take the bytes in.

        Driver thread (or the reader's, on the direct read path, which passes
        notify=False: it parses right away, so nobody needs waking and no
        read-ahead timer). Returns the byte count (0 = end of stream).
        `recv_into` runs under the lock because the reader's thread may be
        parsing (and compacting) the same buffer. Raises the OSError of
        `recv_into` and ProtocolError (the driver then calls `connection_failed`)."""
        conn = self.conn
        assert conn is not None
        with self.lock:
            n = recv_into(conn.get_buffer())
            if not n:
                return 0
            now = monotonic()
            conn.buffer_updated(n, now)
            if not self._handshaken:
                if isinstance(conn, ZMTPConnection):
                    self._zap.send_pending(conn)  # a mechanism asked ZAP (zap.py)
                if not conn.handshake_done:
                    return n
                self._handshake_complete(conn)
            if not self._buffer_has_room(conn):
                self._input_paused = True
        if notify:
            self._input_available(now)
        else:
            pipe = self.pipe
            if pipe is not None and pipe.claim_reader():
                self.socket.read_activated_here(pipe.peer)
        return n

    @property
    def handshaken(self) -> bool:
        """The current connection finished its handshake (messages can flow)."""
        return self._handshaken

    @property
    def input_paused(self) -> bool:
        """The receive buffer is full of unparsed bytes: stop reading for now."""
        return self._input_paused

    def _buffer_has_room(self, conn: Connection) -> bool:
        return conn.receiving_big_frame or conn.unparsed_bytes < READAHEAD_LIMIT

    def _input_available(self, now: float) -> None:
        """Bytes wait in the connection: wake a sleeping reader, and arm read-ahead.

        The reader may be busy elsewhere for a long time; if nobody has parsed
        these bytes within READAHEAD_DELAY, the driver parses them itself, so
        PINGs are answered, errors end the connection and data moves into the
        pipe while the application is away - as libzmq's I/O thread would."""
        pipe = self.pipe
        if pipe is None:
            return
        if pipe.reader_asleep:
            pipe.notify_reader()
        if self._readahead_deadline is None:
            self._readahead_gen = self._parse_gen
            self._readahead_deadline = now + READAHEAD_DELAY
            engine = self.engine
            if engine is not None:
                engine.schedule(self._readahead_deadline)

    def _handshake_complete(self, conn: Connection) -> None:
        """Called with the lock held, once per connection."""
        self._handshaken = True
        self._reconnect_ivl = self.config.reconnect_ivl
        meta = zap_properties(conn)  # User-Id and ZAP metadata win over ZMTP's, as in libzmq
        for k, v in conn.peer_metadata.items():
            meta.setdefault(k, v.decode("utf-8", "replace"))
        meta["Peer-Address"] = self.peer_address
        pipe = self.pipe
        if pipe is None:
            pipe = self._make_pipe_for_handshake(conn, meta)
        else:
            peer_end = pipe.peer
            peer_end.metadata = meta
            if not self._identified:
                peer_end.peer_identity = conn.peer_identity
                self._identified = True
                self.socket.post_identified(peer_end)
        self.socket.monitor_event(ev.EVENT_HANDSHAKE_SUCCEEDED, 0, self.config.endpoint)
        engine = self.engine
        if engine is not None:
            # Heartbeats start now: arm the timer for them.
            engine.schedule(self.next_deadline())
            if pipe.peer.outbound_size:
                engine.kick_output()

    def _make_pipe_for_handshake(self, conn: Connection, meta: dict[str, str]) -> Pipe:
        ours, theirs = pipepair(self, None)
        cfg = self.config
        ours.set_hwms(0 if cfg.conflate else cfg.rcvhwm, 0 if cfg.conflate else cfg.sndhwm)
        ours.conflate = theirs.conflate = cfg.conflate
        theirs.routing_id = cfg.connect_routing_id
        theirs.refill = self.refill
        theirs.set_drain(self.drain_output, DRAIN_AT)
        theirs.metadata = meta
        theirs.peer_identity = conn.peer_identity
        self._identified = True
        self.pipe = ours
        self.socket.attach_pipe_from_session(theirs, self)
        return ours

    # ------------------------------------------------------------ parsing
    def refill(self, look: bool = True) -> None:
        """Parse buffered bytes into the socket's queue. The reader's thread calls
        this when its queue is empty (lazy parsing, no thread hop). With `look`,
        a connection parked by the direct read path is also read; the pipe's
        second call of a read passes False (one system call that finds nothing
        per empty read is enough; the second was wasted on every round trip
        of a request/reply loop)."""
        conn = self.conn
        if conn is None or not self._handshaken:
            return
        if not conn.has_pending_input:
            if not look:
                return
            # Nothing buffered. A connection parked by the direct read path is
            # read by nobody else right now: look at the socket itself.
            read = getattr(self.engine, "read_if_parked", None)
            if read is None:
                return
            read()
            if not conn.has_pending_input:
                return
        self._parse_into_pipe(conn)

    def _parse_into_pipe(self, conn: Connection) -> None:
        pipe = self.pipe
        if pipe is None:
            return
        failure: ProtocolError | None = None
        with self.lock:
            if self.conn is not conn:
                return
            hwm = pipe.out_hwm
            room = hwm - pipe.outbound_size if hwm else IN_BATCH
            if room <= 0:
                return
            try:
                msgs = conn.pull(room)
            except ProtocolError as e:
                msgs = []
                failure = e
            else:
                # pull() returns the good messages before a bad frame and keeps
                # the error for its next call: act on it now, not later.
                failure = conn.close_reason
            self._parse_gen += 1
            if msgs:
                pipe.extend_outbound(msgs)
                if pipe.reader_asleep:  # parsed on the I/O thread (read-ahead)
                    pipe.notify_reader()
            resume = self._input_paused and self._buffer_has_room(conn)
            if resume:
                self._input_paused = False
            has_output = conn.has_output
        engine = self.engine
        if engine is None:
            return
        if failure is not None:
            self._fail_from_any_thread(conn, failure)
            return
        if resume:
            engine.resume_input()
        if has_output:
            engine.kick_output()
        # A PING may have armed its TTL: make sure a timer covers it.
        engine.schedule(self.next_deadline())

    # ------------------------------------------------------------ output
    def collect_output(self) -> list[Any]:
        """Encode queued messages; return the chunks to write. Caller holds no lock."""
        conn = self.conn
        pipe = self.pipe
        if conn is None:
            return []
        with self.lock:
            if self._handshaken and pipe is not None:
                msgs: list[Any] = []
                read_many = pipe.read_many
                budget = OUT_BATCH_BYTES  # bounds what a broken connection can lose
                while len(msgs) < OUT_BATCH and budget > 0:
                    got, size = read_many(OUT_BATCH - len(msgs), budget)
                    if not got:
                        break
                    msgs += got
                    budget -= size
                if msgs:
                    conn.send_messages(msgs)
            return conn.data_to_send()

    def drain_output(self) -> None:
        """The socket's queue to us is long (or full): write it now, from the
        caller's thread, if the connection is up and nobody else is writing."""
        engine = self.engine
        if engine is not None and self._handshaken:
            engine.flush_now()

    def _has_queued_output(self) -> bool:
        pipe = self.pipe
        return (
            pipe is not None
            and pipe.inbound_size > 0
            and not (pipe.inbound_size == 1 and pipe.peek_inbound() is DELIMITER)
        )

    def output_drained(self) -> None:
        """The driver wrote everything it had. Ends a closing session once the
        socket's last message (up to its DELIMITER) went out."""
        if self._closing and self.pipe is not None and self.pipe.in_closed:
            self.finish()

    # ------------------------------------------------------------ time
    def next_deadline(self) -> float | None:
        deadlines = [
            d
            for d in (
                self.conn.next_deadline() if self.conn is not None else None,
                self._readahead_deadline,
                self._linger_deadline if self._closing else None,
            )
            if d is not None
        ]
        return min(deadlines) if deadlines else None

    def on_timer(self) -> None:
        """The driver's timer fired (driver thread). Raises ProtocolError."""
        now = monotonic()
        if self._closing and self._linger_deadline is not None and now >= self._linger_deadline:
            self.finish()
            return
        conn = self.conn
        if conn is None:
            return
        with self.lock:
            if self._zap.pending and isinstance(conn, ZMTPConnection):
                self._zap_answered(conn, now)
            conn.on_timer(now)
            has_output = conn.has_output
        if self._readahead_deadline is not None and now >= self._readahead_deadline:
            self._readahead_deadline = None
            if conn.has_pending_input:
                if self._parse_gen == self._readahead_gen:  # nobody parsed meanwhile
                    self._parse_into_pipe(conn)
                self._rearm_readahead(conn, now)
        engine = self.engine
        if engine is not None:
            if has_output:
                engine.kick_output()
            engine.schedule(self.next_deadline())

    def _zap_answered(self, conn: ZMTPConnection, now: float) -> None:
        """The ZAP handler answered (lock held, driver thread): the mechanism
        continues; its reply may finish the handshake. Raises ProtocolError."""
        self._zap.deliver(conn, now)
        if conn.handshake_done and not self._handshaken:
            self._handshake_complete(conn)
            if conn.has_pending_input:
                self._input_available(now)

    def _zap_wake(self) -> None:
        """A ZAP answer arrived (any thread): run `on_timer` on the driver soon."""
        engine = self.engine
        if engine is not None:
            engine.schedule(monotonic())

    def _rearm_readahead(self, conn: Connection, now: float) -> None:
        """Bytes still wait: look again later - unless the pipe is full, in
        which case the reader's next read parses them (no timer spins meanwhile)."""
        pipe = self.pipe
        if not conn.has_pending_input or pipe is None or self.conn is not conn:
            return
        if pipe.out_hwm and pipe.outbound_size >= pipe.out_hwm:
            return
        self._readahead_gen = self._parse_gen
        self._readahead_deadline = now + READAHEAD_DELAY

    # ------------------------------------------------------------ failures
    def _fail_from_any_thread(self, conn: Connection, err: ProtocolError) -> None:
        """A protocol error found while parsing on the reader's thread."""
        log.warning("purezmq: %s: closing connection: %s", self.config.endpoint, err.reason)
        self._report_failure(err)
        self._note_failure(err)
        engine = self.engine
        if engine is not None:
            engine.close()

    def connection_failed(self, err: ProtocolError) -> None:
        """The driver caught a ProtocolError from this session's connection."""
        log.info("purezmq: %s: connection closed: %s", self.config.endpoint, err.reason)
        self._report_failure(err)
        self._note_failure(err)

    def _note_failure(self, err: ProtocolError) -> None:
        """libzmq reconnects after timeouts and dropped connections, never after
        a protocol error (bad bytes, refused socket type, failed authentication):
        that session ends."""
        if err.kind != "timeout":
            self._no_reconnect = True

    def _report_failure(self, err: ProtocolError) -> None:
        """The HANDSHAKE_FAILED_* event libzmq emits for this failure, if any."""
        if not err.during_handshake and not isinstance(err, MessageError):
            return  # (libzmq reports a bad CURVE MESSAGE like a handshake failure)
        endpoint = self.config.endpoint
        if err.kind == "protocol":
            self.socket.monitor_event(ev.EVENT_HANDSHAKE_FAILED_PROTOCOL, err.code, endpoint)
        elif err.kind in ("auth", "peer"):
            # Ours or the peer's ZAP status (an ERROR reason "300"/"400"/"500");
            # a peer ERROR with any other reason gets no event in libzmq.
            if err.zap_status is not None:
                self.socket.monitor_event(ev.EVENT_HANDSHAKE_FAILED_AUTH, err.zap_status, endpoint)
            elif err.kind == "auth":  # ZAP needed but no handler bound: libzmq says EFAULT
                self.socket.monitor_event(ev.EVENT_HANDSHAKE_FAILED_NO_DETAIL, EFAULT, endpoint)
        else:
            self.socket.monitor_event(ev.EVENT_HANDSHAKE_FAILED_NO_DETAIL, 0, endpoint)

    def connection_lost(self) -> float | None:
        """The driver's OS connection is gone. Returns the delay before the driver
        should reconnect, or None if this session is over."""
        self._salvage_input()
        cfg = self.config
        if cfg.raw and cfg.stream_notify and self._handshaken and self.pipe is not None:
            self.pipe.force_write([b""])  # "the peer is gone"
        with self.lock:
            was_up = self.conn is not None
            self.conn = None
            self.engine = None
            self._zap.reset()
            handshaken = self._handshaken
            self._handshaken = False
            self._readahead_deadline = None
        if was_up:
            self.socket.monitor_event(ev.EVENT_DISCONNECTED, self._fd, self.config.endpoint)
        cfg = self.config
        if not cfg.connect_side or self._done or self._no_reconnect:
            self.finish()
            return None
        if self._closing and (not self._has_queued_output() or self._linger == 0):
            self.finish()
            return None
        if cfg.immediate and self.pipe is not None:
            # IMMEDIATE: no pipe while disconnected (queued messages are dropped).
            pipe, self.pipe = self.pipe, None
            self._identified = False
            pipe.close()
        elif handshaken and self.pipe is not None:
            self.pipe.hiccup()
        return self.next_reconnect_delay()

    def _salvage_input(self) -> None:
        """Deliver what the peer sent before it went away.

        With lazy parsing, complete messages may still sit unparsed in the
        connection's buffer when the stream ends. They were received, so they
        are delivered (libzmq would have them in the kernel buffer and read
        them before seeing the end of the stream). They go past the HWM: the
        bytes are already in memory, bounded by READAHEAD_LIMIT, and nothing
        more can arrive on this connection."""
        conn = self.conn
        pipe = self.pipe
        if conn is None or pipe is None or not self._handshaken:
            return
        with self.lock:
            while conn.has_pending_input:
                try:
                    msgs = conn.pull(IN_BATCH)
                except ProtocolError:
                    break
                if not msgs:
                    break  # only a partial frame is left
                pipe.extend_outbound(msgs)
        if pipe.reader_asleep and pipe.outbound_size:
            pipe.notify_reader()

    def next_reconnect_delay(self) -> float:
        """RECONNECT_IVL, doubling up to RECONNECT_IVL_MAX when that is set."""
        cfg = self.config
        delay = self._reconnect_ivl
        if cfg.reconnect_ivl_max > 0:
            self._reconnect_ivl = min(self._reconnect_ivl * 2, cfg.reconnect_ivl_max)
        return delay

    def linger_expired(self) -> bool:
        """The socket closed and LINGER ran out (never true with LINGER -1)."""
        deadline = self._linger_deadline
        return self._closing and deadline is not None and monotonic() >= deadline

    @property
    def done(self) -> bool:
        return self._done

    @property
    def closing(self) -> bool:
        return self._closing

    def abort(self) -> None:
        """End now, dropping queued messages (unbind of the accepting endpoint)."""
        self.finish()

    def finish(self) -> None:
        """End the session for good: close our pipe end and the connection."""
        if self._done:
            return
        self._done = True
        pipe = self.pipe
        if pipe is not None:
            pipe.close()
            pipe.drain_inbound()
        engine = self.engine
        if engine is not None:
            engine.close()
        if self.on_done is not None:
            self.on_done(self)
