"""A connection's set-up wakes the socket's thread only when it must.

Issue 14 ("connection set-up"): every command a session posts to its socket
while a connection comes up wakes the socket's thread, which then competes
with the I/O thread for the GIL in the middle of the handshake. A
connect-side DEALER needs no command at all until its peer's first message:
not "the peer is identified" (only ROUTER and REP route by identity), not
"input available" for bytes the handshake consumed, and the I/O thread does
not schedule a separate flush for the message queued before the handshake
ended when its own read is about to write the READY anyway.

A real session and a real ZMTP peer (sans-I/O), a fake socket and a fake
engine that record what they are asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

import purezmq
from purezmq._core.monitor import Monitor
from purezmq._core.options import SocketOptions
from purezmq._core.session import Session
from purezmq._core.session_config import session_config
from purezmq._core.sessions import DirectWrites
from purezmq._routing.pipe import Pipe
from purezmq._zmtp import ZMTPConnection
from purezmq._zmtp.mechanisms.null import NullMechanism

_CTX = purezmq.Context()


@pytest.fixture(scope="module", autouse=True)
def _context_ends() -> Iterator[None]:
    yield
    _CTX.term()


@dataclass
class _Socket:
    """The socket side of a session: records every command it is sent."""

    type_name: str
    ctx: object = field(default_factory=lambda: _CTX._core)
    monitor: Monitor = field(default_factory=Monitor)
    burst: DirectWrites = field(default_factory=DirectWrites)
    posted: list[str] = field(default_factory=list)
    pipe: Pipe | None = None

    def attach_pipe_from_session(self, pipe: Pipe, session: Session) -> None:
        pipe.set_owner(self)
        self.pipe = pipe
        self.posted.append("attach")

    def post_identified(self, pipe: Pipe) -> None:
        self.posted.append("identified")

    def read_activated_here(self, pipe: Pipe) -> None:
        self.posted.append("read_activated_here")

    def session_started(self, session: Session) -> None:
        pass

    def session_done(self, session: Session) -> None:
        pass

    # PipeOwner: the pipe tells its reader about new messages.
    def read_activated(self, pipe: Pipe) -> None:
        self.posted.append("read_activated")

    def write_activated(self, pipe: Pipe) -> None:
        pass

    def pipe_closed(self, pipe: Pipe) -> None:
        pass

    def hiccuped(self, pipe: Pipe) -> None:
        pass


class _Engine:
    """Counts the calls a session makes on its engine."""

    def __init__(self) -> None:
        self.kicks = 0
        self.closed = False

    def kick_output(self) -> None:
        self.kicks += 1

    def schedule(self, deadline: float | None) -> None:
        pass

    def close(self) -> None:
        self.closed = True


#: A compatible peer for each socket type tested.
_PEER = {"DEALER": "ROUTER", "REQ": "ROUTER", "PUSH": "PULL", "ROUTER": "DEALER", "REP": "DEALER"}


def _connect(socket_type: str) -> tuple[Session, _Socket, _Engine, ZMTPConnection]:
    owner = _Socket(socket_type)
    options = SocketOptions(int(getattr(purezmq, socket_type)))
    config = session_config(options, socket_type, _CTX._core, "tcp://x", connect_side=True)
    session = Session(owner, config)  # type: ignore[arg-type]
    engine = _Engine()
    session.start_connection(engine, "peer")  # type: ignore[arg-type]
    peer = ZMTPConnection(socket_type=_PEER[socket_type], mechanism=NullMechanism(), now=0.0)
    return session, owner, engine, peer


def _pump(session: Session, peer: ZMTPConnection) -> None:
    """Exchange bytes until neither side has anything to say, reading the way
    the I/O thread does (receive_with) and writing what a flush collects."""
    for _ in range(10):
        ours = b"".join(bytes(c) for c in session.collect_output())
        if ours:
            peer.receive_data(ours, 0.0)
        theirs = b"".join(bytes(c) for c in peer.data_to_send())
        if not ours and not theirs:
            return
        if theirs:
            view = memoryview(theirs)

            def recv_into(buf: memoryview, view: memoryview = view) -> int:
                n = min(len(buf), len(view))
                buf[:n] = view[:n]
                return n

            session.receive_with(recv_into)


@pytest.mark.parametrize("socket_type", ["DEALER", "REQ", "PUSH"])
def test_a_connect_side_handshake_posts_nothing_to_its_socket(socket_type: str) -> None:
    session, owner, engine, peer = _connect(socket_type)
    assert owner.posted == ["attach"]  # the pipe exists from connect() on (no IMMEDIATE)
    assert owner.pipe is not None
    owner.pipe.write([b"early"])  # sent before the handshake ended
    _pump(session, peer)
    assert session.handshaken and peer.handshake_done
    assert owner.posted == ["attach"]  # no "identified", no wake-up for handshake bytes
    assert engine.kicks == 0  # the read's own flush took the early message along
    assert peer.pull(10) == [[b"early"]]


@pytest.mark.parametrize("socket_type", ["ROUTER", "REP"])
def test_sockets_that_route_by_identity_are_told_it(socket_type: str) -> None:
    session, owner, _engine, peer = _connect(socket_type)
    _pump(session, peer)
    assert session.handshaken
    assert owner.posted == ["attach", "identified"]


def test_the_peers_first_message_still_wakes_the_reader() -> None:
    session, owner, _engine, peer = _connect("DEALER")
    assert owner.pipe is not None
    peer.send_messages([[b"hello"]])  # queued by the peer before its handshake ended
    _pump(session, peer)
    assert session.handshaken
    assert owner.posted[-1] == "read_activated"
    session.refill()
    assert owner.pipe.read() == [b"hello"]


def test_close_with_linger_0_ends_the_session_at_once() -> None:
    """LINGER 0 drops what is queued (libzmq): closing the socket's end ends
    the session there and then - no flush attempt, no timer for a deadline
    that has already passed."""
    session, owner, engine, peer = _connect("DEALER")
    _pump(session, peer)
    assert owner.pipe is not None
    owner.pipe.write([b"never sent"])
    kicks = engine.kicks  # the write asked for a flush (the fake engine makes none)
    session.set_linger(0)
    owner.pipe.close()
    assert session.done and engine.closed
    assert engine.kicks == kicks  # closing asks for none
    assert peer.pull(10) == []


def test_close_with_linger_flushes_first() -> None:
    session, owner, engine, peer = _connect("DEALER")
    _pump(session, peer)
    assert owner.pipe is not None
    owner.pipe.write([b"last words"])
    kicks = engine.kicks
    session.set_linger(1.0)
    owner.pipe.close()
    assert engine.kicks == kicks + 1  # the engine is asked to write what is queued
    assert not session.done  # it ends once the DELIMITER is out, or at the deadline
    _pump(session, peer)
    assert peer.pull(10) == [[b"last words"]]
