"""Grasslands: no security at all (the ZeroMQ guide, chapter 5).

    python examples/security/grasslands.py

A plain NULL connection: anyone who can reach the port can connect, and
everything travels in clear text. Fine on a trusted, closed network; the
starting point of the four levels that follow. (With ``import zmq`` instead
of purezmq, every example here runs unchanged on pyzmq.)
"""

from __future__ import annotations

import purezmq as zmq


def main() -> None:
    ctx = zmq.Context()
    server = ctx.socket(zmq.PUSH)
    server.bind("tcp://127.0.0.1:*")
    client = ctx.socket(zmq.PULL)
    client.connect(server.last_endpoint)

    server.send(b"Hello")
    client.rcvtimeo = 5000
    assert client.recv() == b"Hello"
    print("Grasslands test OK")
    ctx.destroy(linger=0)


if __name__ == "__main__":
    main()
