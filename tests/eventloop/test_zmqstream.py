"""purezmq.eventloop.zmqstream.ZMQStream: echo over every transport, receive
with and without copying, flush, send callbacks and their statuses, close
and its callback, stopping, reentrant callbacks, the order of callbacks, and
a terminated context - on the standard loop and uvloop."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import warnings
from typing import Any

import pytest

import purezmq as zmq
import purezmq.asyncio as zaio

from .conftest import Run, wait_for

tornado = pytest.importorskip("tornado")
from purezmq.eventloop.zmqstream import ZMQStream  # noqa: E402


def _endpoint(transport: str, tmp: str) -> str:
    if transport == "tcp":
        return "tcp://127.0.0.1:*"
    if transport == "ipc":
        return f"ipc://{tmp}/s{random.getrandbits(32)}"
    return f"inproc://stream-{random.getrandbits(48)}"


def _bound(ctx: zmq.Context, kind: int, transport: str, tmp: str) -> tuple[zmq.Socket, str]:
    s = ctx.socket(kind)
    s.linger = 0
    s.bind(_endpoint(transport, tmp))
    return s, s.get(zmq.LAST_ENDPOINT).decode()


def _collector(n: int) -> tuple[list[Any], asyncio.Future[None], Any]:
    """A receive callback that collects messages; the future is done after `n`."""
    got: list[Any] = []
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def callback(msg: Any) -> None:
        got.append(msg)
        if len(got) >= n and not done.done():
            done.set_result(None)

    return got, done, callback


async def _turns(n: int = 20) -> None:
    """Let the loop run `n` iterations (not a wait for time: a turn each)."""
    for _ in range(n):
        await asyncio.sleep(0)


# --------------------------------------------------------------- echo
@pytest.mark.parametrize("transport", ["tcp", "ipc", "inproc"])
def test_echo(run: Run, ctx: zmq.Context, transport: str, ipc_dir: str) -> None:
    async def main(io_loop: Any) -> None:
        rsock, ep = _bound(ctx, zmq.ROUTER, transport, ipc_dir)
        server = ZMQStream(rsock)
        assert server.io_loop is io_loop
        server.on_recv_stream(lambda stream, msg: stream.send_multipart(msg))
        dsock = ctx.socket(zmq.DEALER)
        dsock.linger = 0
        client = ZMQStream(dsock)
        client.connect(ep)
        got, done, callback = _collector(200)
        client.on_recv(callback)
        for i in range(200):
            client.send_multipart([b"req", b"%d" % i])
        await wait_for(done)
        assert got == [[b"req", b"%d" % i] for i in range(200)]
        client.close()
        server.close()
        assert dsock.closed and rsock.closed

    run(main)


def test_echo_with_blocking_peer_thread(run: Run, ctx: zmq.Context) -> None:
    """A REP stream answers a REQ socket used blockingly from another thread."""

    async def main(io_loop: Any) -> None:
        rsock, ep = _bound(ctx, zmq.REP, "tcp", "")
        server = ZMQStream(rsock)
        server.on_recv(lambda msg: server.send_multipart([b"re:" + msg[0]]))
        replies: list[bytes] = []

        def client() -> None:
            req = ctx.socket(zmq.REQ)
            req.linger = 0
            req.rcvtimeo = 5000
            req.connect(ep)
            for i in range(50):
                req.send(b"%d" % i)
                replies.append(req.recv())
            req.close()

        t = threading.Thread(target=client)
        t.start()
        await wait_for(asyncio.get_running_loop().run_in_executor(None, t.join))
        assert replies == [b"re:%d" % i for i in range(50)]
        server.close()

    run(main)


# --------------------------------------------------------------- receiving
def test_on_recv_copy_false_gives_frames(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        pull, ep = _bound(ctx, zmq.PULL, "tcp", "")
        push = ctx.socket(zmq.PUSH)
        push.linger = 0
        push.connect(ep)
        stream = ZMQStream(pull)
        got, done, callback = _collector(1)
        stream.on_recv(callback, copy=False)
        push.send_multipart([b"a", b"bc"])
        await wait_for(done)
        (msg,) = got
        assert [type(f) for f in msg] == [zmq.Frame, zmq.Frame]
        assert [f.bytes for f in msg] == [b"a", b"bc"]
        assert [f.more for f in msg] == [True, False]
        # copy=True again: bytes
        got2, done2, callback2 = _collector(1)
        stream.on_recv(callback2)
        push.send(b"plain")
        await wait_for(done2)
        assert got2 == [[b"plain"]]
        stream.close()
        push.close()

    run(main)


def test_stop_on_recv_leaves_messages_in_the_socket(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        pull, push = _inproc_pipeline(ctx, "stop")
        stream = ZMQStream(pull)
        got: list[Any] = []
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def callback(msg: Any) -> None:
            got.append(msg)
            stream.stop_on_recv()  # reentrant: from inside the receive callback
            first.set_result(None)

        for i in range(3):
            push.send(b"%d" % i)
        stream.on_recv(callback)
        assert stream.receiving()
        await wait_for(first)
        await _turns()
        assert got == [[b"0"]]
        assert not stream.receiving()
        assert pull.recv(zmq.NOBLOCK) == b"1"
        assert pull.recv(zmq.NOBLOCK) == b"2"
        stream.close()
        push.close(0)

    run(main)


def test_streams_take_turns_and_recv_runs_before_send(run: Run, ctx: zmq.Context) -> None:
    """One message per stream per round: two streams interleave; in a round,
    the receive callback runs before the send callback (pyzmq's order)."""

    async def main(io_loop: Any) -> None:
        order: list[str] = []
        streams = []
        for name in ("a", "b"):
            ep = f"inproc://turns-{name}-{random.getrandbits(32)}"
            pull = ctx.socket(zmq.PULL)
            pull.bind(ep)
            push = ctx.socket(zmq.PUSH)
            push.connect(ep)
            for i in range(3):
                push.send(b"%d" % i)
            streams.append((name, ZMQStream(pull), push))
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def make(name: str) -> Any:
            def callback(msg: list[bytes]) -> None:
                order.append(name + msg[0].decode())
                if len(order) == 6:
                    done.set_result(None)

            return callback

        for name, stream, _ in streams:
            stream.on_recv(make(name))
        await wait_for(done)
        assert order == ["a0", "b0", "a1", "b1", "a2", "b2"]

        # A DEALER stream with a message waiting and one queued to send.
        ep = f"inproc://order-{random.getrandbits(32)}"
        router = ctx.socket(zmq.ROUTER)
        router.bind(ep)
        dealer = ctx.socket(zmq.DEALER)
        dealer.connect(ep)
        dealer.send(b"hello")
        router.rcvtimeo = 5000
        rid, _ = router.recv_multipart()
        router.send_multipart([rid, b"in"])
        stream = ZMQStream(dealer)
        events: list[str] = []
        both: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def note(what: str) -> None:
            events.append(what)
            if len(events) == 2:
                both.set_result(None)

        stream.send(b"out", callback=lambda msg, status: note("sent"))
        stream.on_recv(lambda msg: note("received"))
        await wait_for(both)
        assert events == ["received", "sent"]
        assert router.recv_multipart()[1:] == [b"out"]
        for _, s, push in streams:
            s.close()
            push.close(0)
        stream.close()
        router.close(0)

    run(main)


# --------------------------------------------------------------- sending
def test_send_callbacks_and_helpers(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        pull, ep = _bound(ctx, zmq.PULL, "tcp", "")
        psock = ctx.socket(zmq.PUSH)
        psock.linger = 0
        push = ZMQStream(psock)
        push.connect(ep)
        sent: list[tuple[str, Any, Any]] = []
        all_sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_send(msg: Any, status: Any) -> None:
            sent.append(("on_send", list(msg), status))

        def one_off(msg: Any, status: Any) -> None:
            sent.append(("one_off", list(msg), status))

        def on_send_stream(stream: Any, msg: Any, status: Any) -> None:
            assert stream is push
            sent.append(("stream", list(msg), status))
            if len(sent) == 6:
                all_sent.set_result(None)

        push.on_send(on_send)
        push.send(b"one")
        assert push.sending()  # nothing is sent before the loop runs
        assert sent == []
        push.send_multipart([b"two", b"parts"], callback=one_off)  # replaces on_send
        push.send_string("thrée")
        while push.sending():  # a turn at a time until the queue is empty
            await asyncio.sleep(0)
        # The callback in place when a message goes out is the one called.
        assert [s[0] for s in sent] == ["one_off"] * 3
        push.on_send_stream(on_send_stream)
        push.send_json({"n": 4})
        push.send_pyobj({"five": 5})
        push.send(b"six", copy=False, track=True)
        await wait_for(all_sent)
        assert not push.sending()
        assert [s[0] for s in sent] == ["one_off"] * 3 + ["stream"] * 3
        assert [s[1] for s in sent[:4]] == [
            [b"one"],
            [b"two", b"parts"],
            ["thrée".encode()],
            [b'{"n": 4}'],
        ]
        assert [s[2] for s in sent[:5]] == [None] * 5
        tracker = sent[5][2]
        assert isinstance(tracker, zmq.MessageTracker)
        pull.rcvtimeo = 5000
        got = [pull.recv_multipart() for _ in range(6)]
        assert got[:4] == [[b"one"], [b"two", b"parts"], ["thrée".encode()], [b'{"n": 4}']]
        import pickle

        assert pickle.loads(got[4][0]) == {"five": 5}
        assert got[5] == [b"six"]
        with pytest.raises(TypeError):
            push.send_string(b"not str")  # type: ignore[arg-type]
        push.close()

    run(main)


def test_send_error_is_the_status(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        # With ROUTER_MANDATORY, a ROUTER is writable once it has a peer (as in
        # libzmq); sending to an unknown routing id then fails.
        ep = f"inproc://err-{random.getrandbits(32)}"
        router = ctx.socket(zmq.ROUTER)
        router.router_mandatory = 1
        router.rcvtimeo = 5000
        router.bind(ep)
        dealer = ctx.socket(zmq.DEALER)
        dealer.connect(ep)
        dealer.send(b"hello")
        router.recv_multipart()
        stream = ZMQStream(router)
        status: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        stream.send_multipart([b"nobody", b"x"], callback=lambda msg, st: status.set_result(st))
        err = await wait_for(status)
        assert isinstance(err, zmq.ZMQError)
        assert err.errno == zmq.EHOSTUNREACH
        stream.close(linger=0)
        dealer.close(0)

    run(main)


def _inproc_pipeline(ctx: zmq.Context, name: str) -> tuple[zmq.Socket, zmq.Socket]:
    """A bound PULL and a PUSH connected to it over a fresh inproc endpoint."""
    ep = f"inproc://{name}-{random.getrandbits(32)}"
    pull = ctx.socket(zmq.PULL)
    pull.bind(ep)
    push = ctx.socket(zmq.PUSH)
    push.connect(ep)
    return pull, push


# --------------------------------------------------------------- flush
def test_flush(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        pull, push = _inproc_pipeline(ctx, "flush")
        stream = ZMQStream(pull)
        got: list[Any] = []
        stream.on_recv(got.append)
        for i in range(5):
            push.send(b"%d" % i)  # inproc: queued at the PULL at once
        # The loop has not run: flush delivers synchronously, in order.
        assert stream.flush(limit=2) == 2
        assert got == [[b"0"], [b"1"]]
        assert stream.flush() == 3
        assert got == [[b"%d" % i] for i in range(5)]
        assert stream.flush() == 0
        # The round scheduled by on_recv finds nothing more (no duplicates).
        await _turns()
        assert len(got) == 5

        # flush(POLLIN) with no receive callback discards.
        stream.stop_on_recv()
        for _ in range(3):
            push.send(b"x")
        assert stream.flush(zmq.POLLIN) == 3
        assert pull.poll(0) == 0
        assert len(got) == 5

        # flush(POLLOUT) sends what is queued, with its callbacks.
        out = ctx.socket(zmq.PUSH)
        ep2 = f"inproc://flush-out-{random.getrandbits(32)}"
        out.bind(ep2)
        sink = ctx.socket(zmq.PULL)
        sink.connect(ep2)
        ostream = ZMQStream(out)
        statuses: list[Any] = []
        for i in range(3):
            ostream.send(b"o%d" % i, callback=lambda msg, st: statuses.append(msg))
        assert ostream.flush(zmq.POLLIN) == 0  # POLLIN only: sends stay queued
        assert ostream.sending()
        assert ostream.flush(zmq.POLLOUT) == 3
        assert statuses == [[b"o0"], [b"o1"], [b"o2"]]
        assert [sink.recv(zmq.NOBLOCK) for _ in range(3)] == [b"o0", b"o1", b"o2"]

        # After a flush, the loop's handlers skip the rest of that iteration,
        # then work normally again: each message is delivered exactly once.
        late: list[Any] = []
        arrived: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_late(msg: Any) -> None:
            late.append(msg)
            if msg == [b"later"]:
                arrived.set_result(None)

        stream.on_recv(on_late)  # schedules a round for the next iteration
        push.send(b"late")
        assert stream.flush() == 1
        push.send(b"later")  # pending while the flushed iteration's round skips
        await wait_for(arrived)
        await _turns()
        assert late == [[b"late"], [b"later"]]

        for s in (stream, ostream):
            s.close()
        with pytest.raises(OSError):
            stream.flush()
        push.close(0)
        sink.close(0)

    run(main)


def test_flush_runs_callbacks_that_close_the_stream(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        pull, push = _inproc_pipeline(ctx, "flush-close")
        for i in range(4):
            push.send(b"%d" % i)
        stream = ZMQStream(pull)
        got: list[Any] = []

        def callback(msg: Any) -> None:
            got.append(msg)
            if len(got) == 2:
                stream.close()

        stream.on_recv(callback)
        assert stream.flush() == 2
        assert got == [[b"0"], [b"1"]]
        assert stream.closed() and stream.socket is None
        await _turns()
        assert len(got) == 2
        push.close(0)

    run(main)


# --------------------------------------------------------------- close
def test_close_and_close_callback(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        sock = ctx.socket(zmq.PULL)
        stream = ZMQStream(sock)
        calls: list[str] = []
        stream.set_close_callback(lambda: calls.append("closed"))
        stream.on_recv(lambda msg: None)
        assert not stream.closed()
        stream.close(linger=0)
        assert calls == ["closed"]
        assert stream.closed() and stream.socket is None and sock.closed
        stream.close()  # again: nothing happens
        assert calls == ["closed"]
        for call in (
            lambda: stream.on_recv(print),
            lambda: stream.on_send(print),
            lambda: stream.send(b"x"),
            lambda: stream.stop_on_recv(),
        ):
            with pytest.raises(OSError):
                call()

        # The socket closed behind the stream's back: closed() notices.
        sock2 = ctx.socket(zmq.PULL)
        stream2 = ZMQStream(sock2)
        calls2: list[str] = []
        stream2.set_close_callback(lambda: calls2.append("closed"))
        sock2.close()
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            assert stream2.closed()
        assert "after closing socket" in str(records[0].message)
        assert calls2 == ["closed"]

    run(main)


def test_shadow_closed_elsewhere_is_noticed_by_the_loop(
    run: Run, ctx: zmq.Context, caplog: pytest.LogCaptureFixture
) -> None:
    async def main(io_loop: Any) -> None:
        sock = ctx.socket(zmq.PULL)
        stream = ZMQStream(zmq.Socket.shadow(sock))
        closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        stream.set_close_callback(lambda: closed.set_result(None))
        stream.on_recv(print)
        sock.close()  # the stream's FD dies with it: only the loop's round can notice
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await wait_for(closed)
        assert stream.socket is None

    with caplog.at_level(logging.WARNING, logger="tornado.general"):
        run(main)
    assert "attached to closed socket" in caplog.text


def test_ioloop_close_all_fds_closes_the_socket(ctx: zmq.Context) -> None:
    from tornado.ioloop import IOLoop

    loop = IOLoop(make_current=False)
    sock = ctx.socket(zmq.PULL)
    stream = ZMQStream(sock, io_loop=loop)
    assert stream.io_loop is loop
    loop.close(all_fds=True)
    assert sock.closed
    with pytest.warns(UserWarning, match="after closing socket"):
        assert stream.closed()


# --------------------------------------------------------------- callbacks
def test_callable_check_and_passthrough(run: Run, ctx: zmq.Context) -> None:
    async def main(io_loop: Any) -> None:
        sock = ctx.socket(zmq.SUB)
        stream = ZMQStream(sock)
        for bad in (1, "x", zmq):
            with pytest.raises(AssertionError):
                stream.on_recv(bad)  # type: ignore[arg-type]
            with pytest.raises(AssertionError):
                stream.on_send(bad)  # type: ignore[arg-type]
        assert stream.socket is sock
        assert stream.bind == sock.bind and stream.connect == sock.connect
        stream.setsockopt(zmq.LINGER, 7)
        assert stream.getsockopt(zmq.LINGER) == 7 == sock.linger
        stream.setsockopt_string(zmq.SUBSCRIBE, "topic")
        port = stream.bind_to_random_port("tcp://127.0.0.1")
        assert stream.getsockopt_string(zmq.LAST_ENDPOINT).endswith(f":{port}")
        assert not hasattr(stream, "recv")  # the stream receives, not the caller
        stream.close(0)

    run(main)


def test_coroutine_callbacks_and_errors(
    run: Run, ctx: zmq.Context, caplog: pytest.LogCaptureFixture
) -> None:
    async def main(io_loop: Any) -> None:
        pull, push = _inproc_pipeline(ctx, "coro")
        stream = ZMQStream(pull)
        got: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def callback(msg: Any) -> None:
            await asyncio.sleep(0)
            if msg == [b"ok"]:
                got.set_result(msg)
            else:
                failed.get_loop().call_soon(failed.set_result, None)
                raise RuntimeError("boom in a coroutine callback")

        stream.on_recv(callback)
        push.send(b"ok")
        assert await wait_for(got) == [b"ok"]
        push.send(b"fail")
        await wait_for(failed)
        await _turns()
        stream.close()
        push.close(0)

    with caplog.at_level(logging.ERROR, logger="tornado.general"):
        run(main)
    assert "Uncaught exception in ZMQStream callback" in caplog.text
    assert "boom in a coroutine callback" in caplog.text


def test_asyncio_socket_is_shadowed_with_a_warning(run: Run) -> None:
    async def main(io_loop: Any) -> None:
        with zaio.Context() as actx:
            pull = actx.socket(zmq.PULL)
            ep = f"inproc://aio-{random.getrandbits(32)}"
            pull.bind(ep)
            push = actx.socket(zmq.PUSH)
            push.connect(ep)
            with pytest.warns(RuntimeWarning, match="only supports the base zmq.Socket"):
                stream = ZMQStream(pull)
            assert type(stream.socket) is zmq.Socket
            assert stream.socket.underlying == pull.underlying
            got, done, callback = _collector(3)
            stream.on_recv(callback)
            for i in range(3):
                await push.send(b"%d" % i)
            await wait_for(done)
            assert got == [[b"0"], [b"1"], [b"2"]]
            stream.close(0)
            push.close(0)

    run(main)


def test_terminated_context_stops_the_stream_watching(
    run: Run, caplog: pytest.LogCaptureFixture
) -> None:
    """term() while a stream is open: the stream logs pyzmq's warning once and
    stops watching the FD (no busy loop); closing the stream lets term() end."""

    async def main(io_loop: Any) -> None:
        c = zmq.Context()
        stream = ZMQStream(c.socket(zmq.PULL))
        stream.on_recv(lambda msg: None)
        await _turns()
        warned: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        count = 0

        class Spy(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                nonlocal count
                if "after terminating context" in record.getMessage():
                    count += 1
                    if not warned.done():
                        warned.set_result(None)

        spy = Spy()
        logging.getLogger("tornado.general").addHandler(spy)
        try:
            t = threading.Thread(target=c.term)
            t.start()
            await wait_for(warned)
            await _turns(50)  # a still-readable, still-watched FD would fire each turn
            assert count == 1
            stream.close(linger=0)
            await wait_for(asyncio.get_running_loop().run_in_executor(None, t.join, 5))
            assert not t.is_alive()
        finally:
            logging.getLogger("tornado.general").removeHandler(spy)

    run(main)
