"""DEALER/ROUTER (RFC 28), modelled on libzmq's tests/test_spec_dealer.cpp,
test_spec_router.cpp, test_router_mandatory*.cpp, test_router_handover.cpp,
test_probe_router.cpp and test_connect_rid.cpp."""

from __future__ import annotations

import time

import pytest

import purezmq as zmq

from .conftest import bind_any, wait_for_peers, wait_until

SERVICES = 3


# ------------------------------------------------------------ test_spec_dealer
def test_dealer_round_robin_out(make, endpoint_for, transport):
    dealer = make(zmq.DEALER)
    ep = bind_any(dealer, endpoint_for(transport))
    reps = [make(zmq.REP) for _ in range(SERVICES)]
    for r in reps:
        wait_for_peers(dealer, lambda r=r: r.connect(ep), 1, transport)

    for _ in range(SERVICES):
        dealer.send_multipart([b"", b"ABC"])
    for _ in range(SERVICES):
        dealer.send_multipart([b"", b"DEF"])
    for r in reps:
        assert r.recv() == b"ABC"
        r.send(b"ok")
        assert r.recv() == b"DEF"
        r.send(b"ok")
    assert [dealer.recv_multipart() for _ in range(2 * SERVICES)] == [[b"", b"ok"]] * 6


def test_dealer_fair_queue_in_inproc(make):
    dealer = make(zmq.DEALER)
    dealer.bind("inproc://dealer-fq")
    peers = [make(zmq.DEALER) for _ in range(SERVICES)]
    for p in peers:
        p.connect("inproc://dealer-fq")
    for i, p in enumerate(peers):
        p.send(b"A%d" % i)
        p.send(b"B%d" % i)
    first = {dealer.recv() for _ in peers}
    second = {dealer.recv() for _ in peers}
    assert first == {b"A%d" % i for i in range(SERVICES)}
    assert second == {b"B%d" % i for i in range(SERVICES)}


def test_dealer_block_on_send_no_peers(make):
    dealer = make(zmq.DEALER, sndtimeo=250)
    with pytest.raises(zmq.Again):
        dealer.send(b"", zmq.NOBLOCK)
    t0 = time.monotonic()
    with pytest.raises(zmq.Again):
        dealer.send(b"")
    assert time.monotonic() - t0 >= 0.24


def test_dealer_destroy_queue_on_disconnect(make, endpoint_for, transport):
    a = make(zmq.DEALER)
    ep = bind_any(a, endpoint_for(transport))
    b = make(zmq.DEALER)
    wait_for_peers(a, lambda: b.connect(ep), 1, transport)

    a.send(b"ABC", zmq.NOBLOCK)
    b.send(b"DEF")
    assert a.recv() == b"DEF"  # the connection is up both ways
    b.disconnect(ep)
    wait_until(lambda: b.poll(0) == 0 and a.poll(0, zmq.POLLOUT) == 0)
    with pytest.raises(zmq.Again):
        a.send(b"XYZ", zmq.NOBLOCK)

    b.connect(ep)
    wait_until(lambda: a.poll(0, zmq.POLLOUT) != 0)
    with pytest.raises(zmq.Again):
        b.recv(zmq.NOBLOCK)
    a.send(b"GHI")
    assert b.recv() == b"GHI"


@pytest.mark.parametrize("transport", ["ipc"])
def test_dealer_destroy_queue_on_disconnect_repeated(make, endpoint_for, transport):
    """The race in test_dealer_destroy_queue_on_disconnect, tried many times: a
    message on its way in when disconnect() is called must never be delivered
    afterwards (libzmq: never; each try takes a few milliseconds)."""
    late = []
    for _ in range(150):
        a = make(zmq.DEALER)
        ep = bind_any(a, endpoint_for(transport))
        b = make(zmq.DEALER)
        b.connect(ep)
        assert a.poll(5000, zmq.POLLOUT) == zmq.POLLOUT
        a.send(b"ABC")
        b.send(b"DEF")
        assert a.recv() == b"DEF"
        b.disconnect(ep)
        wait_until(lambda a=a, b=b: (b.poll(0), a.poll(0, zmq.POLLOUT))[1] == 0)
        while b.poll(20):
            late.append(b.recv())
        a.close()
        b.close()
    assert late == [], f"{len(late)} message(s) delivered after disconnect()"


