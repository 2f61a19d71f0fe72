"""Tornado integration (pyzmq's ``zmq.eventloop``).

As in pyzmq, importing this package needs tornado: without it the import
raises ImportError. ``zmq.eventloop.ioloop`` is tornado's IOLoop (pyzmq 17+
needs no special loop). ``zmqstream`` and ``future`` are not implemented yet.
"""

from tornado.ioloop import IOLoop  # type: ignore[import-not-found, unused-ignore]

__all__ = ["IOLoop"]
