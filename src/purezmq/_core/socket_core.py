"""SocketCore: the socket as the engine sees it.

It holds the socket type's routing logic (the pattern), the socket-side
ends of its pipes, its mailbox and its options, and composes the rest:
`Endpoints` (bind/connect), `Monitor` (events), `SessionSet` (its
connections and the direct read path) and a `Waiter` the facade provides
(how its thread sleeps). The sync facade (`purezmq.sugar.socket.Socket`) and
the asyncio one (`purezmq.asyncio.Socket`) wrap it with pyzmq's API.

Threads. Only the owning application thread calls the public methods. Other
threads (the I/O thread, inproc peers) talk to it through `post()`
(`Mailbox`, mailbox.py): a command object in a deque and, on the first
command after a drain, one signal on the waiter's descriptor - which is
also the socket's FD option. Commands run at the start of every operation
and whenever a blocked call wakes.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from purezmq import constants as C
from purezmq._routing.errors import RoutingError
from purezmq._routing.patterns import PATTERNS
from purezmq._routing.pipe import Frame, Msg, Pipe
from purezmq.error import ZMQError, raise_errno

from .clock import monotonic
from .commands import Attach, Hiccup, Identified, PeerClosed, ReadActivated, WriteActivated
from .endpoints import Endpoints
from .hwms import apply_hwms
from .mailbox import Mailbox
from .monitor import Monitor
from .options import OptionValue, SocketOptions
from .receiving import routing_error
from .sessions import DirectWrites, SessionSet
from .stats import SocketStats

if TYPE_CHECKING:
    from purezmq._routing.patterns.base import Pattern

    from .context_core import ContextCore
    from .protocols import Driver, EngineHandle
    from .session import Session

# Plain ints for the hot path (IntFlag arithmetic goes through enum code).
_POLLIN: Final = int(C.POLLIN)
_POLLOUT: Final = int(C.POLLOUT)
#: The timeout options a blocking call reads: compiled, `C.RCVTIMEO` was a
#: look-up in the constants module per blocking receive.
_RCVTIMEO: Final = int(C.RCVTIMEO)
_SNDTIMEO: Final = int(C.SNDTIMEO)
#: Type number -> name; `SocketType(n).name` runs the enum machinery per socket.
_TYPE_NAMES: Final = {int(t): t.name for t in C.SocketType}


def _not_a_socket(detail: str = "the socket is closed") -> ZMQError:
    return ZMQError(errno.ENOTSOCK, f"Socket operation on non-socket ({detail})")


class SocketCore(Mailbox):
    """One socket: pattern, pipes, mailbox, options and collaborators (see module doc)."""

    def __init__(self, ctx: ContextCore, socket_type: int) -> None:
        name = _TYPE_NAMES.get(socket_type)
        if name is None:
            raise ZMQError(errno.EINVAL, f"Invalid socket type: {socket_type!r}")
        pattern_cls = PATTERNS.get(name)
        if pattern_cls is None:
            raise ZMQError(errno.EINVAL, f"Socket type {name} is not supported by purezmq yet")
        super().__init__(pattern_cls().with_output_lock(threading.Lock()), ctx.make_waiter())
        #: The load balancer that is the pattern's whole `send` (PUSH, DEALER).
        self._lb = self.pattern.direct_lb
        self.ctx = ctx
        self.type = socket_type
        self.type_name = name
        self.options = SocketOptions(socket_type)
        self._pipes: set[Pipe] = set()
        self.monitor = Monitor()
        self.burst = DirectWrites()
        self.sessions = SessionSet()
        self.stats = SocketStats()
        self.endpoints = Endpoints(ctx, self.options)
        self.options.forward = self._forward_option  # cleared by close()
        self.options.live = self._live_option

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<SocketCore {self.type_name} {state}>"

    # ================================================================ mailbox
    def process_commands(self) -> None:
        """Run queued commands (owning thread; see mailbox.py)."""
        if self._signaled:
            self._lower_flag()
        mailbox = self._mailbox
        while mailbox:
            mailbox.popleft().run(self)

    # CommandTarget: the owning thread runs these for the commands above.
    def on_read_activated(self, pipe: Pipe) -> None:
        if pipe in self._pipes:
            self.pattern.read_activated(pipe)

    def on_write_activated(self, pipe: Pipe) -> None:
        if pipe in self._pipes:
            self.pattern.write_activated(pipe)

    def on_attach(self, pipe: Pipe, locally_initiated: bool) -> None:
        if self._closed:
            pipe.close()
            return
        self._pipes.add(pipe)
        self.pattern.attach_pipe(pipe, locally_initiated)

    def on_identified(self, pipe: Pipe) -> None:
        if pipe in self._pipes:
            self.pattern.pipe_identified(pipe)

    def on_peer_closed(self, pipe: Pipe) -> None:
        """The other end closed: the pattern forgets the pipe (fq still drains
        what was queued), and we close our end so the pair is finished."""
        if pipe not in self._pipes:
            return
        self._pipes.discard(pipe)
        self.stats.pipe_ended(pipe)
        self.pattern.pipe_terminated(pipe)
        pipe.close()

    def on_hiccup(self, pipe: Pipe) -> None:
        if pipe in self._pipes:
            self.pattern.hiccuped(pipe)

    # PipeOwner: pipes call these from the peer's thread.
    def read_activated(self, pipe: Pipe) -> None:
        self.post(ReadActivated(pipe))

    def write_activated(self, pipe: Pipe) -> None:
        self.post(WriteActivated(pipe))

    def pipe_closed(self, pipe: Pipe) -> None:
        self.post(PeerClosed(pipe))

    def hiccuped(self, pipe: Pipe) -> None:
        self.post(Hiccup(pipe))

    # SessionOwner and InprocPeer (any thread).
    def read_activated_here(self, pipe: Pipe) -> None:
        """read_activated from the owning thread itself (direct reads, between
        operations: a wait or a poll): run at once, without a command object,
        a trip through the mailbox or a wake-up."""
        self.on_read_activated(pipe)

    def attach_pipe_from_session(self, pipe: Pipe, session: Session) -> None:
        """A session made a pipe pair; `pipe` is our end."""
        pipe.set_owner(self)
        self.post(Attach(pipe, session.config.connect_side))

    def attach_inproc_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        pipe.set_owner(self)
        self.post(Attach(pipe, locally_initiated))

    def post_identified(self, pipe: Pipe) -> None:
        self.post(Identified(pipe))

    def session_started(self, session: Session) -> None:
        self.sessions.add(session)

    def session_done(self, session: Session) -> None:
        self.sessions.discard(session)
        self.stats.session_ended(session)
        self.ctx.session_done(session)

    def get_stats(self) -> dict[str, Any]:
        """Statistics of this socket and its connections (see stats.py)."""
        if self._closed:
            raise _not_a_socket()
        self.process_commands()
        pipes = [(p, p.label) for p in self._pipes]
        return self.stats.snapshot(self.type_name, pipes, self.sessions.live())

    def live_sessions(self) -> list[Session]:
        return self.sessions.live()

    def terminate_pipe(self, pipe: Pipe) -> None:
        """We end a pipe (disconnect, close): the pattern forgets it now, and
        what it still holds inbound is dropped (libzmq's fq forgets it too)."""
        pipe.abandon()
        if pipe in self._pipes:
            self._pipes.discard(pipe)
            self.stats.pipe_ended(pipe)
            self.pattern.pipe_terminated(pipe)
        pipe.set_owner(None)
        pipe.close()

    # ================================================================ send
    def mark_terminating(self) -> None:
        """The context is terminating: every call raises ETERM from now on."""
        self._dead = True

    def _check_open(self) -> None:
        if self._closed:
            raise _not_a_socket()
        if self.ctx.terminating:
            raise_errno(C.ETERM)

    def send_frame(self, frame: Frame, flags: int) -> None:
        """Send one frame; `flags` as pyzmq's (SNDMORE 2, NOBLOCK 1).

        The hot path of every send: one liveness check, the mailbox only when
        something is in it, and straight into the pattern."""
        if self._dead:
            self._check_open()
        if self._mailbox:
            self.process_commands()
        more = (flags & 2) != 0
        lb = self._lb
        pattern = self.pattern
        try:
            if lb.send(frame, more) if lb is not None else pattern.send(frame, more):
                return
            if flags & 1:
                raise_errno(errno.EAGAIN)
            self._block_send(pattern, frame, more)
        except RoutingError as e:
            raise routing_error(e) from None

    def _block_send(self, pattern: Pattern, frame: Frame, more: bool) -> None:
        """`send_frame` when it must wait. A method of its own: compiled, a
        lambda in `send_frame` would make every call of it allocate the
        environment its captured variables live in (issue 14)."""
        self._block(lambda: pattern.send(frame, more), self.options.value(_SNDTIMEO))

    def send_msg(self, frames: Msg, nonblock: bool) -> None:
        """Send a whole message; EAGAIN can only happen before anything was sent."""
        if self._dead:
            self._check_open()
        if self._mailbox:
            self.process_commands()
        pattern = self.pattern
        try:
            if pattern.send_msg(frames):
                return
            if nonblock:
                raise_errno(errno.EAGAIN)
            self._block_send_msg(pattern, frames)
        except RoutingError as e:
            raise routing_error(e) from None

    def _block_send_msg(self, pattern: Pattern, frames: Msg) -> None:
        """`send_msg` when it must wait (a method of its own: see `_block_send`)."""
        self._block(lambda: pattern.send_msg(frames), self.options.value(_SNDTIMEO))

    # ================================================================ waiting
    def _block_recv(self, attempt: Callable[[], bool]) -> None:
        """Block for a receive, reading our connections ourselves when we can
        (the direct read path, sessions.py): with few connections we park
        them and wait on their descriptors too, so a message wakes us once."""
        timeout_ms: int = self.options.value(_RCVTIMEO)
        parked = self.sessions.park()
        if not parked:
            self._block(attempt, timeout_ms)
            return
        try:
            self._block(attempt, timeout_ms, parked)
        finally:
            for engine in parked.values():
                engine.unpark()

    def parked_fds(self) -> list[int]:
        """Descriptors a poller waiting on this socket must watch too."""
        return self.sessions.parked_fds()

    def poll(self, flags: int, timeout_ms: int) -> int:
        """`Socket.poll`: the events among `flags` once one is there, 0 after
        `timeout_ms` (-1: no limit). What a poller of this socket alone does
        (wait on its signal and on connections a receive left parked, then
        look) without building one: a server loop polls once per message."""
        deadline = None if timeout_ms < 0 else monotonic() + timeout_ms / 1000.0
        while True:
            ev = self.events() & flags  # ENOTSOCK, ETERM as a poller raises them
            if ev:
                return ev
            remaining = None if deadline is None else deadline - monotonic()
            if remaining is not None and remaining <= 0:
                return 0
            self._waiter.wait_also(remaining, self.sessions.parked_fds())

    def _block(
        self,
        attempt: Callable[[], bool],
        timeout_ms: int,
        parked: dict[int, EngineHandle] | None = None,
    ) -> None:
        """Wait until `attempt()` succeeds: EAGAIN after `timeout_ms` (-1 = never),
        ETERM when the context terminates. Signal handlers run while waiting."""
        deadline = None if timeout_ms < 0 else monotonic() + timeout_ms / 1000.0
        waiter = self._waiter
        ctx = self.ctx
        while True:
            if deadline is None:
                remaining = None
            else:
                remaining = deadline - monotonic()
                if remaining <= 0:
                    raise_errno(errno.EAGAIN)
            if parked:
                waiter.wait_reading(remaining, parked)
            else:
                waiter.wait(remaining)
            self.process_commands()
            # Checked after the drain: term() sets `terminating` before it wakes
            # us, so a wake-up the drain consumed cannot hide it.
            if self._closed:
                raise _not_a_socket("closed while waiting")
            if ctx.terminating:
                raise_errno(C.ETERM)
            if attempt():
                return

    # ================================================================ polling
    def events(self) -> int:
        """POLLIN / POLLOUT readiness now (the EVENTS option)."""
        if self._closed:
            raise _not_a_socket()
        if self.sessions:
            self.sessions.read_parked()
        self.process_commands()
        # After draining: a term() wake-up consumed by process_commands is
        # not lost, because terminating is set before that wake-up is sent.
        if self.ctx.terminating:
            raise_errno(C.ETERM)
        ev = 0
        try:
            if self._rcv is not None or self.pattern.has_in():
                ev |= _POLLIN
            if self.pattern.has_out():
                ev |= _POLLOUT
        except RoutingError as e:
            raise routing_error(e) from None
        return ev

    def fileno(self) -> int:
        """The descriptor that becomes readable when events() may have changed."""
        if self._closed:
            raise _not_a_socket()
        self._fd_given = True
        return self._waiter.fileno()

    # ================================================================ options
    def setsockopt(self, option: int, value: object) -> None:
        if self._closed:
            raise _not_a_socket()
        self.options.set(option, value)  # pattern options reach _forward_option
        if option == C.INVERT_MATCHING and "invert_matching" in self.pattern.options:
            self._forward_option("invert_matching", self.options.value(option))
        elif option in (C.SNDHWM, C.RCVHWM):
            apply_hwms(self._pipes, self.options, self.pattern.write_activated)

    def _forward_option(self, name: str, value: object) -> None:
        """Hand a validated pattern option to the pattern (options.forward)."""
        try:
            self.pattern.set_option(name, value)
        except RoutingError as e:
            raise routing_error(e) from None

    def getsockopt(self, option: int) -> OptionValue:
        if self._closed:
            raise _not_a_socket()
        return self.options.get(option)

    def _live_option(self, option: int) -> OptionValue | None:
        """The options our state answers (`SocketOptions.live`); None: stored."""
        if option == C.EVENTS:
            return self.events()
        if option == C.FD:
            return self.fileno()
        if option == C.RCVMORE:
            return 1 if self._rcv is not None else 0
        if option == C.LAST_ENDPOINT:
            return self.endpoints.last_endpoint.encode()
        if option == C.TOPICS_COUNT and "topics_count" in self.pattern.options:
            return int(self.pattern.get_option("topics_count"))
        return None

    # ================================================================ endpoints
    @property
    def driver(self) -> Driver | None:
        """The driver of this socket's tcp/ipc endpoints; None = the context's."""
        return self.endpoints.driver

    @driver.setter
    def driver(self, driver: Driver | None) -> None:
        self.endpoints.driver = driver

    @property
    def last_endpoint(self) -> str:
        return self.endpoints.last_endpoint

    def bind(self, addr: str) -> None:
        self._check_open()
        self.endpoints.bind(self, addr)

    def connect(self, addr: str) -> None:
        self._check_open()
        self.endpoints.connect(self, addr)

    def unbind(self, addr: str) -> None:
        self._check_open()
        self.endpoints.unbind(self, addr)

    def disconnect(self, addr: str) -> None:
        self._check_open()
        self.endpoints.disconnect(self, addr)

    def hand_over(self, driver: Driver) -> None:
        """Move endpoints still delivering (LINGER) to `driver` (see Endpoints)."""
        if self.live_sessions():
            self.endpoints.hand_over(driver)

    # ================================================================ monitor
    def start_monitor(self, addr: str | None, events: int) -> None:
        """Publish events on a PAIR bound at `addr` (inproc); None stops it."""
        self._check_open()
        self.monitor.start(self.ctx, addr, events)

    # ================================================================ close
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, linger_ms: int | None = None) -> None:
        """Close now; queued output is delivered in the background up to LINGER."""
        if self._closed:
            return
        self.process_commands()
        # close(linger) stores nothing: a closed socket's options are never read.
        current: int = self.options.value(C.LINGER) if linger_ms is None else linger_ms
        linger = None if current < 0 else current / 1000.0
        for live in self.sessions.snapshot():
            live.set_linger(linger)
        self.endpoints.close(self)
        for pipe in list(self._pipes):
            self.terminate_pipe(pipe)
        self.endpoints.finish_pipeless()
        with self._post_lock:
            self._closed = True
            self._dead = True
            self._mailbox.clear()
        sessions = self.sessions.live()
        for s in sessions:
            if s.pipe is None:
                s.finish()
        self.monitor.stop()
        self.ctx.recycle_waiter(self._waiter, reusable=not self._fd_given)
        self.ctx.socket_closed(self, sessions)
        # What lingers needs nothing of ours: let reference counting free us.
        if self.endpoints.release():
            self.sessions.release()
        self.options.forward = self.options.live = None