# ------------------------------------------------------------ test_spec_router
def test_router_fair_queue_in(make, endpoint_for, transport):
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    dealers = [make(zmq.DEALER, routing_id=b"D%d" % i) for i in range(SERVICES)]
    for d in dealers:
        d.connect(ep)
    for i, d in enumerate(dealers):
        d.send(b"m%d" % i)
    got = sorted(router.recv_multipart() for _ in dealers)
    assert got == [[b"D%d" % i, b"m%d" % i] for i in range(SERVICES)]
    # Replies are routed back by routing id.
    for i in reversed(range(SERVICES)):
        router.send_multipart([b"D%d" % i, b"reply%d" % i])
    for i, d in enumerate(dealers):
        assert d.recv() == b"reply%d" % i


def test_router_fair_queue_in_inproc(make):
    router = make(zmq.ROUTER)
    router.bind("inproc://router-fq")
    dealers = [make(zmq.DEALER, routing_id=b"D%d" % i) for i in range(SERVICES)]
    for d in dealers:
        d.connect("inproc://router-fq")
    for d in dealers:
        d.send(b"first")
        d.send(b"second")
    first = [router.recv_multipart() for _ in dealers]
    second = [router.recv_multipart() for _ in dealers]
    assert sorted(m[0] for m in first) == [b"D0", b"D1", b"D2"]
    assert {m[1] for m in first} == {b"first"}
    assert sorted(m[0] for m in second) == [b"D0", b"D1", b"D2"]
    assert {m[1] for m in second} == {b"second"}


def test_router_destroy_queue_on_disconnect(make, endpoint_for, transport):
    """test_spec_router: messages from a peer that disconnects are discarded."""
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    dealer = make(zmq.DEALER, routing_id=b"X")
    dealer.connect(ep)
    dealer.send(b"hello")
    assert router.recv_multipart() == [b"X", b"hello"]

    # A message queued towards the dealer, then the dealer goes away.
    router.send_multipart([b"X", b"ABC"])
    dealer.disconnect(ep)
    with pytest.raises(zmq.Again):
        dealer.recv(zmq.NOBLOCK)
    # The router forgets the peer (ROUTER_MANDATORY makes that visible).
    router.router_mandatory = 1

    def unreachable():
        dealer.poll(0)  # libzmq: the disconnect completes as the dealer processes commands
        try:
            router.send_multipart([b"X", b"probe"], zmq.NOBLOCK)
        except zmq.ZMQError as e:
            return e.errno == zmq.EHOSTUNREACH
        return False

    wait_until(unreachable)


# ------------------------------------------------------------ routing ids
def test_routing_id_is_first_frame(make, endpoint_for, transport):
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    named = make(zmq.DEALER, routing_id=b"client-1")
    anonymous = make(zmq.DEALER)
    assert named.routing_id == b"client-1"
    assert named.get(zmq.ROUTING_ID) == b"client-1"
    named.connect(ep)
    anonymous.connect(ep)
    named.send(b"a")
    assert router.recv_multipart() == [b"client-1", b"a"]
    anonymous.send(b"b")
    rid, body = router.recv_multipart()
    # libzmq generates a 5-byte id starting with a zero byte.
    assert body == b"b"
    assert len(rid) == 5
    assert rid[0] == 0
    router.send_multipart([rid, b"to-anonymous"])
    assert anonymous.recv() == b"to-anonymous"


def test_connect_rid_router_2_router(make, endpoint_for, transport):
    """test_connect_rid test_router_2_router (named): CONNECT_ROUTING_ID names
    the peer of the next connect, so a connecting ROUTER can address it at once."""
    rbind = make(zmq.ROUTER, routing_id=b"X")
    ep = bind_any(rbind, endpoint_for(transport))
    rconn = make(zmq.ROUTER, routing_id=b"Y", router_mandatory=1)
    rconn.connect_routing_id = b"conn1"
    rconn.connect(ep)
    rconn.send_multipart([b"conn1", b"hi 1"])  # no EHOSTUNREACH: known already

    assert rbind.recv_multipart() == [b"Y", b"hi 1"]
    rbind.send_multipart([b"Y", b"ok"])
    assert rconn.recv_multipart() == [b"conn1", b"ok"]


