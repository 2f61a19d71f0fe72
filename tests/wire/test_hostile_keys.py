"""CURVE keys of low order from a hostile peer, over TCP (issue 12).

A Curve25519 public key of small order (all zero bytes, for one) makes
libsodium refuse the key agreement. The short-term key in HELLO is the
first such key a server meets; pynacl raised its RuntimeError out of
CurveServer, through the I/O loop, which logged a traceback per connection.

Now the connection fails like any HELLO that does not open: libzmq's event
(HANDSHAKE_FAILED_PROTOCOL with ZMTP_CRYPTOGRAPHIC), checked against libzmq
itself on the same bytes; nothing above DEBUG in the log, no traceback, and
the server goes on serving good clients.
"""

from __future__ import annotations

import logging
import struct
import time
from typing import Any

import pytest

pytest.importorskip("nacl")

import zmq as libzmq
from nacl.bindings import crypto_box, crypto_box_keypair

import purezmq
from purezmq.utils import z85

from .zmtp_raw import RawPeer, command, greeting

ZMTP_CRYPTOGRAPHIC = 0x11000001
LOW_ORDER = [bytes(32), b"\x01" + bytes(31)]


def _hello(server_public: bytes, cn_public: bytes) -> bytes:
    """A HELLO whose box is good but whose C' is `cn_public`."""
    _, cn_secret = crypto_box_keypair()
    nonce = struct.pack(">Q", 1)
    box = crypto_box(bytes(64), b"CurveZMQHELLO---" + nonce, server_public, cn_secret)
    return command(b"HELLO", b"\x01\x00" + bytes(72) + cn_public + nonce + box)


def _events(mon: Any, until: int, timeout: float = 5.0) -> list[tuple[int, int]]:
    """(event, value) pairs read from a monitor socket of either library."""
    seen: list[tuple[int, int]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not mon.poll(100):
            continue
        frames = mon.recv_multipart()
        event, value = struct.unpack("=HI", frames[0][:6])
        seen.append((event, value))
        if event == until:
            break
    return seen


@pytest.mark.parametrize("impl", ["purezmq", "libzmq"])
@pytest.mark.parametrize("weak", LOW_ORDER, ids=["zero", "one"])
def test_low_order_hello_key_is_a_handshake_failure(
    impl: str, weak: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    mod: Any = purezmq if impl == "purezmq" else libzmq
    ctx = mod.Context()
    public, secret = mod.curve_keypair()
    server = ctx.socket(mod.PULL)
    server.linger = 0
    server.curve_server = True
    server.curve_secretkey = secret
    server.bind("tcp://127.0.0.1:*")
    port = int(server.last_endpoint.decode().rsplit(":", 1)[1])
    mon = server.get_monitor_socket()
    peers: list[RawPeer] = []
    try:
        with caplog.at_level(logging.DEBUG, logger="purezmq"):
            for _ in range(3):
                peer = RawPeer.connect(port)
                peers.append(peer)
                peer.send(greeting(mechanism=b"CURVE"))
                assert peer.read_greeting().mechanism.rstrip(b"\0") == b"CURVE"
                peer.send(_hello(z85.decode(public), weak))
                peer.wait_closed()  # dropped, with no WELCOME
                seen = _events(mon, int(mod.EVENT_HANDSHAKE_FAILED_PROTOCOL))
                assert (int(mod.EVENT_HANDSHAKE_FAILED_PROTOCOL), ZMTP_CRYPTOGRAPHIC) in seen, seen
            # A good client is still served.
            client = ctx.socket(mod.PUSH)
            client.linger = 0
            cpub, csec = mod.curve_keypair()
            client.curve_serverkey = public
            client.curve_publickey = cpub
            client.curve_secretkey = csec
            client.connect(f"tcp://127.0.0.1:{port}")
            client.send(b"still serving")
            server.rcvtimeo = 5000
            assert server.recv() == b"still serving"
            client.close()
        loud = [r for r in caplog.records if r.levelno > logging.DEBUG or r.exc_info]
        assert not loud, [(r.levelname, r.getMessage()) for r in loud]
    finally:
        for p in peers:
            p.close()
        mon.close()
        server.close()
        ctx.term()
