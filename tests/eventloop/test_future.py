"""purezmq.eventloop.future: sockets whose operations return tornado-compatible
futures - async def and gen.coroutine, pyzmq's cancellation (CancelledError),
no message lost to a cancelled receive, polling, timeouts, close, and
IOLoop.close(all_fds=True) - on the standard loop and uvloop."""

from __future__ import annotations

import asyncio
import os
import random
from datetime import timedelta
from typing import Any

import pytest

import purezmq as zmq

from .conftest import Run, wait_for

tornado = pytest.importorskip("tornado")
from tornado import gen  # noqa: E402
from tornado.concurrent import Future as TornadoFuture  # noqa: E402
from tornado.ioloop import IOLoop  # noqa: E402

from purezmq.eventloop import future  # noqa: E402


def _pair(
    ctx: future.Context, kinds: tuple[int, int] = (zmq.PUSH, zmq.PULL), transport: str = "tcp"
) -> tuple[future.Socket, future.Socket]:
    a = ctx.socket(kinds[0])
    b = ctx.socket(kinds[1])
    a.linger = b.linger = 0
    if transport == "tcp":
        port = a.bind_to_random_port("tcp://127.0.0.1")
        b.connect(f"tcp://127.0.0.1:{port}")
    else:
        ep = f"inproc://future-{random.getrandbits(48)}"
        a.bind(ep)
        b.connect(ep)
    return a, b


async def _until(cond: Any, turns: int = 10_000) -> None:
    """Give the loop turns until `cond()` holds (each turn is one iteration)."""
    for _ in range(turns):
        if cond():
            return
        await asyncio.sleep(0)
    pytest.fail(f"not true after {turns} loop iterations: {cond}")


@pytest.mark.parametrize("transport", ["tcp", "inproc"])
def test_send_recv_async_def(run: Run, transport: str) -> None:
    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            a, b = _pair(ctx, transport=transport)
            assert isinstance(a, future.Socket)
            f = b.recv_multipart()
            assert isinstance(f, TornadoFuture) and not f.done()
            await a.send_multipart([b"hi", b"there"])
            assert await wait_for(f) == [b"hi", b"there"]
            for i in range(100):
                await a.send(b"%d" % i)
            assert [await b.recv() for _ in range(100)] == [b"%d" % i for i in range(100)]
            await a.send_string("πøøπ")
            assert await b.recv_string() == "πøøπ"
            await a.send_json({"a": 5})
            assert await b.recv_json() == {"a": 5}
            await a.send_pyobj({"b": [1]})
            assert await b.recv_pyobj() == {"b": [1]}
            await a.send(b"frame")
            frame = await b.recv(copy=False)
            assert isinstance(frame, zmq.Frame) and frame.bytes == b"frame"
            buf = bytearray(3)
            await a.send(b"abcdef")
            assert await b.recv_into(buf) == 6 and buf == b"abc"
            a.close()
            b.close()

    run(main)


def test_gen_coroutine_and_tornado_helpers(run: Run) -> None:
    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            req, rep = _pair(ctx, (zmq.REQ, zmq.REP))

            @gen.coroutine
            def server() -> Any:
                for _ in range(3):
                    msg = yield rep.recv()
                    yield rep.send(b"re:" + msg)

            @gen.coroutine
            def client() -> Any:
                replies = []
                for i in range(3):
                    yield req.send(b"%d" % i)
                    reply = yield gen.with_timeout(timedelta(seconds=5), req.recv())
                    replies.append(reply)
                return replies

            srv = server()
            assert await wait_for(client()) == [b"re:0", b"re:1", b"re:2"]
            await wait_for(srv)
            # IOLoop.add_future takes these futures as its own.
            done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            f = rep.recv()
            IOLoop.current().add_future(f, lambda f: done.set_result(f.result()))
            await req.send(b"again")
            assert await wait_for(done) == b"again"
            req.close()
            rep.close()

    run(main)


def test_cancel_is_pyzmqs_cancelled_error_and_loses_nothing(run: Run) -> None:
    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            a, b = _pair(ctx)
            f1 = b.recv()
            f2 = b.recv_multipart()
            assert f1.cancel()
            assert f1.done() and f1.cancelled()
            assert not f1.cancel()  # done: False, as for any future
            with pytest.raises(future.CancelledError):
                await f1
            await a.send_multipart([b"hi", b"there"])
            assert await wait_for(f2) == [b"hi", b"there"]  # f1 took no frame

            # A cancelled decoding receive leaves its message for the next one.
            fj = b.recv_json()
            fj.cancel()
            await a.send_json({"a": 5})
            with pytest.raises(future.CancelledError):
                await fj
            assert await wait_for(b.poll(timeout=5000)) == zmq.POLLIN
            assert await wait_for(b.recv_json()) == {"a": 5}
            a.close()
            b.close()

    run(main)


