"""Socket monitor events, modelled on libzmq's tests/test_monitor.cpp.

Events are libzmq's two frames: struct '=HI' (event, value) and the endpoint."""

from __future__ import annotations

import struct

import pytest

import purezmq as zmq

from .conftest import Events, bind_any, inproc_name
from .test_pair import bounce

NETWORK = pytest.mark.parametrize("transport", ["tcp", "ipc"])


def _next(mon, timeout_ms=5000):
    assert mon.poll(timeout_ms), "no monitor event"
    frames = mon.recv_multipart()
    assert len(frames) == 2
    assert len(frames[0]) == 6
    event, value = struct.unpack("=HI", frames[0])
    return event, value, frames[1].decode()


def test_monitor_invalid_protocol_fails(make):
    client = make(zmq.DEALER)
    with pytest.raises(zmq.ZMQError) as e:
        client.monitor("tcp://127.0.0.1:*", 0)
    assert e.value.errno == zmq.EPROTONOSUPPORT


def test_monitor_malformed_endpoint_keeps_the_running_monitor(make):
    """A malformed endpoint is EINVAL before anything changes (libzmq parses
    the endpoint before it stops the current monitor): events still come."""
    sock = make(zmq.DEALER)
    addr = inproc_name()
    sock.monitor(addr, zmq.EVENT_ALL)
    mon = make(zmq.PAIR)
    mon.connect(addr)
    with pytest.raises(zmq.ZMQError) as e:
        sock.monitor("not-an-endpoint", zmq.EVENT_ALL)
    assert e.value.errno == zmq.EINVAL
    ep = bind_any(sock, "tcp://127.0.0.1:*")
    event, _, endpoint = _next(mon)
    assert (event, endpoint) == (zmq.EVENT_LISTENING, ep)


@NETWORK
def test_monitor_basic(ctx, make, endpoint_for, transport):
    """libzmq's zmq_socket_monitor flow: the monitored socket binds the inproc
    endpoint, the application connects a PAIR to it."""
    client = make(zmq.DEALER)
    server = make(zmq.DEALER)
    client_addr, server_addr = inproc_name(), inproc_name()
    client.monitor(client_addr, zmq.EVENT_ALL)
    server.monitor(server_addr, zmq.EVENT_ALL)
    client_mon, server_mon = make(zmq.PAIR), make(zmq.PAIR)
    client_mon.connect(client_addr)
    server_mon.connect(server_addr)

    ep = bind_any(server, endpoint_for(transport))
    client.connect(ep)
    bounce(server, client)
    client.close(linger=0)
    server.close(linger=0)

    # Client: [CONNECT_DELAYED] CONNECTED HANDSHAKE_SUCCEEDED
    #         ([DISCONNECTED CONNECT_RETRIED]) MONITOR_STOPPED
    event, _, endpoint = _next(client_mon)
    if event == zmq.EVENT_CONNECT_DELAYED:
        event, _, endpoint = _next(client_mon)
    assert event == zmq.EVENT_CONNECTED
    assert endpoint == ep
    assert _next(client_mon)[0] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    event = _next(client_mon)[0]
    if event == zmq.EVENT_DISCONNECTED:
        # The server's close raced ahead of the client's. libzmq then reports
        # CONNECT_RETRIED; a closing socket that does not retry is fine too.
        event = _next(client_mon)[0]
        if event == zmq.EVENT_CONNECT_RETRIED:
            event = _next(client_mon)[0]
    assert event == zmq.EVENT_MONITOR_STOPPED

    # Server: LISTENING ACCEPTED HANDSHAKE_SUCCEEDED [CLOSED|DISCONNECTED]... MONITOR_STOPPED
    event, _, endpoint = _next(server_mon)
    assert event == zmq.EVENT_LISTENING
    assert endpoint == ep
    assert _next(server_mon)[0] == zmq.EVENT_ACCEPTED
    assert _next(server_mon)[0] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    rest = []
    while not rest or rest[-1] != zmq.EVENT_MONITOR_STOPPED:
        rest.append(_next(server_mon)[0])
    assert set(rest[:-1]) <= {zmq.EVENT_CLOSED, zmq.EVENT_DISCONNECTED}


