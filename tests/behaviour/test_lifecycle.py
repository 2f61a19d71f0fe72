"""Close, LINGER, Context.term/destroy, context managers, leaks and fork,
modelled on libzmq's tests/test_ctx_destroy.cpp, test_fork.cpp and the
LINGER rules of zmq_setsockopt(3)."""

from __future__ import annotations

import gc
import os
import threading
import time

import pytest

import purezmq as zmq

from .conftest import Events, bind_any, inproc_name, wait_until

NETWORK = pytest.mark.parametrize("transport", ["tcp", "ipc"])
SLACK_S = 5.0


@pytest.fixture
def own_ctx():
    """A second Context the test terminates itself (destroyed if it does not)."""
    contexts = []

    def make() -> zmq.Context:
        c = zmq.Context()
        contexts.append(c)
        return c

    yield make
    stuck = []
    for c in contexts:
        if not c.closed:
            # In a thread: a purezmq bug must fail the test, not hang the suite.
            t = threading.Thread(target=c.destroy, kwargs={"linger": 0}, daemon=True)
            t.start()
            t.join(10)
            if t.is_alive():
                stuck.append(c)
    if stuck:
        pytest.fail(f"Context.destroy(linger=0) hung for {stuck}")


def _term_in_thread(c: zmq.Context) -> threading.Thread:
    t = threading.Thread(target=c.term, name="test-term", daemon=True)
    t.start()
    return t


# ------------------------------------------------------------ LINGER
@NETWORK
def test_linger_zero_drops_queued_messages(make, own_ctx, late_endpoint):
    c = own_ctx()
    push = c.socket(zmq.PUSH)
    push.linger = 0
    push.connect(late_endpoint)
    push.send(b"must be dropped")  # queued: the peer does not exist yet
    t0 = time.monotonic()
    push.close()
    c.term()
    assert time.monotonic() - t0 < SLACK_S
    pull = make(zmq.PULL)
    pull.bind(late_endpoint)
    assert pull.poll(300) == 0


@NETWORK
def test_linger_delivers_to_peer_that_comes_within_linger(make, own_ctx, late_endpoint):
    c = own_ctx()
    push = c.socket(zmq.PUSH)
    push.linger = 10_000
    push.connect(late_endpoint)
    push.send(b"m1")
    push.send(b"m2")
    push.close()
    term = _term_in_thread(c)
    pull = make(zmq.PULL)
    pull.bind(late_endpoint)
    assert pull.recv() == b"m1"
    assert pull.recv() == b"m2"
    term.join(SLACK_S)
    assert not term.is_alive(), "term() did not return once the queue was delivered"


@NETWORK
def test_linger_term_returns_after_linger_without_peer(own_ctx, late_endpoint):
    linger_ms = 300
    c = own_ctx()
    push = c.socket(zmq.PUSH)
    push.linger = linger_ms
    push.connect(late_endpoint)
    push.send(b"nobody will take this")
    t0 = time.monotonic()
    push.close()
    term = _term_in_thread(c)
    term.join(linger_ms / 1000 + SLACK_S)
    elapsed = time.monotonic() - t0
    assert not term.is_alive(), "term() outlived LINGER by far"
    assert elapsed >= 0.2, "term() did not wait for LINGER at all"


@NETWORK
def test_linger_infinite_waits_for_delivery(make, own_ctx, late_endpoint):
    c = own_ctx()
    push = c.socket(zmq.PUSH)
    assert push.linger == -1  # the default
    push.connect(late_endpoint)
    push.send(b"eventually")
    push.close()
    term = _term_in_thread(c)
    term.join(0.3)
    assert term.is_alive(), "term() returned with a message still undelivered (LINGER -1)"
    pull = make(zmq.PULL)
    pull.bind(late_endpoint)
    assert pull.recv() == b"eventually"
    term.join(SLACK_S)
    assert not term.is_alive()


