"""The stream engine's output and its end: writes, the timer, close.

`EngineCore` holds a stream engine's state and everything of it that is not
reading: writing from any thread, the interest asked of the reactor, the
session's timer, and the end of the connection. `StreamEngine`
(engine.py) derives from it and adds reading, by the reactor or by the
socket's own thread, and its start and moves on a reactor. One class,
two modules: mypyc compiles a class from one module, so the engine is split
by inheritance (native calls both ways - the base's methods are not
overridden, so calls to them are direct C calls).

Writing happens on whichever thread gets there first. When the application
queues a message for an idle connection, `kick_output` writes it straight
away from the application's thread - no wake-up on the latency path -
unless messages are coming faster than SPARSE_GAP apart - to this
connection, or to any connection of the same socket (a PUB sending one
message to many subscribers would otherwise pay one system call per
subscriber per message) - in which case the reactor is asked (once) to
flush, and it writes everything queued by then with one `sendmsg`. A write
that the kernel cannot take whole leaves the rest in `_out` and asks the
reactor for POLLOUT.
"""

from __future__ import annotations

import logging
import select
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from purezmq._core.clock import monotonic
from purezmq._core.outflow import nothing_to_take
from purezmq._transport.address import is_inet
from purezmq._zmtp import ProtocolError
from purezmq._zmtp.frames import Buffer

from .reactor import READ, WRITE, Reactor, Timer

if TYPE_CHECKING:
    from purezmq._core.session import Session

log = logging.getLogger("purezmq")

#: The calling thread's id (Final: compiled, a direct reference, not a look-up).
_get_ident: Final = threading.get_ident
#: Writes closer together than this are left to the I/O thread, which batches.
SPARSE_GAP: Final = 20e-6
#: At most this many buffers per sendmsg (Linux IOV_MAX is 1024).
IOV_MAX: Final = 512
#: While a large frame arrives over TCP, the socket becomes readable only once
#: this much of it (or all that is left, if less) is there (SO_RCVLOWAT): one
#: wake-up and one read per 256 KiB instead of one per segment burst. A 1 MiB
#: frame took 7 reads and 6 polls when the reader was fast (the compiled
#: build), 3 and 2 when it was slow; libzmq reads in 8 KiB steps.
LOWAT_MAX: Final = 256 * 1024
#: Below this much still to come, the default (readable at one byte) is kept.
LOWAT_MIN: Final = 64 * 1024
#: SO_SNDBUF asked for on an ipc (AF_UNIX) connection once a write of a
#: large frame comes back partial (see `EngineCore._grow_send_buffer`).
#: Linux doubles it for bookkeeping, so 2 MiB asked is 4 MiB in flight -
#: TCP's autotuning ceiling by default (tcp_wmem) - and net.core.wmem_max
#: caps it (212992 by default: then 416 KiB, still twice the default).
IPC_SNDBUF: Final = 2 * 1024 * 1024
#: The default SO_SNDBUF of an AF_UNIX stream socket here (learnt once, -1
#: until then); a socket that reports anything else was tuned (ZMQ_SNDBUF).
_unix_sndbuf_default = -1


def _nbytes(chunk: Buffer) -> int:
    """The byte size of an output chunk.

    `bytes` is asked about first: compiled, that is a native type check,
    while `memoryview` is a name mypyc does not know - testing for it
    looked the name up in builtins and called isinstance, about 300
    instructions a chunk, twice per message of a round trip (issue 14)."""
    if isinstance(chunk, bytes):
        return len(chunk)
    return chunk.nbytes if isinstance(chunk, memoryview) else len(chunk)


