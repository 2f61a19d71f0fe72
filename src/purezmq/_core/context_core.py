"""ContextCore: the sockets of one context, its driver, inproc names, and term.

There is no global state: everything a socket shares with others lives
here. The I/O driver is created on first use by a factory the facade
registers (`_core` never imports a driver), so an inproc-only context never
starts a thread; each socket's `Waiter` (how its thread sleeps and is
woken) comes from a factory the facade registers too.

Termination follows libzmq: `term()` wakes every blocked call with ETERM,
waits until the application has closed every socket, then waits for each
closed socket's sessions to deliver what they hold (LINGER: forever when -1,
at most that long otherwise), and finally stops the I/O thread.
"""

from __future__ import annotations

import errno
import os
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from purezmq import constants as C
from purezmq._routing.pipe import Pipe, pipepair
from purezmq.error import ZMQError

from .hwms import sum_hwm
from .options import ContextOptions
from .session_config import CONFLATE_TYPES

if TYPE_CHECKING:
    from .protocols import Driver, InprocPeer, Waiter
    from .session import Session
    from .socket_core import SocketCore

#: Closed sockets' waiters a context keeps for new sockets (descriptors held idle).
_SPARE_WAITERS: Final = 16
#: Contexts alive in this process, so a forked child can disown them.
_ALL: weakref.WeakSet[ContextCore] = weakref.WeakSet()
#: socket_core imports this module: bound on the first socket (see socket()).
_SocketCore: type[SocketCore] | None = None


class _PendingInproc:
    """A connect to an inproc name nobody has bound yet (libzmq allows it)."""

    def __init__(self, socket: InprocPeer, theirs: Pipe) -> None:
        self.socket = socket
        self.theirs = theirs  # the end the future binder will own