@NETWORK
@pytest.mark.parametrize("kind", ["SUB", "XSUB"])
def test_subscriber_whose_publisher_left_does_not_hold_term(make, own_ctx, late_endpoint, kind):
    """SUB and XSUB default to LINGER 0, as in libzmq: their queue to a
    publisher is subscriptions, sent again on every connection. Here the
    publisher has gone, the subscriber learnt it (its subscription queued
    again for the next connection, and an XSUB queued a message of its own)
    and then closes: term() returns instead of reconnecting for ever (with
    LINGER -1 it would wait, in libzmq too - the CLI's `sub` hung so)."""
    c = own_ctx()
    sub = c.socket(getattr(zmq, kind))
    assert sub.linger == 0  # the type's default
    events = Events(sub, zmq.EVENT_DISCONNECTED)
    sub.connect(late_endpoint)
    pub = make(zmq.XPUB)
    pub.bind(late_endpoint)
    if kind == "SUB":
        sub.subscribe(b"w")
    else:
        sub.send(b"\x01w")
    assert pub.recv() == b"\x01w"
    pub.close()
    events.wait_for(zmq.EVENT_DISCONNECTED)
    assert sub.poll(100) == 0  # the socket handles the reconnection (queues "w" again)
    if kind == "XSUB":
        sub.send(b"for a publisher that never returns")
    events.mon.close()
    sub.close()
    term = _term_in_thread(c)
    term.join(SLACK_S)
    assert not term.is_alive(), "term() waits for a publisher that has gone"


def test_close_linger_argument_overrides_option(own_ctx, ipc_dir):
    c = own_ctx()
    push = c.socket(zmq.PUSH)
    push.linger = -1
    push.connect(f"ipc://{ipc_dir}/nobody")
    push.send(b"x")
    push.close(linger=0)
    term = _term_in_thread(c)
    term.join(SLACK_S)
    assert not term.is_alive()


def test_inproc_messages_already_sent_survive_close(make):
    """inproc has no session to linger: what was sent is in the peer's queue."""
    pull = make(zmq.PULL)
    pull.bind("inproc://survive")
    push = make(zmq.PUSH)
    push.connect("inproc://survive")
    push.send(b"sent before close")
    push.close()
    assert pull.recv() == b"sent before close"


# ------------------------------------------------------------ term / destroy
def test_ctx_term_wakes_blocked_recv(own_ctx):
    """test_ctx_destroy test_ctx_shutdown: a recv blocked in another thread
    raises ContextTerminated; the thread closes its socket and term returns."""
    c = own_ctx()
    errors: list[BaseException] = []
    ready = threading.Event()

    def worker() -> None:
        s = c.socket(zmq.PULL)
        s.bind("inproc://blocked")
        ready.set()
        try:
            s.recv()
        except zmq.ContextTerminated as e:
            errors.append(e)
        finally:
            s.close(linger=0)

    t = threading.Thread(target=worker, daemon=True)
    t.start()
    assert ready.wait(SLACK_S)
    term = _term_in_thread(c)
    t.join(SLACK_S)
    term.join(SLACK_S)
    assert not t.is_alive()
    assert not term.is_alive()
    assert len(errors) == 1
    assert isinstance(errors[0], zmq.ZMQError)
    assert errors[0].errno == zmq.ETERM
    assert c.closed


@pytest.mark.parametrize("blocked_in", ["send", "poll", "recv_multipart"])
def test_ctx_term_wakes_other_blocking_calls(own_ctx, blocked_in):
    c = own_ctx()
    errors: list[BaseException] = []
    ready = threading.Event()

    def worker() -> None:
        kind = zmq.PUSH if blocked_in == "send" else zmq.PULL
        s = c.socket(kind)
        s.bind(inproc_name())
        ready.set()
        try:
            if blocked_in == "send":
                s.send(b"no peer")
            elif blocked_in == "poll":
                _poll_forever(s)
            else:
                s.recv_multipart()
        except zmq.ContextTerminated as e:
            errors.append(e)
        finally:
            s.close(linger=0)

    t = threading.Thread(target=worker, daemon=True)
    t.start()
    assert ready.wait(SLACK_S)
    term = _term_in_thread(c)
    t.join(SLACK_S)
    term.join(SLACK_S)
    assert not t.is_alive() and not term.is_alive()
    assert [type(e) for e in errors] == [zmq.ContextTerminated]


def _poll_forever(s):
    p = zmq.Poller()
    p.register(s, zmq.POLLIN)
    return p.poll()


def test_ctx_term_waits_for_open_sockets(own_ctx):
    c = own_ctx()
    s = c.socket(zmq.PAIR)
    s.linger = 0
    term = _term_in_thread(c)
    term.join(0.2)
    assert term.is_alive(), "term() must wait until every socket is closed"
    # Operations on the open socket now fail with ETERM.
    with pytest.raises(zmq.ContextTerminated):
        s.recv()
    s.close()
    term.join(SLACK_S)
    assert not term.is_alive()


