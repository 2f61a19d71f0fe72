"""zmq.proxy and zmq.device, modelled on libzmq's tests/test_proxy.cpp,
test_reqrep_device.cpp, test_sub_forward.cpp and test_proxy_terminate.cpp.

The proxy runs in a thread over a Context of its own; it ends with
ContextTerminated when that context is terminated, and the thread closes
the proxy's sockets so that term() returns."""

from __future__ import annotations

import threading

import pytest

import purezmq as zmq

from .conftest import bind_any, drain, wait_until

SLACK_S = 5.0


class ProxyRunner:
    """Runs zmq.proxy/zmq.device in a thread; `stop()` terminates its context."""

    def __init__(self, c: zmq.Context, target, *socks) -> None:
        self.ctx = c
        self.socks = [s for s in socks if s is not None]
        self.outcome: list[object] = []
        self.thread = threading.Thread(target=self._run, args=(target, socks), daemon=True)
        self.thread.start()

    def _run(self, target, socks) -> None:
        try:
            target(*socks)
            self.outcome.append("returned")
        except zmq.ContextTerminated:
            self.outcome.append("ContextTerminated")
        except BaseException as e:  # reported by stop()
            self.outcome.append(e)
        finally:
            for s in self.socks:
                s.close(linger=0)

    def stop(self, *others: zmq.Socket) -> None:
        for s in others:
            s.close(linger=0)
        term = threading.Thread(target=self.ctx.term, daemon=True)
        term.start()
        self.thread.join(SLACK_S)
        term.join(SLACK_S)
        assert not self.thread.is_alive(), "the proxy did not end on Context.term"
        assert not term.is_alive(), "Context.term did not return after the proxy ended"
        assert self.outcome == ["ContextTerminated"]


@pytest.fixture
def own_ctx():
    made = []

    def make() -> zmq.Context:
        c = zmq.Context()
        made.append(c)
        return c

    yield make
    for c in made:
        if not c.closed:
            t = threading.Thread(target=c.destroy, kwargs={"linger": 0}, daemon=True)
            t.start()
            t.join(10)


def _socket(c, kind, **opts):
    s = c.socket(kind)
    s.linger = 0
    s.rcvtimeo = 5000
    s.sndtimeo = 5000
    for k, v in opts.items():
        setattr(s, k, v)
    return s


def _reqrep_through(c, endpoint_for, transport, run):
    """REQ clients -> ROUTER | proxy | DEALER -> REP workers."""
    frontend = _socket(c, zmq.ROUTER)
    backend = _socket(c, zmq.DEALER)
    fe = bind_any(frontend, endpoint_for(transport))
    be = bind_any(backend, endpoint_for(transport))
    runner = run(frontend, backend)
    clients = [_socket(c, zmq.REQ) for _ in range(3)]
    workers = [_socket(c, zmq.REP) for _ in range(2)]
    for s in clients:
        s.connect(fe)
    for w in workers:
        w.connect(be)

    for round_ in range(3):
        for i, cl in enumerate(clients):
            cl.send_multipart([b"req-%d-%d" % (round_, i), b"part2"])
        served = 0
        poller = zmq.Poller()
        for w in workers:
            poller.register(w, zmq.POLLIN)
        while served < len(clients):
            ready = dict(poller.poll(SLACK_S * 1000))
            assert ready, "no request reached a worker"
            for w in ready:
                body = w.recv_multipart()
                w.send_multipart([b"rep:" + body[0], body[1]])
                served += 1
        for i, cl in enumerate(clients):
            assert cl.recv_multipart() == [b"rep:req-%d-%d" % (round_, i), b"part2"]
    return runner, clients + workers


def test_proxy_router_dealer(own_ctx, endpoint_for, transport):
    c = own_ctx()
    runner, others = _reqrep_through(
        c, endpoint_for, transport, lambda f, b: ProxyRunner(c, zmq.proxy, f, b)
    )
    runner.stop(*others)


def test_device_queue(own_ctx, endpoint_for, transport):
    """test_reqrep_device: zmq.device(zmq.QUEUE, ROUTER, DEALER)."""
    c = own_ctx()
    runner, others = _reqrep_through(
        c,
        endpoint_for,
        transport,
        lambda f, b: ProxyRunner(c, lambda x, y: zmq.device(zmq.QUEUE, x, y), f, b),
    )
    runner.stop(*others)


