"""Strawhouse: let in only some IP addresses (the ZeroMQ guide, chapter 5).

    python examples/security/strawhouse.py

Still NULL security - nothing is encrypted and peers prove nothing - but a
ZAP handler (here `ThreadAuthenticator`) sees every new connection and
refuses addresses that are not on its allow list. The server opts in by
setting a ZAP domain; without one, NULL sockets never ask ZAP.
"""

from __future__ import annotations

import logging

import purezmq as zmq
from purezmq.auth.thread import ThreadAuthenticator


def main() -> None:
    ctx = zmq.Context()
    auth = ThreadAuthenticator(ctx)
    auth.start()
    auth.allow("127.0.0.1")  # every other address is refused

    server = ctx.socket(zmq.PUSH)
    server.zap_domain = b"global"  # ask ZAP about NULL peers too
    server.bind("tcp://127.0.0.1:*")
    client = ctx.socket(zmq.PULL)
    client.connect(server.last_endpoint)

    server.send(b"Hello")
    client.rcvtimeo = 5000
    assert client.recv() == b"Hello"
    print("Strawhouse test OK")
    auth.stop()
    ctx.destroy(linger=0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="[%(levelname)s] %(message)s")
    main()
