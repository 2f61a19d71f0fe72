"""The stream engine: bytes between an OS socket and a session.

It runs on a reactor - the Context's I/O thread, or an asyncio loop for
`purezmq.asyncio` sockets (see `reactor`). Reading happens on the reactor:
`recv_into` the connection's own buffer, under the session lock (the
reader's thread may be parsing that buffer).

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

import array
import fcntl
import logging
import select
import socket
import termios
import threading
from collections import deque
from collections.abc import Callable
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

_HAVE_POLL: Final = hasattr(select, "poll")
#: The calling thread's id (Final: compiled, a direct reference, not a look-up).
_get_ident: Final = threading.get_ident
#: Writes closer together than this are left to the I/O thread, which batches.
SPARSE_GAP: Final = 20e-6
#: How long a parked connection stays with the socket's thread after its
#: last wait (see StreamEngine.park). The sweep that checks it wakes the
#: reactor once per PARK_GRACE while parked, so it must be long next to a
#: message's latency (a short one had the reactor fight the receiving thread
#: for the GIL); while the application is away from its socket for longer,
#: the reactor reads ahead as usual.
PARK_GRACE: Final = 0.05
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
#: Most reads of one wake-up (`_read_more` reads on while a large frame's
#: bytes keep arriving): other connections of the reactor get their turn.
READ_ROUNDS: Final = 16
#: SO_SNDBUF asked for on an ipc (AF_UNIX) connection once a write of a
#: large frame comes back partial (see `StreamEngine._grow_send_buffer`).
#: Linux doubles it for bookkeeping, so 2 MiB asked is 4 MiB in flight -
#: TCP's autotuning ceiling by default (tcp_wmem) - and net.core.wmem_max
#: caps it (212992 by default: then 416 KiB, still twice the default).
IPC_SNDBUF: Final = 2 * 1024 * 1024
#: The default SO_SNDBUF of an AF_UNIX stream socket here (learnt once, -1
#: until then); a socket that reports anything else was tuned (ZMQ_SNDBUF).
_unix_sndbuf_default = -1


def _nbytes(chunk: Buffer) -> int:
    return chunk.nbytes if isinstance(chunk, memoryview) else len(chunk)


def _nothing_queued(session: Session) -> bool:
    """Has the session nothing more to encode or send, after a collect?

    Only if the collect read its pipe dry, which lowered the session's
    reader flag (a batch that stopped at its byte budget did not, even when
    nothing is left): a message the socket queues from now on then calls
    `kick_output`, which flushes (or has the reactor flush, while we hold
    the write lock). Output a parse queues (a PONG) is followed by
    `kick_output` too."""
    pipe = session.pipe
    conn = session.conn
    return pipe is not None and conn is not None and not conn.has_output and nothing_to_take(pipe)


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


def _waiting_bytes(fd: int) -> int:
    """Bytes the kernel holds for reading on `fd` (FIONREAD), -1 if it cannot say.

    Asked only while a large frame arrives: its storage grows with what has
    arrived (never with the size the peer declared), and this lets it grow
    to all that has arrived in one step, so one read takes it (issue 12)."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
    except OSError:
        return -1
    return count[0]


