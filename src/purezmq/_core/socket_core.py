"""SocketCore: the socket as the engine sees it.

It holds the options, the pattern (the socket type's routing logic), the
socket-side ends of its pipes, its endpoints and its mailbox. The sync facade
(`purezmq.sugar.socket.Socket`) wraps it with pyzmq's API; the asyncio facade
will wrap the same object.

Threads. Only the owning application thread calls the public methods. Other
threads (the I/O thread, inproc peers) talk to it through `post()`: a command
in a deque and, on the first command after a drain, one signal on the
socket's eventfd - which is also the socket's FD option. Commands are
processed at the start of every operation and whenever a blocked call wakes.
"""

from __future__ import annotations

import errno
import select
import struct
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from purezmq import constants as C
from purezmq._routing.errors import RoutingError
from purezmq._routing.patterns import PATTERNS
from purezmq._routing.pipe import Msg, Pipe, pipepair
from purezmq._transport.address import (
    AddressError,
    Endpoint,
    Tuning,
    check_tcp,
    ipc_path,
    parse_endpoint,
)
from purezmq._zmtp.socktypes import sends_identity
from purezmq.error import ZMQError, raise_errno

from . import security
from .clock import monotonic
from .options import SocketOptions
from .session import Session, SessionConfig
from .signaler import Signaler

if TYPE_CHECKING:
    from .context_core import ContextCore

#: The direct read path (see _block_recv) serves sockets with at most this many
#: connections: parking costs two epoll_ctl calls per connection per wait.
DIRECT_READ_MAX = 4

# Plain ints for the hot path (IntFlag arithmetic goes through enum code).
_POLLIN = int(C.POLLIN)
_POLLOUT = int(C.POLLOUT)

# Mailbox commands (first item of each tuple).
_ATTACH, _IDENTIFIED, _READ, _WRITE, _CLOSED, _HICCUP = range(6)

_ERRNO = {
    "EFSM": C.EFSM,
    "EHOSTUNREACH": errno.EHOSTUNREACH,
    "ENOTSUP": C.ENOTSUP,
    "EINVAL": errno.EINVAL,
}


def _routing_error(e: RoutingError) -> ZMQError:
    return ZMQError(_ERRNO.get(e.errno_name, errno.EINVAL), e.message)