def _nothing_queued(session: Session) -> bool:
    """Has the session nothing more to encode or send, after a collect?

    Only if the collect read its pipe dry, which lowered the session's
    reader flag (a batch that stopped at its byte budget did not, even when
    nothing is left): a message the socket queues from now on then calls
    `kick_output`, which flushes (or has the reactor flush, while we hold
    the write lock). Output a parse queues (a PONG) is followed by
    `kick_output` too.

    Before the handshake ends the pipe is not read at all (a bound session
    has none yet), so nothing is left to take: the end of the handshake
    kicks us, or flushes, for whatever the socket queued meanwhile. A
    second collect there only took the session's lock to find nothing."""
    conn = session.conn
    if conn is None or conn.has_output:
        return False
    pipe = session.pipe
    return pipe is None or not session.handshaken or nothing_to_take(pipe)


def _unix_default_sndbuf() -> int:
    """SO_SNDBUF of a fresh AF_UNIX stream socket (asked once per process)."""
    global _unix_sndbuf_default
    if _unix_sndbuf_default < 0:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            _unix_sndbuf_default = a.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        finally:
            a.close()
            b.close()
    return _unix_sndbuf_default


class EngineCore:
    """A stream engine less its reading (see the module docstring); the
    engine itself is `StreamEngine` (engine.py)."""

    def __init__(
        self,
        io: Reactor,
        sock: socket.socket,
        session: Session,
        peer_address: str,
        on_lost: Callable[[EngineCore], None],
    ) -> None:
        self.io = io
        self.sock = sock
        self.fd = sock.fileno()
        #: The socket's and the output queue's methods, bound once: every read
        #: and write looked them up by name (on the socket, a Python subclass
        #: of the C type: about 340 instructions a look-up, compiled; issue 14).
        self._recv_into: Callable[[memoryview], int] = sock.recv_into
        self._recv: Callable[[int], bytes] = sock.recv
        self._send: Callable[[Buffer], int] = sock.send
        self._sendmsg: Callable[[Iterable[Buffer]], int] = sock.sendmsg
        self.session = session
        self.peer_address = peer_address
        self._on_lost = on_lost
        out: deque[Buffer] = deque()
        self._out = out
        self._out_extend: Callable[[Iterable[Buffer]], None] = out.extend
        self._out_popleft: Callable[[], Buffer] = out.popleft
        self._write_lock = lock = threading.Lock()
        #: Bound once (blocking: `_io_flush`; not: the sender's own flush): a
        #: `with` on a lock is about 1,200 instructions compiled, these about
        #: 670; `lock.acquire(False)` looked the method up by name per send.
        self._write_acquire: Callable[[bool], bool] = lock.acquire
        self._write_release: Callable[[], None] = lock.release
        self._interest_lock = threading.Lock()
        self._flush_scheduled = False
        #: SO_RCVLOWAT as last set (1: the kernel's default); -1: not TCP, where
        #: it has no effect on readiness (AF_UNIX) - never set.
        self._lowat = 1 if is_inet(sock) else -1
        #: ipc only: may `_grow_send_buffer` still try (once)?
        self._may_grow_sndbuf = self._lowat < 0
        #: The interest last asked of the reactor (-1: none yet): asking again
        #: for the same costs a call into the reactor after every write.
        self._mask = -1
        self._last_write = 0.0
        self._timer: Timer | None = None
        self._closed = False
        # The receiving thread reads this connection itself (direct read path):
        # the reactor must not (see park()).
        self._parked = False
        self._waiting = False  # the socket's thread is in its wait right now
        #: A direct read met the end (end of stream, an error): the reactor
        #: reports the loss, and until it has, nobody reads or waits on us.
        self._ended = False
        self._released_at = 0.0
        self._sweeping = False
        self._sweep_timer: Timer | None = None
        #: The thread id of our reactor, learnt on its thread (`start`,
        #: `_adopt`); 0 until then. `_on_reactor` compares with it: asking the
        #: reactor (a call through its Protocol) cost about 1,000 instructions
        #: compiled, twice per request/reply round trip.
        self._io_ident = 0
        #: A poll set of our descriptor alone, for `read_if_parked`'s look.
        self._peek: select.poll | None = None

    def __repr__(self) -> str:
        return f"<StreamEngine fd={self.fd} {self.session!r}>"

    # ------------------------------------------------------------ I/O thread
    def on_writable(self) -> None:
        self._io_flush()

    def on_poll_error(self, exc: BaseException | None) -> None:
        self._lost()

    def _on_timer(self) -> None:
        self._timer = None
        if self._closed:
            return
        try:
            self.session.on_timer()
        except ProtocolError as e:
            self._protocol_error(e)

    def _io_flush(self) -> None:
        self._flush_scheduled = False
        if self._closed:
            return
        self._write_acquire(True)
        try:
            done = self._flush_locked()
        finally:
            self._write_release()
        self._after_flush(done)

    # ------------------------------------------------------------ any thread
    def kick_output(self) -> None:
        """Messages were queued: write now from this thread, or have the loop batch.

        "This thread" includes an asyncio loop's, between the reactor's
        callbacks: the application's task sends there, and deferring its
        write to a callback cost a loop iteration per message."""
        if self._closed or self._out:
            return  # POLLOUT is armed: the loop writes when the kernel has room
        now = monotonic()
        burst = self.session.burst
        if (
            now - self._last_write >= SPARSE_GAP
            and now - burst.at >= SPARSE_GAP
            and (_get_ident() != self._io_ident or self.io.between_callbacks())
            and self._write_acquire(False)
        ):
            try:
                done = self._flush_locked()
            finally:
                self._write_release()
            burst.at = self._last_write
            self._after_flush(done)
            return
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.io.call_soon(self._io_flush)

    def flush_now(self) -> None:
        """Write from this thread now (the sender's queue is long); if the I/O
        thread is writing or the kernel is full, the loop takes over."""
        if self._closed or self._out:
            return
        if self._write_acquire(False):
            try:
                done = self._flush_locked()
            finally:
                self._write_release()
            self._after_flush(done)
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            self.io.call_soon(self._io_flush)

    def resume_input(self) -> None:
        self._update_interest()

    def schedule(self, deadline: float | None) -> None:
        """Arm the timer for `deadline` unless an earlier one is armed (any thread)."""
        if deadline is None or self._closed:
            return
        timer = self._timer
        if timer is not None and not timer.cancelled and timer.when <= deadline:
            return  # covered: it fires first, and the session asks again then
        if _get_ident() != self._io_ident:  # not on our reactor (or not adopted yet)
            self._schedule_soon(deadline)
            return
        if timer is not None:
            timer.cancel()
        self._timer = self.io.call_at(deadline, self._on_timer)

    def _schedule_soon(self, deadline: float) -> None:
        """`schedule` called off the reactor's thread: run it there. A
        function of its own: a lambda in `schedule` made mypyc build its
        closure's environment on every call, taken or not."""
        self.io.call_soon(lambda: self.schedule(deadline))

    def close(self) -> None:
        """Write what is in hand (best effort), then close. Any thread."""
        if self.io.in_thread():
            self._close_now()
        else:
            self.io.call_soon(self._close_now)

    # ------------------------------------------------------------ internals
    def _flush_locked(self) -> bool:
        """Write queued output. True when nothing is left. Holds _write_lock."""
        out = self._out
        session = self.session
        collected = False
        while True:
            if not out:
                if collected and _nothing_queued(session):
                    return True  # no second collect_output (its lock, a pipe read) for nothing
                chunks = session.collect_output()
                if not chunks:
                    return True
                collected = True
                self._out_extend(chunks)
            try:
                if len(out) == 1:
                    n = self._send(out[0])
                else:
                    n = self._sendmsg(list(out)[:IOV_MAX] if len(out) > IOV_MAX else out)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                # The connection is gone; the read side will report it.
                out.clear()
                self.io.call_soon(self._lost)
                return True
            self._last_write = monotonic()
            session.counters.bytes_out += n
            while out:  # drop what was written (and empty chunks: never a stall)
                chunk = out[0]
                size = _nbytes(chunk)
                if n >= size:
                    self._out_popleft()
                    n -= size
                else:
                    if n:
                        out[0] = memoryview(chunk)[n:]
                    break
            if out:
                if self._may_grow_sndbuf and self._grow_send_buffer(out):
                    continue  # room now: write on in the same call
                return False

    def _grow_send_buffer(self, out: deque[Buffer]) -> bool:
        """A write to an ipc peer came back partial in a large frame: raise
        SO_SNDBUF (once per connection) so that the kernel holds whole
        frames, as TCP's autotuning lets it over tcp. True if it was raised
        (write again now).

        A unix stream socket holds only the sender's SO_SNDBUF in flight
        (about 208 KiB by default, no autotuning): a 1 MiB frame went in
        five writes, each after a POLLOUT wake-up, and the receiver woke for
        each piece and could never take the body in one ``recv`` as its own
        `bytes` (bigframe's direct body) - it received it in pieces into
        zero-filled storage. Only the default is raised (a ZMQ_SNDBUF the
        application set is left alone), only when LOWAT_MAX or more of one
        frame is left unwritten (a frame of less than about 460 KiB never
        raises it; 64 KiB frames fit the default buffer whole); the kernel
        charges only the bytes in flight."""
        # A large frame's body is a chunk of its own (sent zero-copy); the
        # write stopped in it or just before it. A queue of small messages,
        # however long, leaves the buffer as it is.
        large = False
        for i in range(min(len(out), 4)):
            if _nbytes(out[i]) >= LOWAT_MAX:
                large = True
                break
        if not large:
            return False
        self._may_grow_sndbuf = False
        sock = self.sock
        try:
            if sock.family != socket.AF_UNIX:
                return False
            current = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            if current != _unix_default_sndbuf() or current >= 2 * IPC_SNDBUF:
                return False
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, IPC_SNDBUF)
            return sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) > current
        except OSError:
            return False

    def _after_flush(self, done: bool) -> None:
        if done and not self._out:
            self.session.output_drained()
        self._update_interest()

    def _update_interest(self) -> None:
        if self._closed:
            return
        # Unchanged (after nearly every write and read): no lock. Each change
        # of what the mask depends on is followed by a call of its own, which
        # sees that change and takes the lock below.
        mask = 0 if self.session.input_paused or self._parked else READ
        if self._out:
            mask |= WRITE
        if mask == self._mask:
            return
        with self._interest_lock:
            mask = 0 if self.session.input_paused or self._parked else READ
            if self._out:
                mask |= WRITE
            if mask == self._mask:
                return
            self._mask = mask
            self.io.set_interest(self.fd, mask)

    def _protocol_error(self, err: ProtocolError) -> None:
        self.session.connection_failed(err)
        # An ERROR command may be queued for the peer: try once, without blocking.
        conn = self.session.conn
        if conn is not None:
            try:
                data = b"".join(bytes(c) for c in conn.data_to_send())
                if data:
                    self.sock.send(data)
            except (OSError, ProtocolError):
                pass
        self._lost()

    def _close_now(self) -> None:
        if self._closed:
            return
        with self._write_lock:
            self._flush_locked()
        self._lost()

    def _lost(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._cancel_timers()
        self.io.unregister(self.fd)
        try:
            self.sock.close()
        except OSError:  # pragma: no cover
            pass
        # The descriptor is closed now (the peer sees it at once); the
        # session's side of the teardown waits until the loop is idle, so a
        # connection opening meanwhile is not kept waiting (`call_idle`).
        # Everything that could touch this engine meanwhile checks _closed.
        self.io.call_idle(self._report_lost)

    def _report_lost(self) -> None:
        self._on_lost(self)

    def _cancel_timers(self) -> None:
        """Stop the session's timer and the parked-read sweep (the engine ends,
        or moves to another reactor)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None