def test_connect_rid_router_2_router_anonymous(make, endpoint_for, transport):
    """test_connect_rid test_router_2_router (not named)."""
    rbind = make(zmq.ROUTER)
    ep = bind_any(rbind, endpoint_for(transport))
    rconn = make(zmq.ROUTER)
    rconn.connect_routing_id = b"conn1"
    rconn.connect(ep)
    rconn.send_multipart([b"conn1", b"hi 1"])
    rid, body = rbind.recv_multipart()
    assert body == b"hi 1"
    assert rid[0] == 0
    rbind.send_multipart([rid, b"ok"])
    assert rconn.recv_multipart() == [b"conn1", b"ok"]


def test_connect_rid_applies_to_one_connect_only(make, endpoint_for, transport):
    a = make(zmq.ROUTER, routing_id=b"A")
    b = make(zmq.ROUTER, routing_id=b"B")
    ep_a = bind_any(a, endpoint_for(transport))
    ep_b = bind_any(b, endpoint_for(transport))
    c = make(zmq.ROUTER, routing_id=b"C", router_mandatory=1)
    c.connect_routing_id = b"peer-a"
    c.connect(ep_a)
    c.connect(ep_b)  # no connect routing id: b's own routing id is used
    c.send_multipart([b"peer-a", b"1"])
    assert a.recv_multipart() == [b"C", b"1"]
    # b is addressable under its ROUTING_ID once the handshake is done.

    def sent():
        try:
            c.send_multipart([b"B", b"2"], zmq.NOBLOCK)
        except zmq.ZMQError as e:
            assert e.errno == zmq.EHOSTUNREACH
            return False
        return True

    wait_until(sent)
    assert b.recv_multipart() == [b"C", b"2"]


# ------------------------------------------------------------ ROUTER_MANDATORY
def test_router_mandatory_unknown_peer(make, endpoint_for, transport):
    """test_router_mandatory test_basic."""
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    # Without ROUTER_MANDATORY, a message to an unknown peer is dropped silently.
    router.send_multipart([b"UNKNOWN", b"DATA"])
    router.router_mandatory = 1
    with pytest.raises(zmq.ZMQError) as e:
        router.send(b"UNKNOWN", zmq.SNDMORE | zmq.NOBLOCK)
    assert e.value.errno == zmq.EHOSTUNREACH
    with pytest.raises(zmq.ZMQError) as e:
        router.send_multipart([b"UNKNOWN", b"DATA"])
    assert e.value.errno == zmq.EHOSTUNREACH

    dealer = make(zmq.DEALER, routing_id=b"X")
    dealer.connect(ep)
    dealer.send(b"Hello")
    assert router.recv_multipart() == [b"X", b"Hello"]
    router.send(b"X", zmq.SNDMORE)
    router.send(b"Hello")
    assert dealer.recv() == b"Hello"


def test_router_mandatory_hwm_inproc(make):
    """test_router_mandatory_hwm over inproc: exactly SNDHWM + peer's RCVHWM
    messages, then EAGAIN (and no POLLOUT); reading makes room again."""
    router = make(zmq.ROUTER, router_mandatory=1, sndhwm=1)
    router.bind("inproc://router-mandatory-hwm")
    dealer = make(zmq.DEALER, routing_id=b"D", rcvhwm=1)
    dealer.connect("inproc://router-mandatory-hwm")
    dealer.send(b"ready")
    assert router.recv_multipart() == [b"D", b"ready"]

    sent = 0
    while sent < 100:
        try:
            router.send_multipart([b"D", b"x"], zmq.NOBLOCK)
        except zmq.Again:
            break
        sent += 1
    assert sent == 2
    assert router.poll(0, zmq.POLLOUT) == 0
    # The first frame alone already fails with EAGAIN.
    with pytest.raises(zmq.Again):
        router.send(b"D", zmq.SNDMORE | zmq.NOBLOCK)
    assert dealer.recv() == b"x"
    assert dealer.recv() == b"x"
    wait_until(lambda: router.poll(0, zmq.POLLOUT) == zmq.POLLOUT)
    router.send_multipart([b"D", b"after"], zmq.NOBLOCK)
    assert dealer.recv() == b"after"


