"""Test doubles for the routing layer.

A pattern (or a strategy) is wired to peers with real `pipepair()`s. The
socket side of each pair is owned by `SocketSide`, which forwards pipe events
to the pattern at once (the socket layer does the same through its mailbox);
the far side is owned by a `Recorder` and driven directly by the test through
`Peer`.
"""

from __future__ import annotations

from typing import Any

from purezmq._routing.patterns.base import Pattern
from purezmq._routing.pipe import Msg, Pipe, pipepair


class Recorder:
    """A PipeOwner that only records what it is told (a fake session/peer)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Pipe]] = []

    def read_activated(self, pipe: Pipe) -> None:
        self.events.append(("read", pipe))

    def write_activated(self, pipe: Pipe) -> None:
        self.events.append(("write", pipe))

    def pipe_closed(self, pipe: Pipe) -> None:
        self.events.append(("closed", pipe))

    def hiccuped(self, pipe: Pipe) -> None:
        self.events.append(("hiccup", pipe))

    def count(self, kind: str, pipe: Pipe | None = None) -> int:
        return sum(1 for k, p in self.events if k == kind and (pipe is None or p is pipe))


class SocketSide:
    """The socket layer in miniature: pipe events go straight to the pattern.

    Like the real socket, a peer's close makes the pattern forget the pipe
    (`pipe_terminated`) and closes our end too.
    """

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern
        self.live: set[Pipe] = set()
        self.events: list[tuple[str, Pipe]] = []

    def read_activated(self, pipe: Pipe) -> None:
        self.events.append(("read", pipe))
        if pipe in self.live:
            self.pattern.read_activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self.events.append(("write", pipe))
        if pipe in self.live:
            self.pattern.write_activated(pipe)

    def pipe_closed(self, pipe: Pipe) -> None:
        self.events.append(("closed", pipe))
        if pipe in self.live:
            self.live.discard(pipe)
            self.pattern.pipe_terminated(pipe)
            pipe.close()

    def hiccuped(self, pipe: Pipe) -> None:
        self.events.append(("hiccup", pipe))
        if pipe in self.live:
            self.pattern.hiccuped(pipe)


class Peer:
    """The far end of one pipe, driven by the test."""

    def __init__(self, side: SocketSide, mine: Pipe, theirs: Pipe, recorder: Recorder) -> None:
        self.side = side
        #: The socket's endpoint (what the pattern sees).
        self.pipe = mine
        #: Our endpoint.
        self.end = theirs
        self.recorder = recorder

    def send(self, *frames: Any) -> bool:
        return self.end.write(list(frames))

    def recv(self) -> Msg | None:
        return self.end.read()

    def recv_all(self) -> list[Msg]:
        out: list[Msg] = []
        while (msg := self.end.read()) is not None:
            out.append(msg)
        return out

    @property
    def queued(self) -> int:
        """Messages the socket wrote that we have not read yet."""
        return self.end.inbound_size

    def close(self) -> None:
        """Disconnect: the socket's owner hears `pipe_closed`."""
        self.end.close()

    def hiccup(self) -> None:
        self.end.hiccup()


class Harness:
    """A pattern plus any number of peers."""

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern
        self.side = SocketSide(pattern)

    def connect(
        self,
        *,
        sndhwm: int = 0,
        rcvhwm: int = 0,
        identity: bytes = b"",
        routing_id: bytes = b"",
        locally_initiated: bool = False,
    ) -> Peer:
        """Attach a new peer. `sndhwm` bounds what the socket writes to it,
        `rcvhwm` what the peer may write to the socket."""
        recorder = Recorder()
        mine, theirs = pipepair(self.side, recorder)
        mine.set_hwms(sndhwm, rcvhwm)
        mine.peer_identity = identity
        mine.routing_id = routing_id
        self.side.live.add(mine)
        self.pattern.attach_pipe(mine, locally_initiated)
        return Peer(self.side, mine, theirs, recorder)

    def identified(self, peer: Peer, identity: bytes = b"") -> None:
        """The peer's handshake finished (connect-side pipes)."""
        if identity:
            peer.pipe.peer_identity = identity
        self.pattern.pipe_identified(peer.pipe)

    def terminate(self, peer: Peer) -> None:
        """We disconnect the peer (socket-initiated)."""
        self.side.live.discard(peer.pipe)
        self.pattern.pipe_terminated(peer.pipe)
        peer.pipe.close()

    def send(self, *frames: Any) -> bool:
        """Frame by frame, as the socket's send(SNDMORE) does."""
        last = len(frames) - 1
        ok = True
        for i, frame in enumerate(frames):
            ok = self.pattern.send(frame, i < last)
            if not ok:
                assert i == 0, "EAGAIN is only allowed on a first frame"
                return False
        return ok

    def send_msg(self, *frames: Any) -> bool:
        return self.pattern.send_msg(list(frames))

    def recv(self) -> Msg | None:
        return self.pattern.recv()

    def recv_all(self) -> list[Msg]:
        out: list[Msg] = []
        while (msg := self.pattern.recv()) is not None:
            out.append(msg)
        return out


def strategy_pipe(owner: Any, *, sndhwm: int = 0, rcvhwm: int = 0) -> tuple[Pipe, Pipe, Recorder]:
    """A pipe pair for testing a strategy alone: (our end, peer end, peer's recorder)."""
    recorder = Recorder()
    mine, theirs = pipepair(owner, recorder)
    mine.set_hwms(sndhwm, rcvhwm)
    return mine, theirs, recorder
