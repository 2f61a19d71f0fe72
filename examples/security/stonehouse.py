"""Stonehouse: CURVE encryption, any client welcome (the ZeroMQ guide, ch. 5).

    python examples/security/stonehouse.py

The client knows the server's public key, so it knows it talks to the real
server, and every byte is encrypted (CURVE, RFC 26). The server checks the
client's address but accepts any client key (`CURVE_ALLOW_ANY`) - like a
web site that serves anyone over TLS. (Without any ZAP handler a CURVE
server also accepts every client key; libzmq does the same.)

Needs PyNaCl: ``pip install 'purezmq[curve]'``.
"""

from __future__ import annotations

import logging
import tempfile

import purezmq as zmq
import purezmq.auth
from purezmq.auth.thread import ThreadAuthenticator


def main() -> None:
    keys_dir = tempfile.mkdtemp(prefix="stonehouse-")
    server_public_file, server_secret_file = purezmq.auth.create_certificates(keys_dir, "server")
    _, client_secret_file = purezmq.auth.create_certificates(keys_dir, "client")
    server_public, server_secret = purezmq.auth.load_certificate(server_secret_file)
    client_public, client_secret = purezmq.auth.load_certificate(client_secret_file)

    ctx = zmq.Context()
    auth = ThreadAuthenticator(ctx)
    auth.start()
    auth.allow("127.0.0.1")
    auth.configure_curve(domain="*", location=purezmq.auth.CURVE_ALLOW_ANY)

    server = ctx.socket(zmq.PUSH)
    server.curve_secretkey = server_secret
    server.curve_publickey = server_public
    server.curve_server = True
    server.bind("tcp://127.0.0.1:*")

    client = ctx.socket(zmq.PULL)
    client.curve_secretkey = client_secret
    client.curve_publickey = client_public
    # The one thing a client must know in advance: the server's public key.
    client.curve_serverkey = purezmq.auth.load_certificate(server_public_file)[0]
    client.connect(server.last_endpoint)

    server.send(b"Hello")
    client.rcvtimeo = 5000
    assert client.recv() == b"Hello"
    print("Stonehouse test OK")
    auth.stop()
    ctx.destroy(linger=0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="[%(levelname)s] %(message)s")
    main()
