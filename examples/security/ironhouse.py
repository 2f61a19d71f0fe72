"""Ironhouse: CURVE with mutual authentication (the ZeroMQ guide, ch. 5).

    python examples/security/ironhouse.py

Both sides prove who they are: the client knows the server's public key,
and the server accepts only clients whose public certificates sit in its
directory of trusted keys (``public_keys/``). Everything is encrypted, with
perfect forward secrecy (per-connection short-term keys). The User-Id the
server's messages carry is the client's key (override
`Authenticator.curve_user_id` to map keys to names).

Needs PyNaCl: ``pip install 'purezmq[curve]'``.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile

import purezmq as zmq
import purezmq.auth
from purezmq.auth.thread import ThreadAuthenticator


def make_certificates(base: str) -> tuple[str, str]:
    """Certificates for a server and a client: public ones in public_keys/,
    secret ones in private_keys/ (the layout of the guide's examples)."""
    keys, public, private = (os.path.join(base, d) for d in ("certs", "public", "private"))
    for d in (keys, public, private):
        os.mkdir(d)
    for name in ("server", "client"):
        public_file, secret_file = purezmq.auth.create_certificates(keys, name)
        shutil.move(public_file, public)
        shutil.move(secret_file, private)
    return public, private


def main() -> None:
    public_dir, private_dir = make_certificates(tempfile.mkdtemp(prefix="ironhouse-"))
    load = purezmq.auth.load_certificate
    server_public, server_secret = load(os.path.join(private_dir, "server.key_secret"))
    client_public, client_secret = load(os.path.join(private_dir, "client.key_secret"))

    ctx = zmq.Context()
    auth = ThreadAuthenticator(ctx)
    auth.start()
    auth.allow("127.0.0.1")
    # Only clients whose public certificate is in public_dir get in.
    auth.configure_curve(domain="*", location=public_dir)

    server = ctx.socket(zmq.PULL)
    server.curve_secretkey = server_secret
    server.curve_publickey = server_public
    server.curve_server = True
    server.bind("tcp://127.0.0.1:*")

    client = ctx.socket(zmq.PUSH)
    client.curve_secretkey = client_secret
    client.curve_publickey = client_public
    client.curve_serverkey = server_public
    client.connect(server.last_endpoint)

    client.send(b"Hello")
    server.rcvtimeo = 5000
    msg = server.recv(copy=False)
    assert msg.bytes == b"Hello"
    assert msg.get("User-Id") == client_public.decode()
    print(f"Ironhouse test OK (message from {msg.get('User-Id')})")

    # A stranger with a key the server does not know is turned away.
    stranger = ctx.socket(zmq.PUSH)
    stranger.curve_publickey, stranger.curve_secretkey = zmq.curve_keypair()
    stranger.curve_serverkey = server_public
    stranger.connect(server.last_endpoint)
    stranger.send(b"let me in", zmq.NOBLOCK)
    server.rcvtimeo = 500
    try:
        server.recv()
    except zmq.Again:
        print("Ironhouse turned away an unknown key, as it should")
    else:
        raise AssertionError("an unknown client got through")
    auth.stop()
    ctx.destroy(linger=0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="[%(levelname)s] %(message)s")
    main()