def test_proxy_capture(own_ctx, endpoint_for, transport):
    """test_proxy: the capture socket receives a copy of every message, both ways."""
    c = own_ctx()
    frontend = _socket(c, zmq.ROUTER)
    backend = _socket(c, zmq.DEALER)
    capture = _socket(c, zmq.PUSH)
    fe = bind_any(frontend, endpoint_for(transport))
    be = bind_any(backend, endpoint_for(transport))
    ce = bind_any(capture, endpoint_for(transport))
    tap = _socket(c, zmq.PULL)
    tap.connect(ce)
    runner = ProxyRunner(c, zmq.proxy, frontend, backend, capture)
    client = _socket(c, zmq.DEALER, routing_id=b"client")
    worker = _socket(c, zmq.DEALER)
    client.connect(fe)
    worker.connect(be)

    client.send_multipart([b"", b"request"])
    assert worker.recv_multipart() == [b"client", b"", b"request"]
    worker.send_multipart([b"client", b"", b"reply"])
    assert client.recv_multipart() == [b"", b"reply"]
    assert tap.recv_multipart() == [b"client", b"", b"request"]
    assert tap.recv_multipart() == [b"client", b"", b"reply"]
    runner.stop(tap, client, worker)


def test_sub_forward(own_ctx, endpoint_for, transport):
    """test_sub_forward: PUB -> XSUB | proxy | XPUB -> SUB; the subscription
    travels upstream through the proxy and messages come down."""
    c = own_ctx()
    publisher = _socket(c, zmq.PUB)
    pub_ep = bind_any(publisher, endpoint_for(transport))
    xsub = _socket(c, zmq.XSUB)
    xsub.connect(pub_ep)
    xpub = _socket(c, zmq.XPUB)
    xpub_ep = bind_any(xpub, endpoint_for(transport))
    runner = ProxyRunner(c, zmq.proxy, xsub, xpub)

    subscriber = _socket(c, zmq.SUB)
    subscriber.connect(xpub_ep)
    subscriber.subscribe(b"A")

    def arrived():
        publisher.send(b"A-probe")
        return subscriber.poll(20)

    wait_until(arrived)
    publisher.send(b"B-filtered-upstream")
    publisher.send_multipart([b"A-last", b"body"])
    msgs = []
    while (m := subscriber.recv_multipart()) != [b"A-last", b"body"]:
        msgs.append(m)
    assert all(m == [b"A-probe"] for m in msgs)
    runner.stop(publisher, subscriber)


def test_proxy_forwards_subscriptions_to_xpub_application(own_ctx):
    """Through a forwarder, an upstream XPUB sees the downstream subscription."""
    c = own_ctx()
    upstream = _socket(c, zmq.XPUB)
    upstream.bind("inproc://fwd-up")
    xsub = _socket(c, zmq.XSUB)
    xsub.connect("inproc://fwd-up")
    xpub = _socket(c, zmq.XPUB)
    xpub.bind("inproc://fwd-down")
    runner = ProxyRunner(c, zmq.proxy, xsub, xpub)
    sub = _socket(c, zmq.SUB)
    sub.connect("inproc://fwd-down")
    sub.subscribe(b"topic")
    assert upstream.recv() == b"\x01topic"
    upstream.send(b"topic: hello")
    assert sub.recv() == b"topic: hello"
    sub.unsubscribe(b"topic")
    assert upstream.recv() == b"\x00topic"
    runner.stop(upstream, sub)


def test_proxy_push_pull_streamer(own_ctx, endpoint_for, transport):
    """zmq.device(zmq.STREAMER, PULL, PUSH) passes messages in order."""
    c = own_ctx()
    frontend = _socket(c, zmq.PULL)
    backend = _socket(c, zmq.PUSH)
    fe = bind_any(frontend, endpoint_for(transport))
    be = bind_any(backend, endpoint_for(transport))
    runner = ProxyRunner(c, lambda x, y: zmq.device(zmq.STREAMER, x, y), frontend, backend)
    src = _socket(c, zmq.PUSH)
    src.connect(fe)
    dst = _socket(c, zmq.PULL)
    dst.connect(be)
    for i in range(200):
        src.send_multipart([b"%d" % i, b"x" * (i % 7)])
    assert [dst.recv_multipart()[0] for _ in range(200)] == [b"%d" % i for i in range(200)]
    assert drain(dst) == []
    runner.stop(src, dst)


def test_proxy_steerable_terminate(own_ctx):
    """test_proxy_steerable: TERMINATE on the control socket makes the proxy return."""
    c = own_ctx()
    frontend = _socket(c, zmq.PULL)
    backend = _socket(c, zmq.PUSH)
    control = _socket(c, zmq.PAIR)
    frontend.bind("inproc://st-front")
    backend.bind("inproc://st-back")
    control.bind("inproc://st-ctl")
    commander = _socket(c, zmq.PAIR)
    commander.connect("inproc://st-ctl")
    runner = ProxyRunner(c, zmq.proxy_steerable, frontend, backend, None, control)
    src = _socket(c, zmq.PUSH)
    src.connect("inproc://st-front")
    dst = _socket(c, zmq.PULL)
    dst.connect("inproc://st-back")
    src.send(b"through")
    assert dst.recv() == b"through"
    commander.send(b"TERMINATE")
    runner.thread.join(SLACK_S)
    assert not runner.thread.is_alive()
    assert runner.outcome == ["returned"]
    for s in (commander, src, dst):
        s.close(linger=0)
    c.term()
