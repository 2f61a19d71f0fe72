"""Subscriptions on the wire by ZMTP version, purezmq next to libzmq.

RFC 37 / libzmq 4.3: to a ZMTP 3.1 peer a SUB/XSUB sends SUBSCRIBE and CANCEL
*commands*; to a ZMTP 3.0 peer, the 0x01/0x00-prefixed *messages*. A PUB/XPUB
accepts both. A raw peer plays the other side; each test runs against libzmq
too, so it pins down the behaviour purezmq must match.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .helpers import bind, module_of, recv_poking
from .zmtp_raw import (
    FLAG_COMMAND,
    RawListener,
    RawPeer,
    encode_frame,
    greeting,
    ready,
    split_command,
)

pytestmark = pytest.mark.interop

IMPLS = ["pz", "lz"]


def _raw_subscriber(peers: Any, pub: Any, minor: int) -> RawPeer:
    """A raw ZMTP 3.`minor` SUB connected to `pub` (bound here), handshake done."""
    port = int(bind(pub, "tcp://127.0.0.1:*").rsplit(":", 1)[1])
    raw = RawPeer.connect("127.0.0.1", port)
    raw.handshake("SUB", minor=minor)
    return raw


def _sync_raw(pub: Any, raw: RawPeer, probe: bytes, timeout: float = 5.0) -> None:
    """Publish `probe` until the raw subscriber receives one, then a marker
    (probe + b"!") and drop everything up to it."""
    deadline = time.monotonic() + timeout
    while not raw.readable(0.01):
        assert time.monotonic() < deadline, "raw subscriber never got a probe"
        pub.send(probe)
    pub.send(probe + b"!")
    while (msg := raw.read_message()) != [probe + b"!"]:
        assert msg == [probe], msg


@pytest.mark.parametrize("pub_impl", IMPLS)
def test_zmtp30_subscriber_to_pub(peers: Any, pub_impl: str) -> None:
    """A ZMTP 3.0 peer subscribes with a 0x01 message; the PUB honours it, and
    the 0x00 cancel."""
    pub = peers.socket(pub_impl, "PUB")
    raw = _raw_subscriber(peers, pub, minor=0)
    try:
        raw.send(encode_frame(b"\x01topic"))
        _sync_raw(pub, raw, b"topic~probe")
        pub.send(b"other-1")
        pub.send_multipart([b"topic-2", b"", b"x"])
        pub.send(b"topic-end")
        assert raw.read_message() == [b"topic-2", b"", b"x"]
        assert raw.read_message() == [b"topic-end"]
        raw.send(encode_frame(b"\x00topic") + encode_frame(b"\x01zz"))
        _sync_raw(pub, raw, b"zz~probe")
        pub.send(b"topic-after-cancel")
        pub.send(b"zz-end")
        assert raw.read_message() == [b"zz-end"]
    finally:
        raw.close()


@pytest.mark.parametrize("xpub_impl", IMPLS)
def test_zmtp30_subscriber_to_xpub(peers: Any, xpub_impl: str) -> None:
    """XPUB hands a 3.0 peer's subscription messages to the application."""
    xpub = peers.socket(xpub_impl, "XPUB")
    raw = _raw_subscriber(peers, xpub, minor=0)
    try:
        raw.send(encode_frame(b"\x01topic"))
        assert xpub.recv_multipart() == [b"\x01topic"]
        xpub.send(b"topic-1")
        xpub.send(b"nope")
        xpub.send(b"topic-2")
        assert raw.read_message() == [b"topic-1"]
        assert raw.read_message() == [b"topic-2"]
        raw.send(encode_frame(b"\x00topic"))
        assert xpub.recv_multipart() == [b"\x00topic"]
    finally:
        raw.close()


@pytest.mark.parametrize("xpub_impl", IMPLS)
def test_zmtp31_subscribe_commands_to_xpub(peers: Any, xpub_impl: str) -> None:
    """A 3.1 peer's SUBSCRIBE/CANCEL commands reach XPUB as 0x01/0x00 messages."""
    xpub = peers.socket(xpub_impl, "XPUB")
    raw = _raw_subscriber(peers, xpub, minor=1)
    try:
        raw.send(encode_frame(b"\x09SUBSCRIBE" + b"topic", FLAG_COMMAND))
        assert xpub.recv_multipart() == [b"\x01topic"]
        xpub.send(b"topic-1")
        assert raw.read_message() == [b"topic-1"]
        raw.send(encode_frame(b"\x06CANCEL" + b"topic", FLAG_COMMAND))
        assert xpub.recv_multipart() == [b"\x00topic"]
    finally:
        raw.close()


@pytest.mark.parametrize("minor", [0, 1], ids=["zmtp3.0", "zmtp3.1"])
@pytest.mark.parametrize("sub_impl", IMPLS)
def test_sub_sends_subscriptions_by_peer_version(peers: Any, sub_impl: str, minor: int) -> None:
    """A SUB connected to a raw XPUB: commands to 3.1, 0x01/0x00 messages to 3.0.
    The first subscription is made before the handshake (queued), the rest after."""
    sub = peers.socket(sub_impl, "SUB")
    mod = module_of(sub)
    listener = RawListener()
    try:
        sub.connect(listener.endpoint)
        sub.setsockopt(mod.SUBSCRIBE, b"early")
        raw = listener.accept()
    finally:
        listener.close()
    try:
        raw.send(greeting(minor) + ready("XPUB"))
        raw.read_greeting()
        flags, body = raw.read_frame()
        assert flags & FLAG_COMMAND and split_command(body)[0] == b"READY"
        sub.setsockopt(mod.SUBSCRIBE, b"topic")
        sub.setsockopt(mod.UNSUBSCRIBE, b"early")
        frames: list[tuple[int, bytes]] = []
        while len(frames) < 3:
            sub.poll(0)  # let the SUB run its commands (libzmq needs it)
            if raw.readable(0.01):
                frames.append(raw.read_frame())
        if minor == 1:
            assert frames == [
                (FLAG_COMMAND, b"\x09SUBSCRIBE" + b"early"),
                (FLAG_COMMAND, b"\x09SUBSCRIBE" + b"topic"),
                (FLAG_COMMAND, b"\x06CANCEL" + b"early"),
            ]
        else:
            assert frames == [(0, b"\x01early"), (0, b"\x01topic"), (0, b"\x00early")]
        # Messages from this publisher are filtered by what is left.
        raw.send(encode_frame(b"early-1") + encode_frame(b"topic-2"))
        assert recv_poking(sub) == [b"topic-2"]
    finally:
        raw.close()
