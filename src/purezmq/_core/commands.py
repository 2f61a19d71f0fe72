"""Mailbox commands: what other threads ask of a socket's own thread.

Pipes, sessions and inproc peers run on other threads (the I/O thread,
another application thread). They never touch a socket's pattern; they post
one of these commands to the socket's mailbox, and the owning thread runs
it the next time it enters the socket (libzmq's `command_t`, with a class
per command instead of a type tag). Each command knows which handler of the
`CommandTarget` it calls, so the mailbox loop is one call per command - no
dispatch over command kinds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from purezmq._routing.pipe import Pipe


class CommandTarget(Protocol):
    """The handlers of a socket's own thread (see SocketCore)."""

    def on_read_activated(self, pipe: Pipe) -> None:
        """`pipe` has input again."""

    def on_write_activated(self, pipe: Pipe) -> None:
        """`pipe` has room again."""

    def on_attach(self, pipe: Pipe, locally_initiated: bool) -> None:
        """A new pipe to a peer (from a session, or inproc); `locally_initiated`:
        we connected (a ROUTER may then know the peer by CONNECT_ROUTING_ID)."""

    def on_identified(self, pipe: Pipe) -> None:
        """The peer of `pipe` announced its identity and metadata."""

    def on_peer_closed(self, pipe: Pipe) -> None:
        """The peer closed its side of `pipe`."""

    def on_hiccup(self, pipe: Pipe) -> None:
        """The peer of `pipe` reconnected (SUB resends subscriptions)."""


class Command:
    """A request for the socket's own thread, about one pipe."""

    __slots__ = ("pipe",)

    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe

    def run(self, target: CommandTarget) -> None:
        """Call the target's handler for this command."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.pipe!r}>"


class ReadActivated(Command):
    """The pipe's inbound queue went from empty to non-empty."""

    __slots__ = ()

    def run(self, target: CommandTarget) -> None:
        target.on_read_activated(self.pipe)


class WriteActivated(Command):
    """The pipe's outbound queue drained to its low-water mark."""

    __slots__ = ()

    def run(self, target: CommandTarget) -> None:
        target.on_write_activated(self.pipe)


class Attach(Command):
    """A pipe to a new peer, made by a session or an inproc connect/bind."""

    __slots__ = ("locally_initiated",)

    def __init__(self, pipe: Pipe, locally_initiated: bool) -> None:
        super().__init__(pipe)
        self.locally_initiated = locally_initiated

    def run(self, target: CommandTarget) -> None:
        target.on_attach(self.pipe, self.locally_initiated)


class Identified(Command):
    """The peer's identity and metadata are known (after its handshake)."""

    __slots__ = ()

    def run(self, target: CommandTarget) -> None:
        target.on_identified(self.pipe)


class PeerClosed(Command):
    """The peer closed its side (its DELIMITER follows its last message)."""

    __slots__ = ()

    def run(self, target: CommandTarget) -> None:
        target.on_peer_closed(self.pipe)


class Hiccup(Command):
    """The peer reconnected under the same pipe."""

    __slots__ = ()

    def run(self, target: CommandTarget) -> None:
        target.on_hiccup(self.pipe)