@NETWORK
def test_get_monitor_socket_events(make, endpoint_for, transport):
    server = make(zmq.ROUTER)
    client = make(zmq.DEALER)
    server_ev = Events(server)
    client_ev = Events(client)
    ep = bind_any(server, endpoint_for(transport))
    client.connect(ep)

    ((_, _, listening_ep),) = server_ev.wait_for(zmq.EVENT_LISTENING)
    assert listening_ep == ep
    server_ev.wait_for(zmq.EVENT_ACCEPTED)
    server_ev.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    ((_, _, connected_ep),) = client_ev.wait_for(zmq.EVENT_CONNECTED)
    assert connected_ep == ep
    client_ev.wait_for(zmq.EVENT_HANDSHAKE_SUCCEEDED)

    # The server goes away: the client sees DISCONNECTED, then retries.
    server.close()
    ((_, _, disc_ep),) = client_ev.wait_for(zmq.EVENT_DISCONNECTED)
    assert disc_ep == ep
    retried = client_ev.wait_for(zmq.EVENT_CONNECT_RETRIED)
    assert retried[0][1] >= 100  # the interval in ms (RECONNECT_IVL default 100)
    # Order as libzmq: CONNECTED before HANDSHAKE_SUCCEEDED before DISCONNECTED.
    kinds = [e[0] for e in client_ev.seen]
    assert kinds.index(zmq.EVENT_CONNECTED) < kinds.index(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    assert kinds.index(zmq.EVENT_HANDSHAKE_SUCCEEDED) < kinds.index(zmq.EVENT_DISCONNECTED)


@NETWORK
def test_monitor_event_filter(make, endpoint_for, transport):
    server = make(zmq.PULL)
    ev = Events(server, zmq.EVENT_HANDSHAKE_SUCCEEDED)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.PUSH)
    client.connect(ep)
    event, value, endpoint = ev.next()
    assert event == zmq.EVENT_HANDSHAKE_SUCCEEDED
    assert value == 0
    assert endpoint == ep
    client.close()
    with pytest.raises(zmq.Again):
        ev.next(200)  # DISCONNECTED was filtered out


@NETWORK
def test_disable_monitor_sends_monitor_stopped(make, endpoint_for, transport):
    s = make(zmq.PULL)
    ev = Events(s)
    bind_any(s, endpoint_for(transport))
    assert ev.next()[0] == zmq.EVENT_LISTENING
    s.disable_monitor()
    event, value, _ = ev.next()
    assert event == zmq.EVENT_MONITOR_STOPPED
    assert value == 0
    # Nothing after MONITOR_STOPPED.
    bind_any(s, endpoint_for(transport))
    with pytest.raises(zmq.Again):
        ev.next(200)


def test_close_stops_monitor(make):
    s = make(zmq.PULL)
    ev = Events(s)
    s.close()
    assert ev.next()[0] == zmq.EVENT_MONITOR_STOPPED


@NETWORK
def test_unbind_emits_closed(make, endpoint_for, transport):
    s = make(zmq.PULL)
    ev = Events(s)
    ep = bind_any(s, endpoint_for(transport))
    ev.wait_for(zmq.EVENT_LISTENING)
    s.unbind(ep)
    ((_, _, closed_ep),) = ev.wait_for(zmq.EVENT_CLOSED)
    assert closed_ep == ep


@NETWORK
def test_accepted_value_is_the_connection_fd(make, endpoint_for, transport):
    """ACCEPTED and CONNECTED carry the new connection's descriptor, and
    DISCONNECTED the same one."""
    server = make(zmq.PULL)
    ev = Events(server)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.PUSH)
    client.connect(ep)
    ((_, fd, _),) = ev.wait_for(zmq.EVENT_ACCEPTED)
    assert 0 <= fd < 1 << 20
    client.close()
    ((_, disc_fd, _),) = ev.wait_for(zmq.EVENT_DISCONNECTED)
    assert disc_fd == fd


@NETWORK
def test_utils_monitor_recv_monitor_message(make, endpoint_for, transport):
    """pyzmq's helper module: purezmq.utils.monitor.recv_monitor_message."""
    from purezmq.utils.monitor import parse_monitor_message, recv_monitor_message

    s = make(zmq.PULL)
    mon = s.get_monitor_socket()
    ep = bind_any(s, endpoint_for(transport))
    assert mon.poll(5000)
    msg = recv_monitor_message(mon)
    assert msg["event"] == zmq.EVENT_LISTENING
    assert msg["endpoint"] == ep.encode()
    assert isinstance(msg["value"], int)
    parsed = parse_monitor_message([struct.pack("=HI", zmq.EVENT_ACCEPTED, 7), b"tcp://x:1"])
    assert parsed == {"event": zmq.EVENT_ACCEPTED, "value": 7, "endpoint": b"tcp://x:1"}
