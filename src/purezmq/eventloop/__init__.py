"""Tornado integration (pyzmq's ``zmq.eventloop``).

- `purezmq.eventloop.zmqstream.ZMQStream`: callbacks for a socket's messages
  on a tornado IOLoop (what ipykernel and many tornado servers use);
- `purezmq.eventloop.future`: Context, Socket and Poller whose operations
  return tornado-compatible futures (built on `purezmq.asyncio`);
- `purezmq.eventloop.ioloop`: tornado's IOLoop under pyzmq's old, deprecated
  name (there is nothing to install: tornado 5+ runs on asyncio).

Tornado is an optional dependency. As in pyzmq, importing this package (and
so any module in it) without tornado raises ImportError - here with a message
saying how to get it, because the bare "No module named 'tornado'" does not
tell a purezmq user that the package is optional. ``import purezmq`` never
imports this package.
"""

from __future__ import annotations

try:
    from tornado.ioloop import IOLoop
except ImportError as _e:  # pragma: no cover - tornado is in the test extra
    raise ModuleNotFoundError(
        "purezmq.eventloop (zmq.eventloop) needs tornado: pip install tornado",
        name="tornado",
    ) from _e

__all__ = ["IOLoop"]