class ContextCore:
    """Sockets, driver, inproc registry and shutdown of one Context."""

    def __init__(
        self,
        *,
        waiter_factory: Callable[[], Waiter],
        driver_factory: Callable[[], Driver] | None = None,
    ) -> None:
        self.options = ContextOptions()
        self._waiter_factory = waiter_factory
        self._driver_factory = driver_factory
        self._driver: Driver | None = None
        # The set-up path takes `_mutex` directly: `with` on a Condition is a
        # call into interpreted code (its __enter__/__exit__), several per
        # socket's life; `_lock` is the same lock, for term() to wait on.
        self._mutex = threading.RLock()
        self._lock = threading.Condition(self._mutex)
        self._sockets: set[SocketCore] = set()
        self._lingering: set[Session] = set()
        self._inproc: dict[str, InprocPeer] = {}
        self._pending: dict[str, list[_PendingInproc]] = {}
        #: Waiters of closed sockets, kept for the next sockets (`recycle_waiter`).
        self._spare_waiters: list[Waiter] = []
        self.terminating = False
        self.terminated = False
        self.pid = os.getpid()
        _ALL.add(self)

    # ================================================================ sockets
    def socket(self, socket_type: int) -> SocketCore:
        # The checks take no lock: holding it over them did not stop two
        # threads from both passing the limit (the socket is added below,
        # after it is made), nor term() from starting right after them.
        if self.terminating or self.terminated:
            raise ZMQError(C.ETERM, "Context was terminated")
        limit = self.options.value(C.MAX_SOCKETS)
        if len(self._sockets) >= limit:
            raise ZMQError(errno.EMFILE, f"Too many open sockets (MAX_SOCKETS={limit})")
        sock = (_SocketCore or _load_socket_core())(self, socket_type)
        with self._mutex:
            self._sockets.add(sock)
        return sock

    def sockets(self) -> list[SocketCore]:
        with self._lock:
            return list(self._sockets)

    def socket_closed(self, sock: SocketCore, sessions: list[Session]) -> None:
        with self._mutex:
            self._sockets.discard(sock)
            for s in sessions:
                if not s.done:
                    self._lingering.add(s)
            if self.terminating:  # only term() waits, and only once this is set
                self._lock.notify_all()

    def session_done(self, session: Session) -> None:
        with self._mutex:
            self._lingering.discard(session)
            if self.terminating:
                self._lock.notify_all()

    def driver(self) -> Driver:
        """The I/O driver, started on first use."""
        driver = self._driver  # every connect() asks: no lock once it exists
        if driver is not None:
            return driver
        with self._mutex:
            driver = self._driver
            if driver is None:
                if self._driver_factory is None:
                    raise ZMQError(errno.EPROTONOSUPPORT, "this context has no I/O driver")
                driver = self._driver = self._driver_factory()
            return driver

    def make_waiter(self) -> Waiter:
        """A new socket's waiter (its FD and blocking waits): a closed
        socket's when one is spare. No lock: `list.pop` is atomic."""
        if self._spare_waiters:
            try:
                return self._spare_waiters.pop()
            except IndexError:  # another thread took the last one
                pass
        return self._waiter_factory()

    def recycle_waiter(self, waiter: Waiter, *, reusable: bool) -> None:
        """A closing socket's waiter: keep it for the next socket, or close it.

        A waiter is an eventfd and a poll object. Making one and closing it
        are two system calls per socket, and each releases the GIL, which the
        I/O thread - busy with the closing connection - takes in between:
        about 3% of a connect-and-close on the client (perf samples, issue
        14). `reusable` is False once the socket gave its FD out (its owner
        may still watch that descriptor); call before `socket_closed`, so
        that `term` finds every recycled waiter in the spares it closes."""
        if (
            reusable
            and len(self._spare_waiters) < _SPARE_WAITERS
            and not (self.terminating or self.terminated)
            and waiter.reset()
        ):
            self._spare_waiters.append(waiter)
        else:
            waiter.close()

    # ================================================================ inproc
    def inproc_bind(self, name: str, sock: InprocPeer) -> None:
        with self._lock:
            if name in self._inproc:
                raise ZMQError(errno.EADDRINUSE, f"Address already in use (addr='inproc://{name}')")
            self._inproc[name] = sock
            pending = self._pending.pop(name, [])
        for p in pending:
            self._complete_inproc(p.socket, sock, p.theirs)

    def inproc_binder(self, name: str) -> InprocPeer | None:
        """The socket bound at inproc `name`, if any (the ZAP handler look-up)."""
        with self._lock:
            return self._inproc.get(name)

    def inproc_unbind(self, name: str, sock: InprocPeer) -> None:
        with self._lock:
            if self._inproc.get(name) is sock:
                del self._inproc[name]

    def inproc_connect(self, sock: InprocPeer, name: str) -> Pipe:
        """Connect to inproc `name`; returns the connecting socket's pipe end.

        Messages never touch a codec: the two sockets share the pipe's deques.
        Before the name is bound, the connecting end works already (sends queue
        up to its HWM) and the binder attaches the other end when it binds.
        """
        ours, theirs = pipepair(sock, None)
        ours.conflate = theirs.conflate = _conflate(sock)
        ours.label = theirs.label = f"inproc://{name}"
        with self._lock:
            binder = self._inproc.get(name)
            if binder is None:
                so = sock.options
                ours.set_hwms(so.value(C.SNDHWM), so.value(C.RCVHWM))
                self._pending.setdefault(name, []).append(_PendingInproc(sock, theirs))
        _describe(ours, peer=None, me=sock)
        sock.attach_inproc_pipe(ours, locally_initiated=True)
        if binder is not None:
            self._complete_inproc(sock, binder, theirs)
        return ours

    def _complete_inproc(self, connecter: InprocPeer, binder: InprocPeer, theirs: Pipe) -> None:
        ours = theirs.peer
        co, bo = connecter.options, binder.options
        snd = sum_hwm(co.value(C.SNDHWM), bo.value(C.RCVHWM))
        rcv = sum_hwm(co.value(C.RCVHWM), bo.value(C.SNDHWM))
        if ours.conflate:
            snd = rcv = 0
        ours.set_hwms(snd, rcv)
        _describe(ours, peer=binder, me=connecter)
        _describe(theirs, peer=connecter, me=binder)
        binder.attach_inproc_pipe(theirs, locally_initiated=False)
        connecter.post_identified(ours)

    # ================================================================ term
    def term(self) -> None:
        """Wake blocked calls (ETERM), wait for every socket to be closed and
        for lingering sessions, then stop the I/O thread."""
        if self.terminated:
            return
        if os.getpid() != self.pid:
            # A forked child does not own the parent's threads or descriptors.
            self.terminated = True
            return
        with self._lock:
            self.terminating = True
            sockets = list(self._sockets)
        for sock in sockets:
            sock.mark_terminating()
            sock.wake()
        with self._lock:
            while self._sockets:
                self._lock.wait()
            while self._lingering:
                self._lock.wait(0.05)
                self._lingering = {s for s in self._lingering if not s.done}
                expired = [s for s in self._lingering if s.linger_expired()]
                if expired:
                    # Sessions with nothing to time them (never connected) end here.
                    self._lock.release()
                    try:
                        for session in expired:
                            session.finish()
                    finally:
                        self._lock.acquire()
            driver, self._driver = self._driver, None
        if driver is not None:
            driver.stop()
        spares, self._spare_waiters = self._spare_waiters, []
        for waiter in spares:
            waiter.close()
        with self._lock:
            self.terminated = True
            self.terminating = False

    def after_fork_in_child(self) -> None:
        """The child has none of our threads: forget them, never touch them."""
        self._driver = None
        self._sockets = set()
        self._lingering = set()
        self._spare_waiters = []  # the parent's descriptors: never touched here
        self._mutex = threading.RLock()
        self._lock = threading.Condition(self._mutex)
        self.terminated = True


def _load_socket_core() -> type[SocketCore]:
    """SocketCore, imported once: an import statement in `socket()` was
    interpreted work (importlib's bookkeeping) on every socket made."""
    global _SocketCore
    from .socket_core import SocketCore

    _SocketCore = SocketCore
    return SocketCore


def _conflate(sock: InprocPeer) -> bool:
    return bool(sock.options.value(C.CONFLATE)) and sock.type_name in CONFLATE_TYPES


def _describe(pipe: Pipe, peer: InprocPeer | None, me: InprocPeer) -> None:
    """What the peer would have sent in READY: Socket-Type and Identity."""
    if peer is None:
        return
    pipe.peer_identity = peer.options.value(C.ROUTING_ID)
    pipe.metadata = {"Socket-Type": peer.type_name}


def _after_fork() -> None:
    for ctx in list(_ALL):
        ctx.after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
