"""Woodhouse: user names and passwords with PLAIN (the ZeroMQ guide, ch. 5).

    python examples/security/woodhouse.py

The client sends a user name and password (PLAIN, RFC 24); the server's ZAP
handler checks them. Nothing is encrypted: the password crosses the network
in clear text, so this only keeps out honest mistakes on a trusted network.
A PLAIN server with no ZAP handler refuses everybody, as libzmq's does.
"""

from __future__ import annotations

import logging

import purezmq as zmq
from purezmq.auth.thread import ThreadAuthenticator


def main() -> None:
    ctx = zmq.Context()
    auth = ThreadAuthenticator(ctx)
    auth.start()
    auth.allow("127.0.0.1")
    auth.configure_plain(domain="*", passwords={"admin": "secret"})

    server = ctx.socket(zmq.PUSH)
    server.plain_server = True
    server.bind("tcp://127.0.0.1:*")

    client = ctx.socket(zmq.PULL)
    client.plain_username = b"admin"
    client.plain_password = b"secret"
    client.connect(server.last_endpoint)

    server.send(b"Hello")
    client.rcvtimeo = 5000
    msg = client.recv(copy=False)
    assert msg.bytes == b"Hello"
    print("Woodhouse test OK")
    auth.stop()
    ctx.destroy(linger=0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="[%(levelname)s] %(message)s")
    main()
