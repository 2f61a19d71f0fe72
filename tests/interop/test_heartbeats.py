"""ZMTP 3.1 heartbeats against libzmq: PINGs answered both ways, and a peer
that goes silent detected through monitor events.

The idle windows are longer than HEARTBEAT_IVL + HEARTBEAT_TIMEOUT, so a PING
left unanswered would have ended the connection inside them; messages then
flow over the same connection. A dead peer is a raw TCP peer replaying the
exact handshake bytes a real libzmq socket sent, then saying nothing more.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import zmq

import purezmq

from .helpers import bind, events_during, kinds, next_event, wait_for_event
from .zmtp_raw import (
    FLAG_COMMAND,
    RawListener,
    RawPeer,
    Recorder,
    Tap,
    capture_libzmq_handshake,
    split_command,
)

pytestmark = pytest.mark.interop

#: ms; ivl + timeout = 240 ms, well inside the idle window.
HEARTBEAT = {"heartbeat_ivl": 40, "heartbeat_timeout": 200, "heartbeat_ttl": 1000}
IDLE_WINDOW = 0.6
GONE = {zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED, zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL}


def _drain(mon: Any) -> list[Any]:
    out = []
    while (ev := next_event(mon, 0)) is not None:
        out.append(ev)
    return out


@pytest.fixture
def tap_factory() -> Iterator[Callable[[int], Tap]]:
    taps: list[Tap] = []

    def make(port: int) -> Tap:
        taps.append(Tap(port))
        return taps[-1]

    yield make
    for tap in taps:
        tap.close()


@pytest.mark.parametrize("binder", ["pz", "lz"])
@pytest.mark.parametrize("pinger", ["lz", "pz", "both"])
def test_heartbeats_keep_idle_connection_up(
    peers: Any, tap_factory: Callable[[int], Tap], pinger: str, binder: str
) -> None:
    """Through a recording TCP tap: the pinging side's PINGs are answered with
    PONGs by the other implementation, the idle connection stays up, and
    messages still flow afterwards."""
    lz = peers.lz("DEALER", **(HEARTBEAT if pinger in ("lz", "both") else {}))
    pz = peers.pz("DEALER", **(HEARTBEAT if pinger in ("pz", "both") else {}))
    lz_mon = lz.get_monitor_socket()
    pz_mon = pz.get_monitor_socket()
    server, client = (pz, lz) if binder == "pz" else (lz, pz)
    port = int(bind(server, "tcp://127.0.0.1:*").rsplit(":", 1)[1])
    tap = tap_factory(port)
    client.connect(tap.endpoint)
    wait_for_event(lz_mon, zmq.EVENT_HANDSHAKE_SUCCEEDED)
    wait_for_event(pz_mon, zmq.EVENT_HANDSHAKE_SUCCEEDED)
    for round_ in range(2):
        lz_events = events_during(lz_mon, IDLE_WINDOW)
        pz_events = _drain(pz_mon)
        assert not [e for e in lz_events if e.event in GONE], kinds(lz_events)
        assert not [e for e in pz_events if e.event in GONE], kinds(pz_events)
        lz.send_multipart([b"from libzmq", b"%d" % round_])
        assert pz.recv_multipart() == [b"from libzmq", b"%d" % round_]
        pz.send_multipart([b"from purezmq", b"%d" % round_])
        assert lz.recv_multipart() == [b"from purezmq", b"%d" % round_]
    sent = {"pz": tap.from_server, "lz": tap.from_client}
    if binder == "lz":
        sent = {"lz": tap.from_server, "pz": tap.from_client}
    for side in ("pz", "lz"):
        other = "lz" if side == "pz" else "pz"
        names = sent[side].command_names()
        answers = sent[other].command_names()
        if pinger in (side, "both"):
            # Two idle windows of 600 ms at a 40 ms interval: many PINGs.
            assert names.count(b"PING") >= 5, (side, names)
            assert answers.count(b"PONG") >= names.count(b"PING") - 2, (other, answers)
        else:
            assert b"PING" not in names, (side, names)


def _raw_libzmq_peer(peers: Any, zctx: Any, pz: Any, pz_role: str, **capture: Any) -> RawPeer:
    """Connect `pz` and a raw peer that sends a real libzmq DEALER's greeting
    and READY (and PING, with `capture`), and reads purezmq's handshake."""
    captured = capture_libzmq_handshake(zctx, "DEALER", "DEALER", **capture)
    if pz_role == "connect":
        listener = RawListener()
        try:
            pz.connect(listener.endpoint)
            raw = listener.accept()
        finally:
            listener.close()
    else:
        port = int(bind(pz, "tcp://127.0.0.1:*").rsplit(":", 1)[1])
        raw = RawPeer.connect("127.0.0.1", port)
    raw.send(captured.greeting + captured.ready)
    raw.read_greeting()
    flags, body = raw.read_frame()
    assert flags & FLAG_COMMAND and split_command(body)[0] == b"READY"
    if captured.ping is not None:
        raw.send(captured.ping)
    return raw


