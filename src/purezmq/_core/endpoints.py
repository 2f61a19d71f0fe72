"""A socket's endpoints: bind, connect, unbind, disconnect (and their end at close).

inproc endpoints are pipes between two sockets of one context, registered
with the context by name. tcp and ipc endpoints belong to a driver: a
listener (bind) or a connecter serving one connect-side session (connect).
Which driver is the context's (its I/O thread) unless the socket chose one
(`purezmq.asyncio` sockets use their event loop's).

Errors follow libzmq: a malformed endpoint fails at once (EINVAL,
EPROTONOSUPPORT); bind() fails in the caller's thread (EADDRINUSE...);
connect() validates the syntax now and resolves on every attempt later.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Final, NamedTuple, Protocol

from purezmq import constants as C
from purezmq._transport.address import (
    MULTICAST,
    AddressError,
    Endpoint,
    Tuning,
    check_tcp,
    ipc_path,
    parse_endpoint,
)
from purezmq._transport.pgm import MulticastConfig
from purezmq._transport.udp import UdpConfig
from purezmq.error import ZMQError, strerror

from . import security
from .protocols import InprocPeer, SessionOwner
from .session import Session
from .session_config import SessionConfig, session_config

if TYPE_CHECKING:
    from purezmq._routing.pipe import Pipe

    from .context_core import ContextCore
    from .options import SocketOptions
    from .protocols import BoundHandle, ConnectHandle, Driver

_EVENT_LISTENING = int(C.EVENT_LISTENING)
_TCP_KEEPALIVE: Final = int(C.TCP_KEEPALIVE)
_TCP_KEEPALIVE_CNT: Final = int(C.TCP_KEEPALIVE_CNT)
_TCP_KEEPALIVE_IDLE: Final = int(C.TCP_KEEPALIVE_IDLE)
_TCP_KEEPALIVE_INTVL: Final = int(C.TCP_KEEPALIVE_INTVL)
_SNDBUF: Final = int(C.SNDBUF)
_RCVBUF: Final = int(C.RCVBUF)
_TOS: Final = int(C.TOS)
_DEFAULT_TUNING: Final = Tuning()
#: Connect-side configs of sockets whose options are all their type's
#: defaults, by (type, endpoint): see `Endpoints._config`.
_DEFAULT_CONFIGS: Final[dict[tuple[str, str], SessionConfig]] = {}
_DEFAULT_CONFIGS_MAX: Final = 256
#: The tuning of sockets whose options are all their type's defaults, by type.
_TYPE_TUNINGS: Final[dict[int, Tuning]] = {}
_EVENT_BIND_FAILED = int(C.EVENT_BIND_FAILED)


class EndpointOwner(SessionOwner, InprocPeer, Protocol):
    """What endpoints need of their socket, beyond sessions and inproc."""

    def process_commands(self) -> None:
        """Run the mailbox now (attach pipes before bind/connect return)."""

    def hold_wake(self) -> None:
        """Posts until the next `process_commands` need not wake the owner."""

    def terminate_pipe(self, pipe: Pipe) -> None:
        """End `pipe` from our side, discarding what it still holds."""


class _Connected(NamedTuple):
    """One connect(): its session and connecter (tcp/ipc) or its pipe (inproc)."""

    session: Session | None
    handle: ConnectHandle | None
    pipe: Pipe | None


def parse(addr: str) -> Endpoint:
    """`parse_endpoint` with pyzmq's exception (ZMQError with libzmq's errno)."""
    try:
        return parse_endpoint(addr)
    except AddressError as e:
        raise ZMQError(e.errno, e.message) from None


class Endpoints:
    """Everything one socket bound or connected to (owning thread only)."""

    def __init__(self, ctx: ContextCore, options: SocketOptions) -> None:
        self._ctx = ctx
        self._options = options
        self._binds: dict[str, list[BoundHandle]] = {}
        self._connects: dict[str, list[_Connected]] = {}
        self._inproc_binds: list[str] = []
        #: LAST_ENDPOINT: the last endpoint bound or connected, wildcards resolved.
        self.last_endpoint = ""
        #: Driver for tcp/ipc endpoints; None = the context's (its I/O thread).
        #: purezmq.asyncio sockets set their event loop's driver here.
        self.driver: Driver | None = None

    def _driver(self) -> Driver:
        return self.driver if self.driver is not None else self._ctx.driver()

    def _config(
        self, owner: EndpointOwner, endpoint: str, *, connect_side: bool, rid: bytes = b""
    ) -> SessionConfig:
        """The new session's options. A socket whose options are its type's
        defaults connecting where such a socket connected before (a client
        that opens a socket per request) gets that connect's config: it is
        read-only, and made from nothing else (no security mechanism: NULL
        is the default). Building it reads 20 options, about 10k
        instructions of each connect() compiled (issue 14)."""
        options = self._options
        if not (connect_side and not rid and options.defaults_only):
            return session_config(
                options,
                owner.type_name,
                self._ctx,
                endpoint,
                connect_side=connect_side,
                connect_routing_id=rid,
            )
        name = owner.type_name
        key = (name, endpoint)
        config = _DEFAULT_CONFIGS.get(key)
        if config is None:
            config = session_config(options, name, self._ctx, endpoint, connect_side=True)
            if config.mechanism_factory is None:  # always so for defaults: a guard
                if len(_DEFAULT_CONFIGS) >= _DEFAULT_CONFIGS_MAX:
                    _DEFAULT_CONFIGS.clear()
                _DEFAULT_CONFIGS[key] = config
        return config

    def _tuning(self) -> Tuning:
        """The OS socket settings; the shared default record when no option
        asks for any (building a frozen dataclass is interpreted code, about
        15k instructions per connect() in the compiled build). A socket
        with its type's defaults asks only once per type (7 reads, about
        1,700 instructions of each connect())."""
        o = self._options
        if o.defaults_only:
            known = _TYPE_TUNINGS.get(o.socket_type)
            if known is None:
                known = _TYPE_TUNINGS[o.socket_type] = self._read_tuning()
            return known
        return self._read_tuning()

    def _read_tuning(self) -> Tuning:
        o = self._options
        keepalive: tuple[int, int, int, int] = (
            o.value(_TCP_KEEPALIVE),
            o.value(_TCP_KEEPALIVE_CNT),
            o.value(_TCP_KEEPALIVE_IDLE),
            o.value(_TCP_KEEPALIVE_INTVL),
        )
        sndbuf: int = o.value(_SNDBUF)
        rcvbuf: int = o.value(_RCVBUF)
        tos: int = o.value(_TOS)
        d = _DEFAULT_TUNING
        if keepalive == d.keepalive and sndbuf == d.sndbuf and rcvbuf == d.rcvbuf and tos == d.tos:
            return d
        return Tuning(keepalive=keepalive, sndbuf=sndbuf, rcvbuf=rcvbuf, tos=tos)

    # ------------------------------------------------------------ bind
    def bind(self, owner: EndpointOwner, addr: str) -> None:
        ep = parse(addr)
        if ep.protocol in MULTICAST:  # libzmq: bind and connect are the same for PGM
            self.connect(owner, addr)
            return
        if ep.protocol == "udp":
            self._open_udp(owner, addr, ep, bind=True)
            return
        if ep.protocol == "inproc":
            self._ctx.inproc_bind(ep.address, owner)
            self._inproc_binds.append(ep.address)
            self.last_endpoint = addr
            owner.process_commands()  # attach pending connects now, as libzmq's bind does
            return
        security.check_available(self._options)  # before a listener exists
        monitor = owner.monitor
        try:
            bound = self._driver().bind(
                owner,
                ep,
                lambda uri: self._config(owner, uri, connect_side=False),
                ipv6=bool(self._options.value(C.IPV6)),
                backlog=self._options.value(C.BACKLOG),
                tuning=self._tuning(),
            )
        except AddressError as e:
            monitor.event(_EVENT_BIND_FAILED, e.errno, addr)
            raise ZMQError(e.errno, f"{e.message} (addr={addr!r})") from None
        except OSError as err:
            code = err.errno or errno.EINVAL
            monitor.event(_EVENT_BIND_FAILED, code, addr)
            raise ZMQError(code, f"{strerror(code)} (addr={addr!r})") from None
        self._binds.setdefault(bound.uri, []).append(bound)
        self.last_endpoint = bound.uri
        monitor.event(_EVENT_LISTENING, bound.listener_fd, bound.uri)

    def unbind(self, owner: EndpointOwner, addr: str) -> None:
        ep = parse(addr)
        if ep.protocol in MULTICAST:  # bound is connected (libzmq's term_endpoint)
            self.disconnect(owner, addr)
            return
        if ep.protocol == "inproc":
            if ep.address not in self._inproc_binds:
                raise ZMQError(errno.ENOENT, f"No such endpoint bound: {addr!r}")
            self._inproc_binds.remove(ep.address)
            self._ctx.inproc_unbind(ep.address, owner)
            return
        if ep.protocol == "udp":  # kept with the connects (see _open_udp)
            self.disconnect(owner, addr)
            return
        handles = self._binds.pop(addr, None)
        if not handles:
            raise ZMQError(
                errno.ENOENT, f"No such endpoint bound: {addr!r} (use LAST_ENDPOINT for wildcards)"
            )
        for h in handles:
            h.close()

    # ------------------------------------------------------------ connect
    def _take_connect_routing_id(self) -> bytes:
        """CONNECT_ROUTING_ID applies to the next connect() only."""
        rid: bytes = self._options.value(C.CONNECT_ROUTING_ID)
        if rid:
            self._options.store(C.CONNECT_ROUTING_ID, b"")
        return rid

    def connect(self, owner: EndpointOwner, addr: str) -> None:
        ep = parse(addr)
        if ep.protocol == "inproc":
            pipe = self._ctx.inproc_connect(owner, ep.address)
            rid = self._take_connect_routing_id()
            if rid:  # set before the ROUTER attaches the pipe
                pipe.routing_id = rid
            self._connects.setdefault(addr, []).append(_Connected(None, None, pipe))
            self.last_endpoint = addr
            owner.process_commands()  # the pipe is usable when connect() returns
            return
        if ep.protocol in MULTICAST:
            self._connect_multicast(owner, addr, ep)
            return
        if ep.protocol == "udp":
            self._open_udp(owner, addr, ep, bind=False)
            return
        ipv6 = bool(self._options.value(C.IPV6))
        try:  # validate now, as libzmq does; the connecter resolves again on each attempt
            if ep.protocol == "tcp":
                check_tcp(ep.address)
            else:
                ipc_path(ep.address, bind=False)
        except AddressError as e:
            raise ZMQError(e.errno, f"{e.message} (addr={addr!r})") from None
        driver = self._driver()
        rid = self._take_connect_routing_id()
        # The session posts its pipe (IMMEDIATE=0): attach it before returning,
        # so a send() right after connect() already has somewhere to go. We
        # run the mailbox ourselves, so that post needs no wake-up signal.
        owner.hold_wake()
        try:
            session = Session(owner, self._config(owner, addr, connect_side=True, rid=rid))
            owner.session_started(session)
        finally:
            owner.process_commands()
        sock_pipe = session.pipe.peer if session.pipe is not None else None
        handle = driver.connect(session, ep, ipv6=ipv6, tuning=self._tuning())
        self._connects.setdefault(addr, []).append(_Connected(session, handle, sock_pipe))
        self.last_endpoint = addr

    def _connect_multicast(self, owner: EndpointOwner, addr: str, ep: Endpoint) -> None:
        """pgm/epgm: a send-only (PUB, XPUB) or receive-only (SUB, XSUB)
        endpoint whose pipe is attached before connect() returns."""
        if owner.type_name not in ("PUB", "XPUB", "SUB", "XSUB"):
            raise ZMQError(
                int(C.ENOCOMPATPROTO), f"{ep.protocol} needs a PUB, XPUB, SUB or XSUB socket"
            )
        value = self._options.value
        config = MulticastConfig(
            sender=owner.type_name in ("PUB", "XPUB"),
            rate_kbps=value(C.RATE),
            recovery_ivl_ms=value(C.RECOVERY_IVL),
            hops=value(C.MULTICAST_HOPS),
            max_tpdu=value(C.MULTICAST_MAXTPDU),
            sndbuf=value(C.SNDBUF),
            rcvbuf=value(C.RCVBUF),
            sndhwm=value(C.SNDHWM),
            rcvhwm=value(C.RCVHWM),
            max_msg_size=value(C.MAXMSGSIZE),
        )
        try:
            handle = self._driver().multicast(owner, ep, config)
        except AddressError as e:
            raise ZMQError(e.errno, f"{e.message} (addr={addr!r})") from None
        except OSError as err:
            code = err.errno or errno.EINVAL
            raise ZMQError(code, f"{strerror(code)} (addr={addr!r})") from None
        owner.process_commands()
        self._connects.setdefault(addr, []).append(_Connected(None, handle, None))
        self.last_endpoint = addr

    def _open_udp(self, owner: EndpointOwner, addr: str, ep: Endpoint, *, bind: bool) -> None:
        """udp: RADIO connects, DISH binds or connects, DGRAM both (libzmq's
        rules, ENOCOMPATPROTO otherwise); the pipe is attached on return.
        Kept with the connects: unbind() and disconnect() both end it."""
        value = self._options.value
        config = UdpConfig(
            socket_type=owner.type_name,
            bind=bind,
            hops=value(C.MULTICAST_HOPS),
            sndhwm=value(C.SNDHWM),
            rcvhwm=value(C.RCVHWM),
        )
        try:
            handle, pipe = self._driver().udp(owner, ep, config)
        except AddressError as e:
            raise ZMQError(e.errno, f"{e.message} (addr={addr!r})") from None
        except OSError as err:
            code = err.errno or errno.EINVAL
            raise ZMQError(code, f"{strerror(code)} (addr={addr!r})") from None
        owner.process_commands()
        self._connects.setdefault(addr, []).append(_Connected(None, handle, pipe))
        self.last_endpoint = addr

    def disconnect(self, owner: EndpointOwner, addr: str) -> None:
        parse(addr)
        entries = self._connects.pop(addr, None)
        if not entries:
            raise ZMQError(errno.ENOENT, f"No such endpoint connected: {addr!r}")
        owner.process_commands()
        current: int = self._options.value(C.LINGER)
        for session, _handle, known_pipe in entries:
            if session is not None:
                session.set_linger(None if current < 0 else current / 1000.0)
            pipe = known_pipe
            if pipe is None and session is not None and session.pipe is not None:
                pipe = session.pipe.peer
            if pipe is not None:
                owner.terminate_pipe(pipe)
            if session is not None and session.pipe is None:
                session.finish()

    # ------------------------------------------------------------ close
    def close(self, owner: EndpointOwner) -> None:
        """The socket closes: stop listening (accepted connections linger),
        leave inproc names, end connect sessions that never had a pipe."""
        for name in self._inproc_binds:
            self._ctx.inproc_unbind(name, owner)
        self._inproc_binds.clear()
        for handles in self._binds.values():
            for h in handles:
                h.stop_listening()

    def finish_pipeless(self) -> None:
        """End connect sessions without a pipe (IMMEDIATE, never connected):
        they have nothing to linger for. Call after the socket's pipes closed."""
        for entries in self._connects.values():
            for session, _handle, _pipe in entries:
                if session is not None and session.pipe is None:
                    session.finish()

    def release(self) -> bool:
        """Forget the sessions and handles of a closed socket (after
        `finish_pipeless`); True if it did. The driver keeps whatever still
        lingers, and each session refers to its socket: kept here, they made
        every closed socket a reference cycle that only the garbage collector
        could free (about 70 objects per connection, issue 14). A socket on a
        driver of its own (purezmq.asyncio) keeps them, and so should its
        `SessionSet`: `hand_over` may still move them."""
        if self.driver is not None:
            return False
        self._connects.clear()
        self._binds.clear()
        return True

    def hand_over(self, driver: Driver) -> None:
        """Move every endpoint still delivering (LINGER) from the socket's own
        driver to `driver`: a purezmq.asyncio socket closing while its loop
        may stop lets the context's I/O thread finish the job. Call on the
        current driver's thread, after close()."""
        current = self.driver
        if current is None or current is driver:
            return
        for handles in self._binds.values():
            for h in handles:
                if h.driver is current:
                    h.move_sessions(driver)
        for entries in self._connects.values():
            for _session, handle, _pipe in entries:
                if handle is not None and handle.driver is current:
                    handle.move_to(driver)