def test_ctx_destroy_closes_sockets(own_ctx):
    c = own_ctx()
    socks = [c.socket(t) for t in (zmq.PUSH, zmq.PULL, zmq.PUB, zmq.SUB, zmq.ROUTER)]
    socks[0].connect("inproc://destroy")
    socks[1].bind("tcp://127.0.0.1:*")
    c.destroy(linger=0)
    assert c.closed
    assert all(s.closed for s in socks)
    with pytest.raises(zmq.ZMQError) as e:
        c.socket(zmq.PUSH)
    # pyzmq's Context.socket on a closed context raises ENOTSUP.
    assert e.value.errno == zmq.ENOTSUP


def test_ctx_term_and_close_are_idempotent(own_ctx):
    c = own_ctx()
    s = c.socket(zmq.PUSH)
    s.close()
    s.close()
    assert s.closed
    c.term()
    c.term()
    c.destroy()
    assert c.closed


def test_context_managers(own_ctx):
    with zmq.Context() as c:
        with c.socket(zmq.PUSH) as push, c.socket(zmq.PULL) as pull:
            push.linger = pull.linger = 0
            pull.bind("inproc://cm")
            push.connect("inproc://cm")
            push.send(b"in with")
            assert pull.recv() == b"in with"
        assert push.closed and pull.closed
        assert not c.closed
    assert c.closed


def test_context_manager_destroys_open_sockets():
    with zmq.Context() as c:
        s = c.socket(zmq.PUSH)
        s.linger = 0
    assert c.closed
    assert s.closed


def test_bind_context_manager_unbinds(make, endpoint_for, transport):
    """`with sock.bind(url):` unbinds on exit (pyzmq's SocketContext)."""
    pull = make(zmq.PULL)
    url = endpoint_for(transport)
    with pull.bind(url) as s:
        assert s is pull
        bound = pull.last_endpoint.decode()
    # Unbound: the same endpoint can be bound again (libzmq unbinds asynchronously).
    other = make(zmq.PULL)

    def rebound():
        try:
            other.bind(bound)
        except zmq.ZMQError as e:
            assert e.errno == zmq.EADDRINUSE
            return False
        return True

    wait_until(rebound)


def test_connect_context_manager_disconnects(make):
    pull = make(zmq.PULL)
    pull.bind("inproc://cm-connect")
    push = make(zmq.PUSH)
    with push.connect("inproc://cm-connect"):
        push.send(b"while connected")
        assert pull.recv() == b"while connected"
    wait_until(lambda: push.poll(0, zmq.POLLOUT) == 0)


# ------------------------------------------------------------ closed sockets
@pytest.mark.parametrize(
    "op",
    [
        lambda s: s.send(b"x"),
        lambda s: s.send_multipart([b"x"]),
        lambda s: s.recv(),
        lambda s: s.recv_multipart(),
        lambda s: s.bind("inproc://closed"),
        lambda s: s.connect("inproc://closed"),
        lambda s: s.unbind("inproc://closed"),
        lambda s: s.disconnect("inproc://closed"),
        lambda s: s.setsockopt(zmq.LINGER, 0),
        lambda s: s.getsockopt(zmq.LINGER),
        lambda s: s.linger,
        lambda s: s.fileno(),
        lambda s: s.get(zmq.EVENTS),
    ],
    ids=[
        "send",
        "send_multipart",
        "recv",
        "recv_multipart",
        "bind",
        "connect",
        "unbind",
        "disconnect",
        "setsockopt",
        "getsockopt",
        "attribute",
        "fileno",
        "events",
    ],
)
def test_ops_on_closed_socket_raise_enotsock(ctx, op):
    s = ctx.socket(zmq.PAIR)
    s.close()
    with pytest.raises(zmq.ZMQError) as e:
        op(s)
    assert e.value.errno == zmq.ENOTSOCK


# ------------------------------------------------------------ threads and descriptors
def _purezmq_threads():
    return [t for t in threading.enumerate() if t.name.startswith("purezmq")]


def _open_fds():
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_no_thread_or_fd_left_after_busy_scenario(ipc_dir):
    gc.collect()
    threads_before = set(_purezmq_threads())
    fds_before = _open_fds()

    c = zmq.Context()
    pairs = []
    for i in range(8):
        for url in ("tcp://127.0.0.1:*", f"ipc://{ipc_dir}/leak{i}", f"inproc://leak{i}"):
            rep = c.socket(zmq.REP)
            req = c.socket(zmq.REQ)
            for s in (rep, req):
                s.linger = 0
                s.rcvtimeo = 5000
            rep.bind(url)
            req.connect(rep.last_endpoint.decode())
            pairs.append((req, rep))
    pub = c.socket(zmq.PUB)
    pub.linger = 0
    pub.bind("tcp://127.0.0.1:*")
    subs = []
    for _ in range(4):
        sub = c.socket(zmq.SUB)
        sub.linger = 0
        sub.subscribe(b"")
        sub.connect(pub.last_endpoint.decode())
        subs.append(sub)
    for _ in range(3):
        for req, rep in pairs:
            req.send(b"ping")
            assert rep.recv() == b"ping"
            rep.send(b"pong")
            assert req.recv() == b"pong"
    for _ in range(100):
        pub.send(b"x")
    assert len(_purezmq_threads()) > len(threads_before), "expected an I/O thread while running"
    # Close half the connecting sockets first, and let the peers notice.
    for req, _ in pairs[::2]:
        req.close()
    c.destroy(linger=0)

    wait_until(lambda: set(_purezmq_threads()) <= threads_before)
    gc.collect()
    wait_until(lambda: _open_fds() <= fds_before, timeout=5)
    assert not (_open_fds() - fds_before)