def test_router_mandatory_hwm(make, endpoint_for, transport):
    """test_router_mandatory_hwm: with a full pipe ROUTER_MANDATORY gives EAGAIN
    (kernel buffers may take some messages first)."""
    router = make(zmq.ROUTER, router_mandatory=1, sndhwm=1)
    ep = bind_any(router, endpoint_for(transport))
    dealer = make(zmq.DEALER, routing_id=b"X", rcvhwm=1)
    dealer.connect(ep)
    dealer.send(b"Hello")
    assert router.recv_multipart() == [b"X", b"Hello"]

    buf = b"x" * 65536
    sent = 0
    while sent < 10_000:
        try:
            router.send_multipart([b"X", buf], zmq.NOBLOCK)
        except zmq.Again:
            break
        sent += 1
    assert sent < 10_000, "ROUTER_MANDATORY never reported EAGAIN at the HWM"
    # Everything accepted is delivered.
    for _ in range(sent):
        assert dealer.recv() == buf


def test_router_without_mandatory_drops_at_hwm(make):
    """ROUTER's action at the HWM is to drop (no error, no blocking)."""
    router = make(zmq.ROUTER, sndhwm=1)
    router.bind("inproc://router-drop")
    dealer = make(zmq.DEALER, routing_id=b"D", rcvhwm=1)
    dealer.connect("inproc://router-drop")
    dealer.send(b"ready")
    router.recv_multipart()
    t0 = time.monotonic()
    for i in range(10):
        router.send_multipart([b"D", b"%d" % i], zmq.NOBLOCK)
    assert time.monotonic() - t0 < 2
    assert [dealer.recv(), dealer.recv()] == [b"0", b"1"]
    with pytest.raises(zmq.Again):
        dealer.recv(zmq.NOBLOCK)


# ------------------------------------------------------------ ROUTER_HANDOVER
def test_router_handover_with_handover(make, endpoint_for, transport):
    router = make(zmq.ROUTER, router_handover=1)
    ep = bind_any(router, endpoint_for(transport))
    one = make(zmq.DEALER, routing_id=b"X")
    one.connect(ep)
    one.send(b"Hello")
    assert router.recv_multipart() == [b"X", b"Hello"]

    two = make(zmq.DEALER, routing_id=b"X")
    two.connect(ep)
    two.send(b"Hello")
    assert router.recv_multipart() == [b"X", b"Hello"]

    router.send_multipart([b"X", b"Hello"])
    assert two.recv() == b"Hello"
    assert one.poll(300) == 0


def test_router_handover_without_handover(make, endpoint_for, transport):
    router = make(zmq.ROUTER)
    ep = bind_any(router, endpoint_for(transport))
    one = make(zmq.DEALER, routing_id=b"X")
    one.connect(ep)
    one.send(b"Hello")
    assert router.recv_multipart() == [b"X", b"Hello"]

    two = make(zmq.DEALER, routing_id=b"X")
    two.connect(ep)
    two.send(b"Hello")
    # The newcomer with a duplicate id is ignored.
    assert router.poll(300) == 0

    router.send_multipart([b"X", b"Hello"])
    assert one.recv() == b"Hello"
    assert two.poll(300) == 0


# ------------------------------------------------------------ PROBE_ROUTER
def test_probe_router_dealer(make, endpoint_for, transport):
    server = make(zmq.ROUTER)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.DEALER, routing_id=b"X", probe_router=1)
    client.connect(ep)
    assert server.recv_multipart() == [b"X", b""]
    server.send_multipart([b"X", b"Hello"])
    assert client.recv() == b"Hello"


def test_probe_router_router(make, endpoint_for, transport):
    server = make(zmq.ROUTER)
    ep = bind_any(server, endpoint_for(transport))
    client = make(zmq.ROUTER, routing_id=b"X", probe_router=1)
    client.connect(ep)
    assert server.recv_multipart() == [b"X", b""]
    server.send_multipart([b"X", b"Hello"])
    rid, body = client.recv_multipart()
    assert len(rid) == 5  # auto-generated: the server set no routing id
    assert body == b"Hello"