class SocketCore:
    """One socket: pattern, options, pipes, endpoints, mailbox (see module doc)."""

    def __init__(self, ctx: ContextCore, socket_type: int) -> None:
        try:
            name = C.SocketType(socket_type).name
        except ValueError:
            raise ZMQError(errno.EINVAL, f"Invalid socket type: {socket_type!r}") from None
        pattern_cls = PATTERNS.get(name)
        if pattern_cls is None:
            raise ZMQError(errno.EINVAL, f"Socket type {name} is not supported by purezmq yet")
        self.ctx = ctx
        self.type = socket_type
        self.type_name = name
        self.pattern = pattern_cls()
        self.options = SocketOptions(socket_type)
        self._mailbox: deque[tuple[Any, ...]] = deque()
        self._post_lock = threading.Lock()
        self._signaler = Signaler()
        self._signaled = False
        self._pipes: set[Pipe] = set()
        self._pipe_sessions: dict[Pipe, Session] = {}
        self._sessions: set[Session] = set()
        self._binds: dict[str, list[Any]] = {}
        self._connects: dict[str, list[tuple[Session | None, Any, Pipe | None]]] = {}
        self._inproc_binds: list[str] = []
        self._rcv: Msg | None = None
        self._rcv_i = 0
        self._closed = False
        self.last_endpoint = ""
        #: When this socket's own thread last wrote to one of its connections
        #: directly (monotonic). Engines read it to tell sparse sends, which go
        #: out at once, from a burst - including a PUB fanning one message out
        #: to many connections - which the I/O thread batches.
        self.direct_write_at = 0.0
        self._monitor: Any = None
        self._monitor_lock = threading.Lock()
        self._monitor_events = 0
        #: How other threads wake the owner: the eventfd by default; the
        #: asyncio facade installs a loop callback instead (see post()).
        self._wake: Callable[[], None] = self._signaler.signal
        #: Driver for tcp/ipc endpoints; None = the context's (its I/O thread).
        #: purezmq.asyncio sockets set their event loop's driver here.
        self.driver: Any = None
        #: Closed or its context terminating: one check on the hot path.
        self._dead = False
        # The pattern's hot methods, bound once (patterns never rebind them).
        self._psend = self.pattern.send
        self._precv = self.pattern.recv
        self._install_option_hooks()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<SocketCore {self.type_name} {state}>"

    # ================================================================ mailbox
    def post(self, *cmd: Any) -> None:
        """Queue a command for the owning thread and wake it. Any thread."""
        with self._post_lock:
            if self._closed:
                return
            self._mailbox.append(cmd)
            if not self._signaled:
                self._signaled = True
                self._wake()

    def process_commands(self) -> None:
        """Run queued commands (owning thread)."""
        # Drain the signal *before* clearing the flag and reading the queue: a
        # command posted in between then re-signals, and none is ever missed.
        # No flag, no signal: writers raise the flag before they signal.
        if self._signaled:
            self._signaler.drain()
            self._signaled = False
        mailbox = self._mailbox
        pattern = self.pattern
        while mailbox:
            cmd = mailbox.popleft()
            kind, pipe = cmd[0], cmd[1]
            if kind == _READ:
                if pipe in self._pipes:
                    pattern.read_activated(pipe)
            elif kind == _WRITE:
                if pipe in self._pipes:
                    pattern.write_activated(pipe)
            elif kind == _ATTACH:
                self._attach(pipe, cmd[2], cmd[3])
            elif kind == _CLOSED:
                self._peer_closed(pipe)
            elif kind == _IDENTIFIED:
                if pipe in self._pipes:
                    pattern.pipe_identified(pipe)
            elif kind == _HICCUP and pipe in self._pipes:
                pattern.hiccuped(pipe)

    # PipeOwner: pipes call these from the peer's thread.
    def read_activated(self, pipe: Pipe) -> None:
        self.post(_READ, pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self.post(_WRITE, pipe)

    def read_activated_here(self, pipe: Pipe) -> None:
        """read_activated from the owning thread itself (direct reads): queued
        for process_commands, which runs next, without a wake-up."""
        self._mailbox.append((_READ, pipe))

    def pipe_closed(self, pipe: Pipe) -> None:
        self.post(_CLOSED, pipe)

    def hiccuped(self, pipe: Pipe) -> None:
        self.post(_HICCUP, pipe)

    # ================================================================ pipes
    def attach_pipe_from_session(self, pipe: Pipe, session: Session) -> None:
        """A session made a pipe pair; `pipe` is our end. Any thread."""
        pipe.set_owner(self)
        self.post(_ATTACH, pipe, session, session.config.connect_side)

    def attach_inproc_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        pipe.set_owner(self)
        self.post(_ATTACH, pipe, None, locally_initiated)

    def post_identified(self, pipe: Pipe) -> None:
        self.post(_IDENTIFIED, pipe)

    def _attach(self, pipe: Pipe, session: Session | None, locally_initiated: bool) -> None:
        if self._closed:
            pipe.close()
            return
        self._pipes.add(pipe)
        if session is not None:
            self._pipe_sessions[pipe] = session
        self.pattern.attach_pipe(pipe, locally_initiated)

    def _peer_closed(self, pipe: Pipe) -> None:
        """The other end closed: the pattern forgets the pipe (fq still drains
        what was queued), and we close our end so the pair is finished."""
        if pipe not in self._pipes:
            return
        self._pipes.discard(pipe)
        self._pipe_sessions.pop(pipe, None)
        self.pattern.pipe_terminated(pipe)
        pipe.close()

    def _terminate_pipe(self, pipe: Pipe, discard_inbound: bool) -> None:
        """We end a pipe (disconnect, close): the pattern forgets it now."""
        if discard_inbound:
            pipe.abandon()  # in_closed: fq drops it at once, later input is ignored
        if pipe in self._pipes:
            self._pipes.discard(pipe)
            self._pipe_sessions.pop(pipe, None)
            self.pattern.pipe_terminated(pipe)
        pipe.set_owner(None)
        pipe.close()

    # ================================================================ sessions
    def session_started(self, session: Session) -> None:
        """A bind-side session was made by an accepting endpoint. Any thread."""
        with self._post_lock:
            self._sessions.add(session)

    def session_done(self, session: Session) -> None:
        """A session ended (connection gone, linger over). Any thread."""
        with self._post_lock:
            self._sessions.discard(session)
        self.ctx.session_done(session)

    def live_sessions(self) -> list[Session]:
        with self._post_lock:
            return [s for s in self._sessions if not s.done]

    def make_session_config(self, endpoint: str, connect_side: bool) -> SessionConfig:
        """Snapshot the options a new connection uses (libzmq copies them too)."""
        o = self.options
        linger_ms = o.value(C.LINGER)
        hb_timeout = o.value(C.HEARTBEAT_TIMEOUT)
        rid = o.value(C.ROUTING_ID)
        return SessionConfig(
            socket_type=self.type_name,
            endpoint=endpoint,
            connect_side=connect_side,
            sndhwm=o.value(C.SNDHWM),
            rcvhwm=o.value(C.RCVHWM),
            # A STREAM peer is a new peer on every connection (no queue across them).
            immediate=bool(o.value(C.IMMEDIATE)) or self.type_name == "STREAM",
            conflate=bool(o.value(C.CONFLATE)) and self.type_name in _CONFLATE_TYPES,
            linger=None if linger_ms < 0 else linger_ms / 1000.0,
            routing_id=rid,
            sends_identity=sends_identity(self.type_name),
            handshake_ivl=o.value(C.HANDSHAKE_IVL) / 1000.0,
            heartbeat_ivl=o.value(C.HEARTBEAT_IVL) / 1000.0,
            heartbeat_ttl=o.value(C.HEARTBEAT_TTL) / 1000.0,
            heartbeat_timeout=-1.0 if hb_timeout < 0 else hb_timeout / 1000.0,
            max_msg_size=o.value(C.MAXMSGSIZE),
            reconnect_ivl=o.value(C.RECONNECT_IVL) / 1000.0,
            reconnect_ivl_max=o.value(C.RECONNECT_IVL_MAX) / 1000.0,
            # ZMQ_METADATA: application properties (X-...) sent in READY/INITIATE.
            metadata={
                name.decode("ascii", "replace"): value for name, value in o.value(C.METADATA)
            },
            raw=self.type_name == "STREAM",
            stream_notify=bool(o.value(C.STREAM_NOTIFY)),
            mechanism_factory=security.mechanism_factory(o, self.ctx),
        )

    # ================================================================ send / recv
    def mark_terminating(self) -> None:
        """The context is terminating: every call raises ETERM from now on."""
        self._dead = True

    def _check_open(self) -> None:
        if self._closed:
            raise ZMQError(errno.ENOTSOCK, "Socket operation on non-socket (the socket is closed)")
        if self.ctx.terminating:
            raise_errno(C.ETERM)

    def send_frame(self, frame: Any, flags: int) -> None:
        """Send one frame; `flags` as pyzmq's (SNDMORE 2, NOBLOCK 1).

        The hot path of every send: one liveness check, the mailbox only when
        something is in it, and straight into the pattern."""
        if self._dead:
            self._check_open()
        if self._mailbox:
            self.process_commands()
        more = (flags & 2) != 0
        try:
            if self._psend(frame, more):
                return
            if flags & 1:
                raise_errno(errno.EAGAIN)
            self._block(lambda: self._psend(frame, more), self.options.value(C.SNDTIMEO))
        except RoutingError as e:
            raise _routing_error(e) from None

    def send_msg(self, frames: Msg, nonblock: bool) -> None:
        """Send a whole message; EAGAIN can only happen before anything was sent."""
        if self._dead:
            self._check_open()
        if self._mailbox:
            self.process_commands()
        try:
            if self.pattern.send_msg(frames):
                return
            if nonblock:
                raise_errno(errno.EAGAIN)
            self._block(lambda: self.pattern.send_msg(frames), self.options.value(C.SNDTIMEO))
        except RoutingError as e:
            raise _routing_error(e) from None

    def _next_msg(self, nonblock: bool) -> Msg:
        if self._dead:
            self._check_open()
        if self._mailbox:
            self.process_commands()
        try:
            msg = self._precv()
        except RoutingError as e:
            raise _routing_error(e) from None
        if msg is None:
            msg = self._wait_msg(nonblock)
        return msg

    def _wait_msg(self, nonblock: bool) -> Msg:
        """No message now: EAGAIN, or block until one comes (RCVTIMEO)."""
        if nonblock:
            raise_errno(errno.EAGAIN)
        precv = self._precv
        box: list[Msg] = []

        def attempt() -> bool:
            m = precv()
            if m is None:
                return False
            box.append(m)
            return True

        try:
            self._block_recv(attempt, self.options.value(C.RCVTIMEO))
        except RoutingError as e:
            raise _routing_error(e) from None
        return box[0]

    def recv_bytes(self, flags: int) -> Any:
        """The next frame only (recv with copy=True): the hottest receive path."""
        msg = self._rcv
        if msg is None:
            if self._dead:
                self._check_open()
            if self._mailbox:
                self.process_commands()
            try:
                msg = self._precv()
            except RoutingError as e:
                raise _routing_error(e) from None
            if msg is None:
                msg = self._wait_msg(bool(flags & 1))
            if len(msg) == 1:
                return msg[0]
            self._rcv = msg
            self._rcv_i = 1
            return msg[0]
        i = self._rcv_i
        frame = msg[i]
        i += 1
        if i == len(msg):
            self._rcv = None
        else:
            self._rcv_i = i
        return frame

    def recv_frame(self, nonblock: bool) -> tuple[Any, bool]:
        """The next frame and whether more frames of its message follow."""
        msg = self._rcv
        if msg is not None:
            i = self._rcv_i
            frame = msg[i]
            i += 1
            if i == len(msg):
                self._rcv = None
                return frame, False
            self._rcv_i = i
            return frame, True
        msg = self._next_msg(nonblock)
        if len(msg) == 1:
            return msg[0], False
        self._rcv = msg
        self._rcv_i = 1
        return msg[0], True

    def recv_msg(self, nonblock: bool) -> Msg:
        """The rest of the current message, or the next whole message."""
        msg = self._rcv
        if msg is not None:
            self._rcv = None
            return msg[self._rcv_i :]
        return self._next_msg(nonblock)

    @property
    def rcvmore(self) -> bool:
        return self._rcv is not None

    def recv_undoable(self, whole: bool, nonblock: bool) -> tuple[Any, bool, tuple[Any, ...]]:
        """`recv_msg` (whole) or `recv_frame`, plus a token for `undo_recv`.

        For cancellation that loses nothing (purezmq.asyncio): if the caller is
        cancelled after the message left the socket but before it reached the
        caller, `undo_recv` puts it back exactly where it was."""
        if whole:
            msg = self._rcv
            start = self._rcv_i if msg is not None else 0
            frames = self.recv_msg(nonblock)
            full = msg if msg is not None else frames
            return frames, False, (full, start, self._rcv, self._rcv_i)
        msg = self._rcv
        start = self._rcv_i if msg is not None else 0
        frame, more = self.recv_frame(nonblock)
        full = self._rcv if self._rcv is not None else (msg if msg is not None else [frame])
        return frame, more, (full, start, self._rcv, self._rcv_i)

    def undo_recv(self, token: tuple[Any, ...]) -> bool:
        """Undo a `recv_undoable` if nothing was received since. True on success."""
        full, start, rcv_after, i_after = token
        if self._rcv is not rcv_after or self._rcv_i != i_after:
            return False
        self._rcv = full
        self._rcv_i = start
        return True

    @property
    def last_metadata(self) -> dict[str, str]:
        """Properties of the connection the last message came from."""
        pipe = self.pattern.last_pipe
        meta = dict(pipe.metadata) if pipe is not None else {}
        meta.setdefault("Socket-Type", meta.get("Socket-Type", ""))
        return meta

    def _block_recv(self, attempt: Callable[[], bool], timeout_ms: int) -> None:
        """Block for a receive, reading our connections ourselves when we can.

        The direct read path: with few connections, the receiving thread parks
        them (the I/O thread stops reading them) and waits on their descriptors
        together with the socket's own signal. A message then wakes this thread
        once - as a plain blocking socket would - instead of waking the I/O
        thread, which would then have to wake us."""
        parked = self._park_engines()
        if not parked:
            self._block(attempt, timeout_ms)
            return
        try:
            self._block(attempt, timeout_ms, parked)
        finally:
            for engine in parked.values():
                engine.unpark()

    def parked_fds(self) -> list[int]:
        """Descriptors of connections the direct read path parked: a poller
        waiting on this socket must watch them too (nobody else reads them)."""
        fds = []
        for engine in self._engines():
            parked_fd = getattr(engine, "parked_fd", None)
            fd = parked_fd() if parked_fd is not None else None
            if fd is not None:
                fds.append(fd)
        return fds

    def _engines(self) -> list[Any]:
        with self._post_lock:
            return [s.engine for s in self._sessions if s.engine is not None]

    def _read_parked(self) -> None:
        """Read parked connections now (their data wakes nobody else)."""
        for engine in self._engines():
            read = getattr(engine, "read_if_parked", None)
            if read is not None:
                read()

    def _park_engines(self) -> dict[int, Any]:
        with self._post_lock:
            if len(self._sessions) > DIRECT_READ_MAX:
                return {}
            engines = [s.engine for s in self._sessions if s.engine is not None]
        parked: dict[int, Any] = {}
        for engine in engines:
            park = getattr(engine, "park", None)  # only some drivers read directly
            fd = park() if park is not None else None
            if fd is not None:
                parked[fd] = engine
        return parked

    def _block(
        self, attempt: Callable[[], bool], timeout_ms: int, parked: dict[int, Any] | None = None
    ) -> None:
        """Wait until `attempt()` succeeds: EAGAIN after `timeout_ms` (-1 = never),
        ETERM when the context terminates. Signal handlers run while waiting."""
        deadline = None if timeout_ms < 0 else monotonic() + timeout_ms / 1000.0
        signaler = self._signaler
        ctx = self.ctx
        poller = None
        if parked:
            poller = select.poll()
            poller.register(signaler.fileno(), select.POLLIN)
            for fd in parked:
                poller.register(fd, select.POLLIN)
        while True:
            if deadline is None:
                remaining = None
            else:
                remaining = deadline - monotonic()
                if remaining <= 0:
                    raise_errno(errno.EAGAIN)
            if poller is None or parked is None:
                signaler.wait(remaining)
            else:
                ms = -1 if remaining is None else max(0, int(remaining * 1000 + 0.999))
                for fd, _ in poller.poll(ms):
                    engine = parked.get(fd)
                    if engine is not None and not engine.read_direct():
                        poller.unregister(fd)  # the connection ended: the driver tidies up
                        del parked[fd]
            self.process_commands()
            # Checked after the drain: term() sets `terminating` before it wakes
            # us, so a wake-up the drain consumed cannot hide it.
            if self._closed:
                raise ZMQError(
                    errno.ENOTSOCK, "Socket operation on non-socket (closed while waiting)"
                )
            if ctx.terminating:
                raise_errno(C.ETERM)
            if attempt():
                return

    # ================================================================ polling
    def events(self) -> int:
        """POLLIN / POLLOUT readiness now (the EVENTS option)."""
        if self._closed:
            raise ZMQError(errno.ENOTSOCK, "Socket operation on non-socket (the socket is closed)")
        if self._sessions:
            self._read_parked()
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
            raise _routing_error(e) from None
        return ev

    def fileno(self) -> int:
        """The descriptor that becomes readable when events() may have changed."""
        self._check_open_for_options()
        return self._signaler.fileno()

    def wake(self) -> None:
        """Make blocked calls re-check their condition (context term).

        Raises the flag as `post` does, so the next `process_commands` (a
        blocked call waking, or reading EVENTS) drains the signal: the FD
        must not stay readable after it was read, or an event loop watching
        it would spin."""
        with self._post_lock:
            if not self._signaler.closed:
                self._signaled = True
                self._wake()

    def set_waker(self, wake: Callable[[], None]) -> None:
        """Replace how the owner is woken (the asyncio facade: a loop callback)."""
        self._wake = wake

    def signal_fd(self) -> None:
        """Make the FD readable (for wakers that also serve FD users)."""
        if not self._signaler.closed:
            self._signaler.signal()

    # ================================================================ options
    def setsockopt(self, option: int, value: Any) -> None:
        self._check_open_for_options()
        self.options.set(option, value)  # pattern options reach _forward_option
        if option == C.INVERT_MATCHING and "invert_matching" in self.pattern.options:
            self._forward_option("invert_matching", self.options.value(option))
        elif option in (C.SNDHWM, C.RCVHWM):
            self._update_pipe_hwms()

    def _update_pipe_hwms(self) -> None:
        """libzmq 4.3 applies new HWMs to existing pipes too, not just new ones."""
        o = self.options
        snd: int = o.value(C.SNDHWM)
        rcv: int = o.value(C.RCVHWM)
        for pipe in self._pipes:
            if pipe.conflate:
                continue
            peer_end = pipe.peer
            owner = peer_end.owner
            if isinstance(owner, SocketCore):  # inproc: both sockets' marks add up
                po = owner.options
                pipe.set_hwms(_sum_hwm(snd, po.value(C.RCVHWM)), _sum_hwm(rcv, po.value(C.SNDHWM)))
            else:
                pipe.set_hwms(snd, rcv)
            if owner is not None:
                owner.write_activated(peer_end)  # a paused reader may have room now
            if pipe.check_write():
                self.pattern.write_activated(pipe)  # lb/dist may have parked it as full

    def _forward_option(self, name: str, value: object) -> None:
        """Hand a validated pattern option to the pattern (options.forward)."""
        try:
            self.pattern.set_option(name, value)
        except RoutingError as e:
            raise _routing_error(e) from None

    def getsockopt(self, option: int) -> Any:
        self._check_open_for_options()
        return self.options.get(option)

    def _last_endpoint_bytes(self) -> bytes:
        return self.last_endpoint.encode()

    def _install_option_hooks(self) -> None:
        o = self.options
        o.forward = self._forward_option
        o.provide(C.EVENTS, self.events)
        o.provide(C.FD, self.fileno)
        o.provide(C.RCVMORE, lambda: 1 if self._rcv is not None else 0)
        o.provide(C.LAST_ENDPOINT, self._last_endpoint_bytes)
        if "topics_count" in self.pattern.options:
            o.provide(C.TOPICS_COUNT, lambda: int(self.pattern.get_option("topics_count")))

    def _check_open_for_options(self) -> None:
        if self._closed:
            raise ZMQError(errno.ENOTSOCK, "Socket operation on non-socket (the socket is closed)")

    # ================================================================ endpoints
    def _driver(self) -> Any:
        return self.driver if self.driver is not None else self.ctx.driver()

    def _parse(self, addr: str) -> Endpoint:
        try:
            return parse_endpoint(addr)
        except AddressError as e:
            raise ZMQError(e.errno, e.message) from None

    def bind(self, addr: str) -> None:
        self._check_open()
        ep = self._parse(addr)
        if ep.protocol == "inproc":
            self.ctx.inproc_bind(ep.address, self)
            self._inproc_binds.append(ep.address)
            self.last_endpoint = addr
            self.process_commands()  # attach pending connects now, as libzmq's bind does
            return
        security.check_available(self.options)  # before a listener exists
        driver = self._driver()
        o = self.options
        try:
            bound = driver.bind(
                self,
                ep,
                lambda uri: self.make_session_config(uri, connect_side=False),
                ipv6=bool(o.value(C.IPV6)),
                backlog=o.value(C.BACKLOG),
                tuning=self._tuning(),
            )
        except AddressError as e:
            self.monitor_event(C.EVENT_BIND_FAILED, e.errno, addr)
            raise ZMQError(e.errno, f"{e.message} (addr={addr!r})") from None
        except OSError as e:
            code = e.errno or errno.EINVAL
            self.monitor_event(C.EVENT_BIND_FAILED, code, addr)
            raise ZMQError(code, f"{_strerror(code)} (addr={addr!r})") from None
        self._binds.setdefault(bound.uri, []).append(bound)
        self.last_endpoint = bound.uri
        listener = bound.listener
        self.monitor_event(C.EVENT_LISTENING, listener.fd if listener else -1, bound.uri)

    def connect(self, addr: str) -> None:
        self._check_open()
        ep = self._parse(addr)
        if ep.protocol == "inproc":
            pipe = self.ctx.inproc_connect(self, ep.address)
            inproc_rid: bytes = self.options.value(C.CONNECT_ROUTING_ID)
            if inproc_rid:  # for this connect only, set before the ROUTER attaches the pipe
                pipe.routing_id = inproc_rid
                self.options.store(C.CONNECT_ROUTING_ID, b"")
            self._connects.setdefault(addr, []).append((None, None, pipe))
            self.last_endpoint = addr
            self.process_commands()  # the pipe is usable when connect() returns
            return
        o = self.options
        ipv6 = bool(o.value(C.IPV6))
        try:  # validate now, as libzmq does; the connecter resolves again on each attempt
            if ep.protocol == "tcp":
                check_tcp(ep.address)
            else:
                ipc_path(ep.address, bind=False)
        except AddressError as e:
            raise ZMQError(e.errno, f"{e.message} (addr={addr!r})") from None
        driver = self._driver()
        rid: bytes = o.value(C.CONNECT_ROUTING_ID)
        if rid:  # applies to this connect only
            o.store(C.CONNECT_ROUTING_ID, b"")
        config = replace(self.make_session_config(addr, connect_side=True), connect_routing_id=rid)
        session = Session(self, config)
        session.on_done = self.session_done
        with self._post_lock:
            self._sessions.add(session)
        sock_pipe = session.pipe.peer if session.pipe is not None else None
        # The session posted its pipe (IMMEDIATE=0): attach it before returning,
        # so a send() right after connect() already has somewhere to go.
        self.process_commands()
        handle = driver.connect(session, ep, ipv6=ipv6, tuning=self._tuning())
        self._connects.setdefault(addr, []).append((session, handle, sock_pipe))
        self.last_endpoint = addr

    def _tuning(self) -> Tuning:
        o = self.options
        return Tuning(
            keepalive=(
                o.value(C.TCP_KEEPALIVE),
                o.value(C.TCP_KEEPALIVE_CNT),
                o.value(C.TCP_KEEPALIVE_IDLE),
                o.value(C.TCP_KEEPALIVE_INTVL),
            ),
            sndbuf=o.value(C.SNDBUF),
            rcvbuf=o.value(C.RCVBUF),
            tos=o.value(C.TOS),
        )

    def unbind(self, addr: str) -> None:
        self._check_open()
        ep = self._parse(addr)
        if ep.protocol == "inproc":
            if ep.address not in self._inproc_binds:
                raise ZMQError(errno.ENOENT, f"No such endpoint bound: {addr!r}")
            self._inproc_binds.remove(ep.address)
            self.ctx.inproc_unbind(ep.address, self)
            return
        handles = self._binds.pop(addr, None)
        if not handles:
            raise ZMQError(
                errno.ENOENT, f"No such endpoint bound: {addr!r} (use LAST_ENDPOINT for wildcards)"
            )
        for h in handles:
            h.close()

    def disconnect(self, addr: str) -> None:
        self._check_open()
        self._parse(addr)
        entries = self._connects.pop(addr, None)
        if not entries:
            raise ZMQError(errno.ENOENT, f"No such endpoint connected: {addr!r}")
        self.process_commands()
        current: int = self.options.value(C.LINGER)
        for session, _handle, known_pipe in entries:
            if session is not None:
                session.set_linger(None if current < 0 else current / 1000.0)
            pipe = known_pipe
            if pipe is None and session is not None and session.pipe is not None:
                pipe = session.pipe.peer
            if pipe is not None:
                self._terminate_pipe(pipe, discard_inbound=True)
            if session is not None and session.pipe is None:
                session.finish()

    # ================================================================ monitor
    def monitor_event(self, event: int, value: int, endpoint: str) -> None:
        """Send a libzmq-format event (two frames: ``=HI`` event and value, then the
        endpoint) to the monitor, if one listens for it. Any thread; an event is
        dropped when the monitor's queue is full, so it never blocks the I/O thread."""
        if not self._monitor_events & event:
            return
        with self._monitor_lock:
            mon = self._monitor
            if mon is None or mon.closed:
                return
            frames = [struct.pack("=HI", event, value & 0xFFFFFFFF), endpoint.encode()]
            try:
                mon.send_msg(frames, nonblock=True)
            except ZMQError:
                pass

    def start_monitor(self, addr: str | None, events: int) -> None:
        """Publish events on a PAIR bound at `addr` (inproc); None stops it.

        As in libzmq, the monitored socket binds the endpoint and the
        application connects its own PAIR to it."""
        self._check_open()
        self._stop_monitor()
        if addr is None:
            return
        ep = self._parse(addr)
        if ep.protocol != "inproc":
            raise ZMQError(errno.EPROTONOSUPPORT, "monitor endpoints must be inproc://")
        mon = self.ctx.socket(C.PAIR)
        try:
            mon.options.store(C.LINGER, 0)
            mon.bind(addr)
        except ZMQError:
            mon.close()
            raise
        with self._monitor_lock:
            self._monitor = mon
            self._monitor_events = events if events else C.EVENT_ALL

    def _stop_monitor(self) -> None:
        with self._monitor_lock:
            mon = self._monitor
        if mon is None:
            return
        self.monitor_event(C.EVENT_MONITOR_STOPPED, 0, "")
        with self._monitor_lock:
            self._monitor = None
            self._monitor_events = 0
            mon.close()

    def hand_over(self, driver: Any) -> None:
        """Move every endpoint still delivering (LINGER) from this socket's own
        driver to `driver`. For purezmq.asyncio sockets closing while their
        loop may stop: the context's I/O thread finishes the job. Call on the
        current driver's thread, after close()."""
        current = self.driver
        if current is None or current is driver or not self.live_sessions():
            return
        for handles in self._binds.values():
            for h in handles:
                if h.driver is current:
                    h.move_sessions(driver)
        for entries in self._connects.values():
            for _session, handle, _pipe in entries:
                if handle is not None and handle.driver is current:
                    handle.move_to(driver)

    # ================================================================ close
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, linger_ms: int | None = None) -> None:
        """Close now; queued output is delivered in the background up to LINGER."""
        if self._closed:
            return
        if linger_ms is not None:
            self.options.store(C.LINGER, linger_ms)
        self.process_commands()
        current: int = self.options.value(C.LINGER)
        linger = None if current < 0 else current / 1000.0
        with self._post_lock:
            sessions_now = list(self._sessions)
        for live in sessions_now:
            live.set_linger(linger)
        for name in self._inproc_binds:
            self.ctx.inproc_unbind(name, self)
        self._inproc_binds.clear()
        for handles in self._binds.values():
            for h in handles:
                h.stop_listening()
        for pipe in list(self._pipes):
            self._terminate_pipe(pipe, discard_inbound=True)
        for entries in self._connects.values():
            for session, _handle, _pipe in entries:
                if session is not None and session.pipe is None:
                    session.finish()
        with self._post_lock:
            self._closed = True
            self._dead = True
            self._mailbox.clear()
            sessions = [s for s in self._sessions if not s.done]
        for s in sessions:
            if s.pipe is None:
                s.finish()
        self._stop_monitor()
        self.ctx.socket_closed(self, sessions)
        self._signaler.close()


_CONFLATE_TYPES = frozenset({"DEALER", "PULL", "PUSH", "PUB", "SUB"})


def _sum_hwm(a: int, b: int) -> int:
    """libzmq's inproc HWM: both marks add up; 0 (no limit) on either side wins."""
    return a + b if a and b else 0


def _strerror(code: int) -> str:
    from purezmq.error import strerror

    return strerror(code)


__all__ = ["SocketCore", "pipepair"]
