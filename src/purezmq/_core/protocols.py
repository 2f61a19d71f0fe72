"""The typed seams between the socket layer (`_core`) and the I/O drivers (`_io`).

`_core` never imports a driver: drivers register with the context and are
seen only through these Protocols. Everything that crosses the seam is
named here, with the thread it may be called from, so that neither side
needs `Any` or `getattr` to talk to the other - and so that mypyc, which
compiles both sides, knows every call it makes.

Which side implements what:

==================  ==============================  ===========================
protocol            implemented by                  used by
==================  ==============================  ===========================
`Driver`            `_io.driver.StreamDriver`       `Endpoints` (bind/connect)
`BoundHandle`       `_io.driver.BoundEndpoint`      `Endpoints` (unbind, close)
`ConnectHandle`     `_io.driver.ConnectHandle`      `Endpoints` (disconnect)
`EngineHandle`      `_io.engine.StreamEngine`       `Session`, `SessionSet`
`Waiter`            `_io.waiter.PollWaiter`         `SocketCore` (blocking)
`SessionOwner`      `SocketCore`                    `Session`, drivers
`InprocPeer`        `SocketCore`                    `ContextCore`, ZAP client
==================  ==============================  ===========================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from purezmq._routing.pipe import PipeOwner

if TYPE_CHECKING:
    from purezmq._routing.pipe import Pipe
    from purezmq._transport.address import Endpoint, Tuning
    from purezmq._transport.pgm import MulticastConfig
    from purezmq._transport.udp import UdpConfig

    from .context_core import ContextCore
    from .monitor import Monitor
    from .options import SocketOptions
    from .session import Session
    from .session_config import SessionConfig
    from .sessions import DirectWrites


class EngineHandle(Protocol):
    """The driver's engine for one OS connection, as its session sees it.

    Output and timers may be requested from any thread. The direct-read
    methods (`park` ...) are called by the socket's own thread only."""

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

    # The direct read path (see SocketCore._block_recv): a receiving thread
    # about to block takes over reading the few connections of its socket,
    # so a message wakes it once - not the I/O thread first and then,
    # through a signal, the receiver.
    def park(self) -> int | None:
        """Stop the driver reading; return the descriptor to wait on, or None
        if this engine cannot be read directly now (its reactor runs on the
        calling thread, the handshake is not done, input is paused)."""

    def unpark(self) -> None:
        """The socket's thread stopped waiting (reading stays parked a while)."""

    def read_direct(self) -> bool:
        """Read what is there (the descriptor was readable); False if the
        connection ended (the driver then tidies up)."""

    def parked_fd(self) -> int | None:
        """Our descriptor while parked (pollers must watch it), else None."""

    def read_if_parked(self) -> None:
        """If parked, nobody else reads the descriptor: look now (non-blocking)."""


class BoundHandle(Protocol):
    """A listening endpoint a driver made for `Driver.bind`."""

    @property
    def uri(self) -> str:
        """The endpoint as bound (wildcards resolved): LAST_ENDPOINT."""

    @property
    def listener_fd(self) -> int:
        """The listening descriptor (the value of EVENT_LISTENING)."""

    @property
    def driver(self) -> Driver:
        """The driver whose reactor runs this endpoint now."""

    def close(self) -> None:
        """Stop listening and end the connections accepted here (unbind)."""

    def stop_listening(self) -> None:
        """Stop accepting; accepted connections stay (socket close lingers them)."""

    def move_sessions(self, driver: Driver) -> None:
        """Continue the accepted connections on `driver` (call on ours)."""


class ConnectHandle(Protocol):
    """The connecter serving one connect-side session."""

    @property
    def driver(self) -> Driver:
        """The driver whose reactor runs this connecter now."""

    def close(self) -> None:
        """Stop connecting and close any live connection."""

    def move_to(self, driver: Driver) -> None:
        """Keep this endpoint connected from `driver` (call on ours)."""


