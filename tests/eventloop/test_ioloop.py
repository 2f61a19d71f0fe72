"""purezmq.eventloop.ioloop: tornado's IOLoop under pyzmq's deprecated name."""

from __future__ import annotations

import importlib
import warnings

import pytest

pytest.importorskip("tornado")
import tornado.concurrent
import tornado.gen
import tornado.ioloop


def test_ioloop_is_tornados_and_deprecated() -> None:
    import purezmq.eventloop

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # checked below
        from purezmq.eventloop import ioloop

    assert purezmq.eventloop.IOLoop is tornado.ioloop.IOLoop
    assert ioloop.IOLoop is tornado.ioloop.IOLoop
    assert ioloop.ZMQIOLoop is tornado.ioloop.IOLoop
    assert ioloop.PeriodicCallback is tornado.ioloop.PeriodicCallback  # the star re-export
    with pytest.warns(DeprecationWarning, match="deprecated in pyzmq 17"):
        ioloop.install()
    with pytest.warns(DeprecationWarning, match="deprecated in pyzmq 17"):
        importlib.reload(ioloop)  # the import itself warns too


def test_nothing_needs_installing() -> None:
    """No special loop: a plain tornado IOLoop runs purezmq's ZMQStream."""
    import purezmq as zmq
    from purezmq.eventloop.zmqstream import ZMQStream

    loop = tornado.ioloop.IOLoop(make_current=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecation on this path
        with zmq.Context() as ctx:
            pull = ctx.socket(zmq.PULL)
            ep = "inproc://nothing-to-install"
            pull.bind(ep)
            push = ctx.socket(zmq.PUSH)
            push.connect(ep)
            got: list[list[bytes]] = []

            async def main() -> None:
                stream = ZMQStream(pull)
                done = tornado.concurrent.Future()
                stream.on_recv(lambda msg: (got.append(msg), done.set_result(None)))
                push.send(b"x")
                await tornado.gen.with_timeout(loop.time() + 5, done)
                stream.close(0)

            loop.run_sync(main, timeout=10)
            push.close(0)
    loop.close()
    assert got == [[b"x"]]
