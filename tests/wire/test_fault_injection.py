"""The rule, enforced by fault injection (issue 12).

Nothing raised inside a connection reaches the application except the
ZMQErrors pyzmq would raise; every other error ends that one connection,
with a monitor event, and the I/O thread logs no traceback and nothing
above DEBUG.

Each case makes one of the sans-I/O layer's entry points fail with an
exception no check foresaw (a RuntimeError from inside: the frame decoder,
the encoder, the heartbeat clock, the security mechanism) while a raw peer
drives exactly that entry point over TCP. The application meanwhile uses
its socket (receives, sends to that peer); it must see only what pyzmq
would show (EAGAIN on a timeout), the peer must be disconnected, and the
socket must go on serving new peers once the fault is gone.

The codec classes and the NULL mechanism are compiled in the compiled build
and cannot be patched there: those cases run in the pure build (CI runs the
wire tests in both).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import purezmq as zmq
from purezmq._zmtp.decoder import FrameDecoder
from purezmq._zmtp.frames import FrameEncoder
from purezmq._zmtp.heartbeat import Heartbeat
from purezmq._zmtp.mechanisms.null import NullMechanism

from .helpers import Bound, Monitor
from .zmtp_raw import RawPeer, greeting, message, ready


class Injected(RuntimeError):
    """The fault: not a ProtocolError, not anything a check expects."""


@dataclass(frozen=True)
class Case:
    target: type
    method: str
    #: "connect": armed before the peer connects; "ready": once handshaken.
    when: str
    #: what the application does to reach the entry point once armed.
    trigger: str
    compiled_class: bool


CASES = {
    "get_buffer": Case(FrameDecoder, "get_buffer", "connect", "peer-sends", True),
    "buffer_updated": Case(FrameDecoder, "buffer_updated", "connect", "peer-sends", True),
    "handshake-frame": Case(FrameDecoder, "next_frame", "connect", "peer-sends", True),
    "mechanism-start": Case(NullMechanism, "start", "connect", "peer-sends", True),
    "mechanism-command": Case(
        NullMechanism, "process_handshake_command", "connect", "peer-sends", True
    ),
    "pull": Case(FrameDecoder, "decode", "ready", "peer-sends", True),
    "send_messages": Case(FrameEncoder, "add_messages", "ready", "app-sends", True),
    "data_to_send": Case(FrameEncoder, "take", "ready", "app-sends", True),
    "next_deadline": Case(Heartbeat, "next_deadline", "ready", "peer-sends", True),
    "on_timer": Case(Heartbeat, "expired", "ready", "timer", True),
}


class Switch:
    """Arms a patched method: it raises Injected while armed, else runs."""

    def __init__(self) -> None:
        self.armed = False
        self.fired = 0


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Switch]:
    case: Case = CASES[request.node.callspec.params["name"]]
    if case.compiled_class and zmq.COMPILED:
        pytest.skip(f"{case.target.__name__} is compiled here: patched in the pure build")
    sw = Switch()
    original = getattr(case.target, case.method)

    def faulty(*args: Any, **kwargs: Any) -> Any:
        if sw.armed:
            sw.fired += 1
            raise Injected(f"injected into {case.target.__name__}.{case.method}")
        return original(*args, **kwargs)

    monkeypatch.setattr(case.target, case.method, faulty)
    yield sw
    sw.armed = False


def _app_calls(sock: zmq.Socket, action: Callable[[], object]) -> None:
    """The application's call: only pyzmq's own EAGAIN may come out."""
    try:
        action()
    except zmq.Again:
        pass


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fault_inside_a_connection_never_reaches_the_application(
    name: str,
    switch: Switch,
    bound: Callable[..., Bound],
    raw: Callable[..., RawPeer],
    monitor: Callable[..., Monitor],
    ctx: zmq.Context,
    caplog: pytest.LogCaptureFixture,
) -> None:
    case = CASES[name]
    options: dict[str, object] = {"RCVTIMEO": 300, "SNDTIMEO": 300}
    if case.trigger == "timer":
        options["HEARTBEAT_IVL"] = 50
    router = bound("ROUTER", **options)
    mon = monitor(router.sock)
    with caplog.at_level(logging.DEBUG, logger="purezmq"):
        if case.when == "connect":
            switch.armed = True
        peer = raw(router.port)
        if case.when == "connect":
            peer.send(greeting() + ready(b"DEALER", b"victim") + message(b"hello"))
        else:
            peer.handshake(b"DEALER", b"victim")
            mon.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
            switch.armed = True
            if case.trigger == "peer-sends":
                peer.send(message(b"hello"))
        if case.trigger == "app-sends":
            for _ in range(3):
                _app_calls(router.sock, lambda: router.sock.send_multipart([b"victim", b"x"]))
        _app_calls(router.sock, router.sock.recv_multipart)
        peer.wait_closed()
        mon.wait_for(zmq.EVENT_DISCONNECTED)
        switch.armed = False
        assert switch.fired, "the fault was never reached: the case tests nothing"
        # Still serving, with a peer that speaks the whole protocol (heartbeats too).
        client = ctx.socket(zmq.DEALER)
        client.setsockopt(zmq.LINGER, 0)
        client.setsockopt(zmq.RCVTIMEO, 5000)
        client.setsockopt(zmq.ROUTING_ID, b"after")
        client.connect(router.endpoint)
        client.send(b"still there?")
        router.sock.setsockopt(zmq.RCVTIMEO, 5000)
        assert router.sock.recv_multipart() == [b"after", b"still there?"]
        router.sock.send_multipart([b"after", b"yes"])
        assert client.recv() == b"yes"
    loud = [r for r in caplog.records if r.levelno > logging.DEBUG or r.exc_info]
    assert not loud, [(r.levelname, r.getMessage()) for r in loud]