@pytest.mark.parametrize("pz_role", ["connect", "bind"])
def test_silent_peer_detected_by_heartbeat(peers: Any, zctx: Any, pz_role: str) -> None:
    """purezmq PINGs (with its TTL) a peer that completed the handshake and then
    went silent; HEARTBEAT_TIMEOUT ends the connection: EVENT_DISCONNECTED."""
    pz = peers.pz("DEALER", heartbeat_ivl=100, heartbeat_timeout=300, heartbeat_ttl=500)
    mon = pz.get_monitor_socket()
    started = time.monotonic()
    raw = _raw_libzmq_peer(peers, zctx, pz, pz_role)
    recorder = Recorder(raw).start()
    try:
        seen = wait_for_event(mon, zmq.EVENT_HANDSHAKE_SUCCEEDED)
        seen += wait_for_event(mon, zmq.EVENT_DISCONNECTED, timeout=5)
        elapsed = time.monotonic() - started
        # Not before the first PING (100 ms) plus its timeout (300 ms).
        assert elapsed >= 0.35, (elapsed, seen)
        pings = recorder.commands(b"PING")
        assert pings, recorder.frames
        assert pings[0][:2] == b"\x00\x05", pings[0]  # TTL 500 ms in deciseconds
        assert recorder.eof.wait(5), "purezmq did not close the dead connection"
    finally:
        recorder.stop()


def test_silent_peer_without_heartbeat_stays_connected(peers: Any, zctx: Any) -> None:
    """The control for the test above: no heartbeat, no disconnection."""
    pz = peers.pz("DEALER")
    mon = pz.get_monitor_socket()
    raw = _raw_libzmq_peer(peers, zctx, pz, "connect")
    recorder = Recorder(raw).start()
    try:
        wait_for_event(mon, zmq.EVENT_HANDSHAKE_SUCCEEDED)
        events = events_during(mon, 0.8)
        assert not [e for e in events if e.event in GONE], kinds(events)
        assert not recorder.commands(b"PING")
        assert not recorder.eof.is_set()
    finally:
        recorder.stop()


@pytest.mark.parametrize("app", ["idle", "blocked-in-recv"])
def test_libzmq_ping_ttl_honoured(peers: Any, zctx: Any, app: str) -> None:
    """A real libzmq PING (TTL 300 ms) is answered with one PONG; when nothing
    follows within the TTL, purezmq (which does not heartbeat itself) drops
    the connection - whether the application is busy elsewhere (the I/O thread
    reads the PING) or waiting in recv() (the application's thread does)."""
    pz = peers.pz("DEALER", rcvtimeo=1500)
    mon = pz.get_monitor_socket()
    started = time.monotonic()
    if app == "blocked-in-recv":
        # Have the application wait for messages before the PING arrives.
        listener = RawListener()
        try:
            pz.connect(listener.endpoint)
            raw = listener.accept()
        finally:
            listener.close()
        captured = capture_libzmq_handshake(zctx, "DEALER", "DEALER", ping_ttl_ms=300)
        raw.send(captured.greeting + captured.ready)
        raw.read_greeting()
        raw.read_frame()
        recorder = Recorder(raw).start()
        assert captured.ping is not None
        wait_for_event(mon, zmq.EVENT_HANDSHAKE_SUCCEEDED)
        raw.send(captured.ping)
        with pytest.raises(purezmq.Again):
            pz.recv()  # nothing comes: the 1.5 s are spent inside recv
    else:
        raw = _raw_libzmq_peer(peers, zctx, pz, "connect", ping_ttl_ms=300)
        recorder = Recorder(raw).start()
    try:
        if app == "idle":
            wait_for_event(mon, zmq.EVENT_HANDSHAKE_SUCCEEDED)
        seen = wait_for_event(mon, zmq.EVENT_DISCONNECTED, timeout=5)
        assert time.monotonic() - started >= 0.25, seen
        pongs = recorder.commands(b"PONG")
        assert len(pongs) == 1, recorder.frames
        assert recorder.eof.wait(5)
    finally:
        recorder.stop()