def test_no_io_thread_after_term(own_ctx):
    before = set(_purezmq_threads())
    c = own_ctx()
    s = c.socket(zmq.PULL)
    s.linger = 0
    s.bind("tcp://127.0.0.1:*")
    c.destroy()
    assert set(_purezmq_threads()) <= before


# ------------------------------------------------------------ fork
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_child_uses_new_context(make, ctx):
    """test_fork: a child process can make a new Context and use it; the parent's
    Context.instance() is not the child's."""
    parent_instance = zmq.Context.instance()
    # The parent has live sockets and an I/O thread at fork time.
    pull = make(zmq.PULL)
    ep = bind_any(pull, "tcp://127.0.0.1:*")
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 99
        try:
            code = _child(ep, parent_instance)
        except BaseException:
            code = 98
        finally:
            os._exit(code)
    try:
        assert pull.recv() == b"from child"
        deadline = time.monotonic() + 20
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail("the forked child hung")
            time.sleep(0.01)
        assert os.WIFEXITED(status)
        assert os.WEXITSTATUS(status) == 0, f"child failed with code {os.WEXITSTATUS(status)}"
    finally:
        parent_instance.destroy(linger=0)


def _child(ep: str, parent_instance: zmq.Context) -> int:
    inst = zmq.Context.instance()
    if inst is parent_instance:
        return 10
    c = zmq.Context()
    push = c.socket(zmq.PUSH)
    push.linger = 5000
    push.connect(ep)
    push.send(b"from child")
    # An inproc round trip in the child, too.
    a, b = c.socket(zmq.PAIR), c.socket(zmq.PAIR)
    a.bind("inproc://child")
    b.connect("inproc://child")
    b.send(b"ping")
    a.rcvtimeo = 5000
    if a.recv() != b"ping":
        return 11
    for s in (push, a, b):
        s.close()
    c.term()
    inst.term()
    return 0


_EXIT_UNCLOSED = """
import purezmq as zmq
ctx = zmq.Context()
server = ctx.socket(zmq.ROUTER)
server.bind("tcp://127.0.0.1:*")
ep = server.getsockopt(zmq.LAST_ENDPOINT).decode()
for _ in range(200):
    c = ctx.socket(zmq.DEALER)
    c.connect(ep)
    c.send(b"x")
    rid, _ = server.recv_multipart()
    c.close(linger=0)
print("done", flush=True)
"""


def test_process_exits_with_sockets_left_open():
    """A program may end without closing its sockets or terminating its context
    (pyzmq's do not hang then). The I/O thread is a daemon: at interpreter
    shutdown it can be frozen holding a socket's lock, and a socket's __del__
    that closed it then hung the exit (1 run in 4 before the fix), so the
    script runs several times."""
    import subprocess
    import sys

    for _ in range(6):
        proc = subprocess.run(
            [sys.executable, "-W", "ignore", "-c", _EXIT_UNCLOSED],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "done"


def test_fd_is_reset_by_events_after_a_term_wake_up(own_ctx):
    """term() wakes every socket through its FD; reading EVENTS (ETERM then)
    must reset the FD, as in libzmq - an event loop watching it would spin
    otherwise."""
    import select

    c = own_ctx()
    s = c.socket(zmq.PULL)
    fd = s.get(zmq.FD)
    t = threading.Thread(target=c.term)
    t.start()
    try:
        r, _, _ = select.select([fd], [], [], SLACK_S)
        assert r == [fd], "term() did not signal the FD"
        with pytest.raises(zmq.ContextTerminated):
            s.get(zmq.EVENTS)
        r, _, _ = select.select([fd], [], [], 0.05)
        assert r == [], "the FD stayed readable after EVENTS was read"
    finally:
        s.close()
        t.join(SLACK_S)
    assert not t.is_alive()