def test_cancel_after_the_message_arrived_returns_false(run: Run) -> None:
    """Between the socket's receive and the hand-over to the future, cancel()
    hands the message over and returns False: the message is not lost."""

    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            a, b = _pair(ctx, transport="inproc")
            f = b.recv()
            inner = f._inner
            assert inner is not None
            await a.send(b"mine")
            await _until(inner.done)
            assert not f.done()  # the hand-over is a loop iteration away
            assert not f.cancel()
            assert f.done() and not f.cancelled()
            assert f.result() == b"mine"
            a.close()
            b.close()

    run(main)


def test_task_cancelled_after_its_message_gives_it_back(run: Run) -> None:
    """A task cancelled after its receive got the message, before the task ran
    again: the message goes back to the socket for the next receive."""

    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            a, b = _pair(ctx, transport="inproc")
            pending: list[Any] = []

            async def receiver() -> Any:
                f = b.recv_string()
                pending.append(f)
                return await f

            task = asyncio.ensure_future(receiver())
            await _until(lambda: pending)
            await a.send_string("keep me")
            await _until(pending[0].done)
            task.cancel()  # its wake-up is queued, it has not seen the message
            with pytest.raises(asyncio.CancelledError):
                await task
            assert await wait_for(b.recv_string()) == "keep me"
            a.close()
            b.close()

    run(main)


def test_timeouts_noblock_and_close(run: Run) -> None:
    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            a, b = _pair(ctx)
            b.rcvtimeo = 50
            with pytest.raises(zmq.Again):
                await wait_for(b.recv())
            b.rcvtimeo = -1
            lonely = ctx.socket(zmq.PUSH)
            lonely.sndtimeo = 50
            with pytest.raises(zmq.Again):
                await wait_for(lonely.send(b"nobody"))
            with pytest.raises(zmq.Again):
                await lonely.send_multipart([b"x"], flags=zmq.NOBLOCK)
            lonely.close(0)
            pending = b.recv()
            b.close()
            assert pending.cancelled()
            with pytest.raises(future.CancelledError):
                await pending
            a.close()

    run(main)


def test_poll_and_poller(run: Run) -> None:
    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            a, b = _pair(ctx)
            f = b.poll(timeout=0)
            assert f.done() and f.result() == 0
            assert await wait_for(b.poll(timeout=10)) == 0
            f = b.poll(timeout=5000)
            assert not f.done()
            await a.send(b"x")
            assert await wait_for(f) == zmq.POLLIN
            assert b._recv_futures == []  # the poll's inner future was released

            poller = future.Poller()
            poller.register(b, zmq.POLLIN)
            r, w = os.pipe()
            try:
                poller.register(w, zmq.POLLOUT)
                events = dict(await wait_for(poller.poll(1000)))
                assert events == {b: zmq.POLLIN, w: zmq.POLLOUT}
                poller.unregister(w)
                assert await b.recv() == b"x"
                pf = poller.poll()
                assert isinstance(pf, TornadoFuture)
                await a.send(b"y")
                assert dict(await wait_for(pf)) == {b: zmq.POLLIN}
            finally:
                os.close(r)
                os.close(w)
            a.close()
            b.close()

    run(main)


def test_context_instances_and_classes() -> None:
    ctx = zmq.Context.instance()
    fctx = future.Context.instance()
    try:
        assert type(ctx) is zmq.Context
        assert type(fctx) is future.Context
        assert fctx is future.Context.instance()
        s = fctx.socket(zmq.PUSH)
        assert isinstance(s, future.Socket)
        assert repr(s).startswith("<zmq.eventloop.future.Socket(zmq.PUSH)")
        s.close()
        with pytest.warns(DeprecationWarning):
            future.Context(io_loop=object()).term()
    finally:
        fctx.term()
        ctx.term()


def test_ioloop_close_all_fds_closes_future_sockets() -> None:
    loop = IOLoop(make_current=False)
    with future.Context() as ctx:
        s = ctx.socket(zmq.PUB)
        quiet = ctx.socket(zmq.SUB)  # never used on the loop: not the IOLoop's

        async def attach() -> None:
            s._get_loop()

        loop.run_sync(attach)
        loop.close(all_fds=True)
        assert s.closed
        assert not quiet.closed
        quiet.close()


def test_a_stale_registration_does_not_block_the_fd_number(run: Run) -> None:
    """A future Socket closed through a shadow cannot unregister from the
    IOLoop; whoever registers that descriptor number next replaces it."""
    from purezmq.eventloop.zmqstream import ZMQStream

    async def main(io_loop: Any) -> None:
        with future.Context() as ctx:
            existing = zmq.Socket(ctx, zmq.PULL)  # its FD exists already
            s = ctx.socket(zmq.PULL)
            s._get_loop()
            n = s.FD
            assert io_loop.handlers[n][0].fileno() == n
            zmq.Socket.shadow(s).close()  # behind the future Socket's back
            # POSIX gives the lowest free number: the next descriptor is `n`.
            s2 = ctx.socket(zmq.PULL)
            s2._get_loop()
            assert n == s2.FD
            assert io_loop.handlers[n][0] is s2._ioloop_hold[1]
            # The same for a ZMQStream, whose duplicate of the FD takes `n`.
            s2.close()
            stream = ZMQStream(existing)
            assert stream._watched.fd == n
            assert io_loop.handlers[n][0] is stream._watched
            stream.close(0)

    run(main)
