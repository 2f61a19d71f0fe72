"""The contract between the socket layer and a messaging pattern.

A socket type is a small class that composes routing strategies (lb, fq,
dist, tries, a routing table) behind the hooks below - libzmq's ``x*``
methods. The socket layer calls them from the thread that owns the socket,
never concurrently, so a pattern needs no locks. Patterns never touch
threads, clocks or OS sockets: they move whole messages between pipes.

Sending is frame by frame, as in libzmq, because that is where libzmq's
errors happen: a pattern decides on the *first* frame of a message whether
it can be sent (EAGAIN, EHOSTUNREACH, EFSM) and from then on accepts every
further frame of that message. Receiving returns whole messages.
"""

from __future__ import annotations

from typing import Any, ClassVar

from purezmq._routing.errors import InvalidError, NotSupportedError
from purezmq._routing.fanout_log import Mutex
from purezmq._routing.fq import FairQueue
from purezmq._routing.lb import LoadBalancer
from purezmq._routing.pipe import Frame, Msg, Pipe


class Pattern:
    """Base class of the socket types. Subclasses override what they support."""

    #: The ZMTP Socket-Type name, e.g. "DEALER".
    socket_type: ClassVar[str] = ""
    #: Pattern-specific options this type accepts, by lower-case libzmq name
    #: without the ZMQ_ prefix ("router_mandatory", "xpub_verbose", ...).
    #: The socket layer validates types and forwards these to set_option.
    options: ClassVar[frozenset[str]] = frozenset()
    #: True for SUB/XSUB: messages from the application that are subscriptions
    #: are turned into SUBSCRIBE/CANCEL commands for ZMTP 3.1 peers.
    sends_subscriptions: ClassVar[bool] = False
    #: libzmq's thread-safe (draft) types: the facade serialises calls from
    #: several threads (see `purezmq.sugar._threadsafe`).
    thread_safe: ClassVar[bool] = False

    #: The strategy whose `send` *is* this pattern's `send`, when the pattern
    #: adds nothing to it (PUSH, DEALER): the socket layer then calls it
    #: directly, one call per frame instead of two. None: call `send`.
    direct_lb: LoadBalancer | None = None
    #: Likewise for `recv` (PULL, DEALER).
    direct_fq: FairQueue | None = None

    def with_output_lock(self, lock: Mutex) -> Pattern:
        """The socket layer's lock, for state that the threads writing this
        socket's connections share (a fan-out socket's output log: PUB,
        XPUB). Patterns without such state ignore it. Returns the pattern."""
        return self

    # ----------------------------------------------------------- pipe events
    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        """A new peer. `locally_initiated` is True for pipes made by connect()."""
        raise NotImplementedError

    def pipe_terminated(self, pipe: Pipe) -> None:
        """The peer is gone: forget the pipe. Messages already queued inbound may
        still be read until the pipe's DELIMITER (fq drains, then drops it)."""
        raise NotImplementedError

    def pipe_identified(self, pipe: Pipe) -> None:
        """The handshake of a pipe attached before it told its identity is done
        (`pipe.peer_identity`, `pipe.metadata` now set). Default: nothing.

        ROUTER and REP treat pipes attached with ``locally_initiated=True``
        (and no preset ``pipe.routing_id``) as anonymous - neither read nor
        routable - until this is called; pipes from bind() are identified at
        attach, since a session attaches them after the handshake. Calling it
        again for an identified pipe (e.g. after a reconnection) is harmless:
        the first routing id is kept, as libzmq does."""

    def read_activated(self, pipe: Pipe) -> None:
        """`pipe` has messages again after a read found it empty."""

    def write_activated(self, pipe: Pipe) -> None:
        """`pipe` accepts messages again after a write found it full."""

    def hiccuped(self, pipe: Pipe) -> None:
        """`pipe` reconnected to a (possibly new) peer. Default: nothing."""

    # ----------------------------------------------------------- messages
    def send(self, frame: Frame, more: bool) -> bool:
        """Send one frame. False means EAGAIN (only ever on a message's first
        frame, and then nothing was consumed). Raises RoutingError otherwise."""
        raise NotSupportedError(f"{self.socket_type} sockets cannot send")

    def send_msg(self, frames: Msg) -> bool:
        """Send a whole message; same outcome rules as `send` on its first frame.

        Ownership: when this returns True the pattern may have kept `frames`
        itself (it becomes the message in a pipe, possibly with envelope
        frames added or removed), so the caller must pass a list it will not
        use again. On False (EAGAIN) or an exception, `frames` is unchanged.
        """
        last = len(frames) - 1
        return all(self.send(frame, i < last) for i, frame in enumerate(frames))

    def recv(self) -> Msg | None:
        """The next whole message for the application, or None (EAGAIN).
        The list belongs to the caller."""
        raise NotSupportedError(f"{self.socket_type} sockets cannot receive")

    def has_in(self) -> bool:
        """Could `recv` return a message now? (POLLIN)"""
        return False

    def has_out(self) -> bool:
        """Could `send` accept a message's first frame now? (POLLOUT)"""
        return False

    @property
    def last_pipe(self) -> Pipe | None:
        """The pipe the last message returned by `recv` came from (metadata)."""
        return None

    # ----------------------------------------------------------- draft API
    def join(self, group: bytes) -> None:
        """DISH: join `group` (libzmq ``zmq_join``); ENOTSUP elsewhere."""
        raise NotSupportedError(f"{self.socket_type} sockets cannot join groups")

    def leave(self, group: bytes) -> None:
        """DISH: leave `group` (libzmq ``zmq_leave``); ENOTSUP elsewhere."""
        raise NotSupportedError(f"{self.socket_type} sockets cannot leave groups")

    def last_address(self) -> tuple[int, bytes | None]:
        """(routing id, group) of the message `recv` returned last: SERVER and
        PEER set the first, DISH the second (libzmq keeps them in the msg_t).
        0 / None: not set."""
        return 0, None

    @property
    def last_attached(self) -> int:
        """PEER: the routing id of the pipe attached last (``connect_peer``)."""
        return 0

    # ----------------------------------------------------------- options
    def set_option(self, name: str, value: Any) -> None:
        """Set a pattern option from `options` (already type-checked)."""
        raise InvalidError(f"option {name} is not valid for {self.socket_type} sockets")

    def get_option(self, name: str) -> Any:
        """Read a pattern option from `options`."""
        raise InvalidError(f"option {name} is not valid for {self.socket_type} sockets")
