"""The stream engine: bytes between an OS socket and a session - its reading.

It runs on a reactor - the Context's I/O thread, or an asyncio loop for
`purezmq.asyncio` sockets (see `reactor`). Reading happens on the reactor:
`recv_into` the connection's own buffer, under the session lock (the
reader's thread may be parsing that buffer) - or on the socket's own thread
while it waits on this connection (`park`, the direct read path). This
module is that reading, with the engine's start and its moves between
reactors; writing, the timer and the end of the connection are
`EngineCore`'s (engine_core.py), which `StreamEngine` derives from.
"""

from __future__ import annotations

import array
import fcntl
import select
import socket
import termios
import threading
from collections.abc import Callable
from typing import Final

from purezmq._core.clock import monotonic
from purezmq._core.connections import signature_for
from purezmq._zmtp import ProtocolError

from .engine_core import LOWAT_MAX, LOWAT_MIN, EngineCore
from .reactor import READ, WRITE, Reactor

_HAVE_POLL: Final = hasattr(select, "poll")
#: The calling thread's id (Final: compiled, a direct reference, not a look-up).
_get_ident: Final = threading.get_ident
#: How long a parked connection stays with the socket's thread after its
#: last wait (see StreamEngine.park). The sweep that checks it wakes the
#: reactor once per PARK_GRACE while parked, so it must be long next to a
#: message's latency (a short one had the reactor fight the receiving thread
#: for the GIL); while the application is away from its socket for longer,
#: the reactor reads ahead as usual.
PARK_GRACE: Final = 0.05
#: Most reads of one wake-up (`_read_more` reads on while a large frame's
#: bytes keep arriving): other connections of the reactor get their turn.
READ_ROUNDS: Final = 16


_ioctl: Final = fcntl.ioctl
_FIONREAD: Final = termios.FIONREAD
#: What each FIONREAD writes into a copy of: copying it cost about a
#: third of making a new array (the type code parsed, the initializer
#: converted), per large message.
_COUNT: Final = array.array("i", b"\0\0\0\0")


def _waiting_bytes(fd: int) -> int:
    """Bytes the kernel holds for reading on `fd` (FIONREAD), -1 if it cannot say.

    Asked only while a large frame arrives: its storage grows with what has
    arrived (never with the size the peer declared), and this lets it grow
    to all that has arrived in one step, so one read takes it (issue 12).
    The module's functions are bound once (Final): compiled, looking up
    `fcntl.ioctl` and `termios.FIONREAD` by name cost more than the system
    call's own wrapper, once per large message."""
    count = _COUNT.__copy__()  # a copy per call: both threads may ask
    try:
        _ioctl(fd, _FIONREAD, count, True)
    except OSError:
        return -1
    return count[0]


class StreamEngine(EngineCore):
    """Pumps one connected stream socket for a session (an IOHandler)."""

    # ------------------------------------------------------------ I/O thread
    def start(self) -> None:
        self._io_ident = _get_ident()
        session = self.session
        # The signature first, the objects after (see signature_for): a
        # new socket's empty buffer takes 10 bytes, or the connection
        # queues what did not go.
        sent = 0
        sig = signature_for(session.config)
        if sig:
            try:
                sent = self.sock.send(sig)
            except OSError:
                pass  # BlockingIOError, or the peer is gone: a later write finds out
            session.counters.bytes_out += sent
        session.start_connection(self, self.peer_address, self.fd, sent)
        if session.done:
            # The socket closed while the send let its thread run: its
            # session ended with no engine to close, so this one ends here.
            self._lost()
            return
        self._mask = READ
        self.io.register(self.fd, self, READ)
        if sent < len(sig) or not sig:
            # Part of the signature is queued, or a raw connection may have
            # output. A whole signature sent leaves nothing until the peer's.
            self._io_flush()

    def on_readable(self) -> None:
        if self._closed:
            return
        conn = self.session.conn
        hint = _waiting_bytes(self.fd) if conn is not None and conn.receiving_big_frame else -1
        rounds = 0
        while True:
            try:
                n = self.session.receive_with(self._recv_into, True, hint, self._recv_body(hint))
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
                n = self.session.receive_with(self._recv_into, False, hint, self._recv_body(hint))
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
        return self._recv if hint > 0 else None

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

        Once the body is arriving in storage (`body_read`), what is waiting
        is read at once, however little: the sender is writing the rest
        right now, and each return to readiness is a wake-up - on asyncio a
        turn of the loop, which cost more than the reads it saved. Over ipc
        the rule above never held anyway (a unix socket is readable at one
        byte whatever SO_RCVLOWAT says, and a peer with the default send
        buffer keeps about 208 KiB in flight). Over tcp, reading on took a
        1 MiB asyncio round trip from 3.5 to 3.0 loop turns a side (issue
        14). Right after the header the engine still waits unless the rest
        is there: a body that arrives whole may be received as bytes of its
        own (the direct body), which a partial read into storage rules out."""
        conn = self.session.conn
        if conn is None or not conn.receiving_big_frame or self._closed:
            return -1
        waiting = _waiting_bytes(self.fd)
        if waiting <= 0:
            return -1
        left = conn.big_frame_remaining
        if waiting >= left or body_read:
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

    # ------------------------------------------------------------ reactors
    def move_to(self, new: Reactor) -> None:
        """Continue on another reactor (an asyncio socket closing while it still
        has messages to deliver hands them to the I/O thread). Call on the
        current reactor's thread."""
        if self._closed or new is self.io:
            return
        with self._interest_lock:
            self._mask = -1
        self.io.unregister(self.fd)
        self._cancel_timers()
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