class Driver(Protocol):
    """Runs tcp/ipc endpoints on a reactor: the context's I/O thread, or an
    asyncio loop for `purezmq.asyncio` sockets."""

    def bind(
        self,
        owner: SessionOwner,
        endpoint: Endpoint,
        make_config: Callable[[str], SessionConfig],
        *,
        ipv6: bool,
        backlog: int,
        tuning: Tuning,
    ) -> BoundHandle:
        """Bind and listen now (raising AddressError/OSError from the caller's
        thread, as libzmq's bind does); accept on the reactor, making one
        bind-side session per connection with `make_config(uri)`."""

    def connect(
        self, session: Session, endpoint: Endpoint, *, ipv6: bool, tuning: Tuning
    ) -> ConnectHandle:
        """Start connecting `session` to `endpoint` (returns at once)."""

    def multicast(
        self, owner: InprocPeer, endpoint: Endpoint, config: MulticastConfig
    ) -> ConnectHandle:
        """Open a pgm/epgm endpoint now (AddressError/OSError in the caller's
        thread) and attach its pipe to `owner`; it runs on the reactor."""

    def udp(
        self, owner: InprocPeer, endpoint: Endpoint, config: UdpConfig
    ) -> tuple[ConnectHandle, Pipe]:
        """Open a udp endpoint (bind or connect) now, as `multicast` does;
        also returns the pipe it attached to `owner` (ending it ends the
        endpoint)."""

    def stop(self, timeout: float | None = None) -> None:
        """Release the reactor's resources (the I/O thread), if the driver owns one."""


class Waiter(Protocol):
    """How a socket's own thread sleeps until another thread signals it.

    A descriptor that is readable after `signal()` until `drain()` - the
    socket's FD option - plus the blocking waits of send and receive.
    Provided by the facade (the threaded implementation uses poll), so that
    `_core` holds no I/O code."""

    def fileno(self) -> int:
        """The descriptor to wait on for readability (the socket's FD)."""

    def signal(self) -> None:
        """Make the descriptor readable. Any thread, even after close."""

    def drain(self) -> None:
        """Consume pending signals (the owning thread only)."""

    def wait(self, timeout: float | None) -> None:
        """Block until signalled or `timeout` seconds pass (None: forever)."""

    def wait_reading(self, timeout: float | None, parked: dict[int, EngineHandle]) -> None:
        """As `wait`, and read the parked connections (descriptor -> engine)
        whose descriptor becomes readable, on this thread. A connection that
        ended is removed from `parked`."""

    def wait_also(self, timeout: float | None, fds: list[int]) -> None:
        """As `wait`, and return when one of `fds` becomes readable too;
        reads nothing (a poller's wait: the caller looks afterwards)."""

    def close(self) -> None:
        """Release the descriptor."""

    def reset(self) -> bool:
        """Make it as new for another socket (no signal pending, nothing
        watched but its descriptor); False if it is closed."""

    @property
    def closed(self) -> bool:
        """`close` was called."""


class SessionOwner(Protocol):
    """What a session (and a driver accepting connections) sees of its socket.

    Called from the driver's thread unless noted; implementations are
    thread-safe (they post to the socket's mailbox)."""

    @property
    def ctx(self) -> ContextCore:
        """The context: ZAP handler look-ups."""

    @property
    def monitor(self) -> Monitor:
        """Where connection events go (EVENT_CONNECTED, ...)."""

    @property
    def burst(self) -> DirectWrites:
        """When the socket's thread last wrote to one of its connections itself."""

    def attach_pipe_from_session(self, pipe: Pipe, session: Session) -> None:
        """A session made a pipe pair; `pipe` is the socket's end."""

    def post_identified(self, pipe: Pipe) -> None:
        """The peer of `pipe` said who it is (identity and metadata are set)."""

    def read_activated_here(self, pipe: Pipe) -> None:
        """`pipe` has input, noticed by the socket's own thread (direct reads)."""

    def session_started(self, session: Session) -> None:
        """A bind-side session was made by an accepting endpoint."""

    def session_done(self, session: Session) -> None:
        """A session ended (connection gone, linger over)."""


class InprocPeer(PipeOwner, Protocol):
    """A socket as another socket of its context sees it through inproc
    (and the ZAP client, which talks to the handler socket the same way):
    the owner of its end of their pipe pair."""

    @property
    def options(self) -> SocketOptions:
        """For the HWMs and ROUTING_ID an inproc pipe takes from both ends."""

    @property
    def type_name(self) -> str:
        """ "PUSH", "ROUTER"...: the Socket-Type the peer reports."""

    @property
    def closed(self) -> bool:
        """The socket was closed (it takes no new pipes)."""

    def attach_inproc_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        """Take `pipe` as this socket's end of a new inproc connection. Any thread."""

    def post_identified(self, pipe: Pipe) -> None:
        """The peer of `pipe` is known (identity and metadata are set). Any thread."""
