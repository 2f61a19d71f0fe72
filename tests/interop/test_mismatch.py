"""Socket types that may not talk (RFC 37's table, libzmq's check_socket_type)
are refused in both directions of who binds: no handshake succeeds, no message
is delivered, and the monitors see the connection dropped.

libzmq 4.3 reports a refused Socket-Type only as EVENT_DISCONNECTED (no
ERROR command, no HANDSHAKE_FAILED event), and it often closes before purezmq
has read its READY; so against libzmq the common ground is "connected, then
disconnected, never HANDSHAKE_SUCCEEDED". Where purezmq itself detects the
mismatch (a replayed libzmq READY), it sends ERROR and reports
EVENT_HANDSHAKE_FAILED_PROTOCOL.
"""

from __future__ import annotations

import errno
from typing import Any

import pytest
import zmq

from .helpers import (
    ZMQ_ERRORS,
    assert_nothing_received,
    bind,
    events_during,
    module_of,
    wait_for_event,
)
from .zmtp_raw import FLAG_COMMAND, RawPeer, capture_libzmq_handshake, split_command

pytestmark = pytest.mark.interop

SENDERS = {"PUB", "PUSH", "REQ", "DEALER"}
RECEIVERS = {"PULL", "SUB", "DEALER"}

#: (purezmq type, libzmq type)
MISMATCHED = [
    ("PUB", "PUSH"),
    ("PUB", "PULL"),
    ("PULL", "PUB"),
    ("REQ", "DEALER"),
    ("DEALER", "REQ"),
    ("PUSH", "SUB"),
]


def _send_one(sock: Any) -> None:
    try:
        sock.send_multipart([b"must not arrive", b""], flags=module_of(sock).NOBLOCK)
    except ZMQ_ERRORS as e:
        if e.errno != errno.EAGAIN:  # no pipe on a bound socket
            raise


@pytest.mark.parametrize("binder", ["pz", "lz"])
@pytest.mark.parametrize(
    ("pz_type", "lz_type"), MISMATCHED, ids=[f"pz.{a}-lz.{b}" for a, b in MISMATCHED]
)
def test_mismatched_pair_refused(peers: Any, pz_type: str, lz_type: str, binder: str) -> None:
    pz = peers.pz(pz_type)
    lz = peers.lz(lz_type)
    for sock in (pz, lz):
        if sock.getsockopt(module_of(sock).TYPE) == module_of(sock).SUB:
            sock.setsockopt(module_of(sock).SUBSCRIBE, b"")
    pz_mon = pz.get_monitor_socket()
    lz_mon = lz.get_monitor_socket()
    if binder == "pz":
        peers.link(pz, lz, "tcp")
    else:
        peers.link(lz, pz, "tcp")
    pz_events = wait_for_event(pz_mon, zmq.EVENT_DISCONNECTED)
    lz_events = wait_for_event(lz_mon, zmq.EVENT_DISCONNECTED)
    for sock, type_name in ((pz, pz_type), (lz, lz_type)):
        if type_name in SENDERS:
            _send_one(sock)
    for sock, type_name in ((pz, pz_type), (lz, lz_type)):
        if type_name in RECEIVERS:
            assert_nothing_received(sock, 200)
    pz_events += events_during(pz_mon, 0.05)
    lz_events += events_during(lz_mon, 0.05)
    for events in (pz_events, lz_events):
        assert zmq.EVENT_HANDSHAKE_SUCCEEDED not in [e.event for e in events], events
    connected = {zmq.EVENT_CONNECTED, zmq.EVENT_ACCEPTED}
    assert connected & {e.event for e in pz_events}, pz_events
    assert connected & {e.event for e in lz_events}, lz_events


#: A type libzmq accepts, to capture its READY with.
COMPATIBLE = {"PUSH": "PULL", "DEALER": "DEALER"}


@pytest.mark.parametrize(("pz_type", "lz_type"), [("PUB", "PUSH"), ("REQ", "DEALER")])
def test_purezmq_refuses_libzmq_ready(peers: Any, zctx: Any, pz_type: str, lz_type: str) -> None:
    """Replaying a real libzmq socket's greeting+READY to purezmq: purezmq
    refuses the Socket-Type itself with an ERROR command, closes, and reports
    EVENT_HANDSHAKE_FAILED_PROTOCOL."""
    captured = capture_libzmq_handshake(zctx, lz_type, COMPATIBLE[lz_type])
    pz = peers.pz(pz_type)
    mon = pz.get_monitor_socket()
    port = int(bind(pz, "tcp://127.0.0.1:*").rsplit(":", 1)[1])
    raw = RawPeer.connect("127.0.0.1", port)
    try:
        raw.send(captured.greeting + captured.ready)
        raw.read_greeting()
        frames = []
        with pytest.raises(EOFError):
            while True:
                frames.append(raw.read_frame())
        names = [split_command(body)[0] for flags, body in frames if flags & FLAG_COMMAND]
        assert names[-1:] == [b"ERROR"], frames
        events = wait_for_event(mon, zmq.EVENT_DISCONNECTED)
        assert zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL in [e.event for e in events], events
        assert zmq.EVENT_HANDSHAKE_SUCCEEDED not in [e.event for e in events], events
    finally:
        raw.close()