class StreamEngine:
    """Pumps one connected stream socket for a session (an IOHandler)."""

    def __init__(
        self,
        io: Reactor,
        sock: socket.socket,
        session: Session,
        peer_address: str,
        on_lost: Callable[[StreamEngine], None],
    ) -> None:
        self.io = io
        self.sock = sock
        self.fd = sock.fileno()
        self.session = session
        self.peer_address = peer_address
        self._on_lost = on_lost
        self._out: deque[Buffer] = deque()
        self._write_lock = threading.Lock()
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
    def start(self) -> None:
        self._io_ident = _get_ident()
        self.session.start_connection(self, self.peer_address, self.fd)
        self._mask = READ
        self.io.register(self.fd, self, READ)
        self._io_flush()

    def on_readable(self) -> None:
        if self._closed:
            return
        conn = self.session.conn
        hint = _waiting_bytes(self.fd) if conn is not None and conn.receiving_big_frame else -1
        rounds = 0
        while True:
            try:
                n = self.session.receive_with(
                    self.sock.recv_into, True, hint, self._recv_body(hint)
                )
            except BlockingIOError:
                return
            except ProtocolError as e:
                self._protocol_error(e)
                return
            except OSError:
                self._lost()
                return
            if n == 0:
                self._lost()
                return
            rounds += 1
            hint = self._read_more(hint >= 0) if rounds < READ_ROUNDS else -1
            if hint < 0:
                break
        if self._lowat > 0:
            self._tune_lowat()
        if self.session.input_paused:
            self._update_interest()
        conn = self.session.conn
        if conn is not None and conn.has_output:
            self._io_flush()

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
        with self._write_lock:
            done = self._flush_locked()
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
            and self._write_lock.acquire(False)
        ):
            try:
                done = self._flush_locked()
            finally:
                self._write_lock.release()
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
        if self._write_lock.acquire(False):
            try:
                done = self._flush_locked()
            finally:
                self._write_lock.release()
            self._after_flush(done)
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            self.io.call_soon(self._io_flush)

    def resume_input(self) -> None:
        self._update_interest()

    # ------------------------------------------------------------ direct reads
    def park(self) -> int | None:
        """The socket's thread is about to wait on our descriptor and read it
        itself (one wake-up per message instead of two). Only for established,
        unpaused connections on another thread's reactor.

        Parking is lazy: it lasts after the wait ends, so the next request of
        a request/reply loop cannot be overtaken by its reply landing in the
        I/O thread. If the socket's thread does not wait again within
        PARK_GRACE, the reactor takes reading back (`_sweep`)."""
        if self._closed or self._ended or _get_ident() == self._io_ident:
            return None
        if self.session.input_paused:
            return None
        if not self.session.handshaken:
            return None
        self._waiting = True
        if not self._parked:
            with self._interest_lock:
                self._parked = True
            self._update_interest()
            if not self._sweeping:
                self._sweeping = True
                self.io.call_soon(self._start_sweep)
        return self.fd

    def unpark(self) -> None:
        """The socket's thread stopped waiting (reading stays parked a while)."""
        self._waiting = False
        self._released_at = monotonic()

    def parked_fd(self) -> int | None:
        """Our descriptor while parked (pollers must watch it), else None."""
        return self.fd if self._parked and not (self._closed or self._ended) else None

    def read_if_parked(self) -> None:
        """The socket found its queue empty: if we are parked, nobody else reads
        the descriptor, so look now (non-blocking) instead of missing data.

        Asked with a zero-timeout poll first: a read that finds nothing raises
        BlockingIOError, and compiled, that exception cost about 15,000
        instructions (the error object, a traceback entry per compiled frame
        it crossed) against about 1,000 for the poll - and a blocking receive
        looks once before it waits, finding nothing whenever the peer has not
        answered yet."""
        if self._parked and not (self._closed or self._ended) and self._readable():
            # Reading here is the socket's thread at work, as much as a wait:
            # the sweep must not take reading back from a thread that keeps
            # finding data without ever blocking (large frames whose body is
            # read with the header, back to back).
            self._released_at = monotonic()
            self.read_direct()

    def _readable(self) -> bool:
        """Would a read return something now (data, end of stream, an error)?"""
        peek = self._peek
        if peek is None:
            if not _HAVE_POLL:  # pragma: no cover - Windows: just read
                return True
            peek = self._peek = select.poll()
            peek.register(self.fd, select.POLLIN)
        return bool(peek.poll(0))

    def _start_sweep(self) -> None:
        self._sweep_timer = self.io.call_later(PARK_GRACE, self._sweep)

    def _sweep(self) -> None:
        """Reactor thread: give reading back to the reactor when the socket's
        thread has not waited on us for PARK_GRACE."""
        self._sweep_timer = None
        if self._closed or not self._parked:
            self._sweeping = False
            return
        if not self._waiting and monotonic() - self._released_at >= PARK_GRACE:
            with self._interest_lock:
                self._parked = False
            self._sweeping = False
            self._update_interest()
            # Data that came meanwhile is read now (level-triggered).
            return
        self._sweep_timer = self.io.call_later(PARK_GRACE, self._sweep)

    def read_direct(self) -> bool:
        """Read on the socket's thread (the descriptor was readable). False
        once the connection has ended: the reactor reports that, and the
        descriptor - readable for good at its end - is no longer ours to
        watch. (Watched on, it made every poll of the socket return at once,
        and a thread polling in a loop spun until the reactor's thread had
        handled the loss - on a busy machine, up to a scheduler time slice.)"""
        if self._closed or self._ended:
            return False
        conn = self.session.conn
        hint = _waiting_bytes(self.fd) if conn is not None and conn.receiving_big_frame else -1
        rounds = 0
        while True:
            try:
                n = self.session.receive_with(
                    self.sock.recv_into, False, hint, self._recv_body(hint)
                )
            except (BlockingIOError, InterruptedError):
                return True
            except ProtocolError as e:
                self._ended = True
                self._protocol_error_soon(e)
                return False
            except OSError:
                self._ended = True
                self.io.call_soon(self._lost)
                return False
            if n == 0:
                self._ended = True
                self.io.call_soon(self._lost)
                return False
            rounds += 1
            hint = self._read_more(hint >= 0) if rounds < READ_ROUNDS else -1
            if hint < 0:
                break
        if self._lowat > 0:
            self._tune_lowat()
        if self.session.input_paused:
            self._update_interest()
        return True

    def _protocol_error_soon(self, err: ProtocolError) -> None:
        """Report `err` on the reactor's thread (a direct read found it)."""
        self.io.call_soon(lambda: self._protocol_error(err))

    def _recv_body(self, hint: int) -> Callable[[int], bytes] | None:
        """`recv` when a big frame's body may be waiting whole in the kernel
        (`hint`: FIONREAD while one arrives): the session may then receive it
        as bytes of its own - `socket.recv` allocates without writing zeros,
        as libzmq's malloc does, and nothing is copied afterwards."""
        return self.sock.recv if hint > 0 else None

    def _read_more(self, body_read: bool) -> int:
        """After a read: how many bytes to read again at once, or -1 to wait
        for readiness as usual. `body_read`: that read was of a large
        frame's body (the frame was arriving before it).

        A read that brought a large frame's header (or part of its body)
        leaves the connection receiving that frame. If the kernel already
        holds what readiness would wait for - the rest of the frame, or
        LOWAT_MAX of it - the next read happens now, sized by FIONREAD so
        that it takes all of it: going back to poll (and, on the direct
        path, through the socket's wait) for a readiness already there cost
        a `poll` and a wake-up per 64 KiB message (`strace -f -c`: 2
        `recvfrom` and 2 `poll` per message before, 2 and 1 after). Memory
        still follows what arrived (bigframe).

        Over ipc there is no SO_RCVLOWAT (a unix socket is readable at one
        byte whatever the mark), and a peer with the default send buffer
        keeps about 208 KiB in flight, so the rule above never held: each
        piece of a 1 MiB body cost a return to poll - on asyncio a turn of
        the loop. Once the body is arriving in storage (`body_read`), what
        is waiting is read at once. Right after the header it is not: a
        body that arrives whole may still be received as bytes of its own
        (the direct body), which a partial read into storage rules out."""
        conn = self.session.conn
        if conn is None or not conn.receiving_big_frame or self._closed:
            return -1
        waiting = _waiting_bytes(self.fd)
        if waiting <= 0:
            return -1
        left = conn.big_frame_remaining
        if waiting >= left or (body_read and self._lowat == -1):
            return waiting
        if waiting < min(left, LOWAT_MAX):
            return -1
        return waiting

    def _tune_lowat(self) -> None:
        """Set SO_RCVLOWAT for the large frame in progress, if any (see LOWAT_MAX).

        Never above what the frame still needs: the peer must send that much
        to finish it, so readiness cannot wait for bytes that never come (an
        end of stream or error wakes poll regardless, and Linux reports a
        socket readable under memory pressure whatever the mark)."""
        conn = self.session.conn
        if self._lowat == 1 and (conn is None or conn.big_frame_remaining < LOWAT_MIN):
            return  # the usual case, decided without the lock
        with self._interest_lock:
            left = conn.big_frame_remaining if conn is not None else 0
            lowat = min(left, LOWAT_MAX) if left >= LOWAT_MIN else 1
            if lowat == self._lowat or self._closed:
                return
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, lowat)
            except OSError:
                self._lowat = -1  # not supported here: stop trying
                return
            self._lowat = lowat

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

    def move_to(self, new: Reactor) -> None:
        """Continue on another reactor (an asyncio socket closing while it still
        has messages to deliver hands them to the I/O thread). Call on the
        current reactor's thread."""
        if self._closed or new is self.io:
            return
        with self._interest_lock:
            self._mask = -1
        self.io.unregister(self.fd)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None
        self._parked = self._waiting = self._sweeping = False
        self._io_ident = 0  # learnt again on the new reactor's thread (_adopt)
        self.io = new
        self._flush_scheduled = False
        new.call_soon(self._adopt)

    def _adopt(self) -> None:
        self._io_ident = _get_ident()
        if self._closed:
            return
        with self._interest_lock:
            mask = 0 if self.session.input_paused else READ
            if self._out:
                mask |= WRITE
            self._mask = mask
            self.io.register(self.fd, self, mask)
        self.schedule(self.session.next_deadline())
        self._io_flush()

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
        sock = self.sock
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
                out.extend(chunks)
            try:
                if len(out) == 1:
                    n = sock.send(out[0])
                else:
                    n = sock.sendmsg(list(out)[:IOV_MAX] if len(out) > IOV_MAX else out)
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
                    out.popleft()
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
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None
        self.io.unregister(self.fd)
        try:
            self.sock.close()
        except OSError:  # pragma: no cover
            pass
        self._on_lost(self)
