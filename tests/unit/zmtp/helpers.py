"""Shared helpers for the ZMTP unit tests: hand-written wire bytes, feeding
modes (whole, byte by byte, random chunks) and a fake link between two
connections."""

from __future__ import annotations

import random
import struct
from collections.abc import Iterable, Sequence

from purezmq._zmtp import NullMechanism, ProtocolError, ZapConfig, ZMTPConnection

# ---------------------------------------------------------------- wire bytes
# Written out by hand from RFC 23/37 and libzmq's tests/testutil.hpp, never
# produced by the code under test.
GREETING_30_NULL = (
    b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL" + b"\x00" * 16 + b"\x00" + b"\x00" * 31
)
GREETING_31_NULL = GREETING_30_NULL[:11] + b"\x01" + GREETING_30_NULL[12:]
#: Our own greeting, byte for byte what libzmq 4.3 sends: the padding holds
#: the length of an identity frame (routing id + 1), for ZMTP 1.0 peers.
OUR_SIGNATURE = b"\xff" + b"\x00" * 7 + b"\x01" + b"\x7f"
OUR_GREETING_31_NULL = OUR_SIGNATURE + GREETING_31_NULL[10:]
READY_DEALER = b"\x04\x29\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER\x08Identity\x00\x00\x00\x00"
READY_XPUB = b"\x04\x1a\x05READY\x0bSocket-Type\x00\x00\x00\x04XPUB"
READY_SUB = b"\x04\x19\x05READY\x0bSocket-Type\x00\x00\x00\x03SUB"

FEED_MODES = ("whole", "bytewise", "random")


def greeting(
    *, major: int = 3, minor: int = 1, mechanism: bytes = b"NULL", as_server: int = 0
) -> bytes:
    """A peer greeting built field by field."""
    return (
        b"\xff"
        + b"\x00" * 8
        + b"\x7f"
        + bytes((major, minor))
        + mechanism.ljust(20, b"\x00")
        + bytes((as_server,))
        + b"\x00" * 31
    )


def prop(name: bytes, value: bytes) -> bytes:
    return bytes((len(name),)) + name + struct.pack(">I", len(value)) + value


def command_frame(body: bytes) -> bytes:
    if len(body) < 256:
        return bytes((0x04, len(body))) + body
    return b"\x06" + struct.pack(">Q", len(body)) + body


def ready_frame(socket_type: bytes | None, *extra: tuple[bytes, bytes]) -> bytes:
    body = b"\x05READY"
    if socket_type is not None:
        body += prop(b"Socket-Type", socket_type)
    for name, value in extra:
        body += prop(name, value)
    return command_frame(body)


def data_frame(body: bytes, *, more: bool = False) -> bytes:
    flags = 0x01 if more else 0x00
    if len(body) < 256:
        return bytes((flags, len(body))) + body
    return bytes((flags | 0x02,)) + struct.pack(">Q", len(body)) + body


def message_bytes(frames: Sequence[bytes]) -> bytes:
    return b"".join(data_frame(f, more=i < len(frames) - 1) for i, f in enumerate(frames))


# ------------------------------------------------------------- connections
def make_conn(
    socket_type: str = "DEALER",
    *,
    now: float = 0.0,
    identity: bytes | None = None,
    properties: dict[str, bytes] | None = None,
    zap: ZapConfig | None = None,
    **kwargs: object,
) -> ZMTPConnection:
    mechanism = NullMechanism(identity=identity, properties=properties, zap=zap)
    return ZMTPConnection(socket_type=socket_type, mechanism=mechanism, now=now, **kwargs)  # type: ignore[arg-type]


def out_bytes(conn: ZMTPConnection) -> bytes:
    return b"".join(bytes(chunk) for chunk in conn.data_to_send())


def chunks_of(data: bytes, mode: str | int, seed: int = 0) -> Iterable[bytes]:
    """Split `data` as a network might: whole, byte by byte, random sizes."""
    if mode == "whole":
        yield data
        return
    if mode == "bytewise":
        size = 1
    elif isinstance(mode, int):
        size = mode
    else:
        rng = random.Random(seed)
        pos = 0
        while pos < len(data):
            step = rng.choice((1, 2, 3, 7, 64, 1000, 70000))
            yield data[pos : pos + step]
            pos += step
        return
    for pos in range(0, len(data), size):
        yield data[pos : pos + size]


def feed(conn: ZMTPConnection, data: bytes, mode: str | int = "whole", now: float = 0.0) -> None:
    """Deliver `data` through get_buffer/buffer_updated, as a driver would."""
    for piece in chunks_of(data, mode):
        pos = 0
        while pos < len(piece):
            view = conn.get_buffer()
            count = min(len(view), len(piece) - pos)
            view[:count] = piece[pos : pos + count]
            conn.buffer_updated(count, now)
            pos += count


def run_input(
    conn: ZMTPConnection, data: bytes, mode: str | int, max_msgs: int = 1 << 30
) -> tuple[list[list[bytes]], bytes, ProtocolError | None]:
    """Feed, pull everything; return (messages, output bytes, error)."""
    msgs: list[list[bytes]] = []
    error: ProtocolError | None = None
    try:
        for piece in chunks_of(data, mode):
            feed(conn, piece)
            msgs.extend(conn.pull(max_msgs))
        while True:
            more = conn.pull(max_msgs)
            if not more:
                break
            msgs.extend(more)
    except ProtocolError as exc:
        error = exc
    return msgs, out_bytes(conn), error


def handshaken(
    socket_type: str = "DEALER",
    peer_type: bytes = b"ROUTER",
    *,
    peer_minor: int = 1,
    **kwargs: object,
) -> ZMTPConnection:
    """A connection that completed the handshake with a hand-written peer."""
    conn = make_conn(socket_type, **kwargs)  # type: ignore[arg-type]
    feed(conn, greeting(minor=peer_minor) + ready_frame(peer_type))
    assert conn.handshake_done
    conn.data_to_send()
    return conn


def pump(a: ZMTPConnection, b: ZMTPConnection, now: float = 0.0, mode: str | int = "whole") -> None:
    """Move bytes both ways until both sides are quiet."""
    for _ in range(100):
        moved = False
        for src, dst in ((a, b), (b, a)):
            data = out_bytes(src)
            if data:
                feed(dst, data, mode, now)
                moved = True
        if not moved:
            return
    raise AssertionError("connections never went quiet")


def connected(a_type: str, b_type: str, **kwargs: object) -> tuple[ZMTPConnection, ZMTPConnection]:
    a = make_conn(a_type, **kwargs)  # type: ignore[arg-type]
    b = make_conn(b_type, **kwargs)  # type: ignore[arg-type]
    pump(a, b)
    assert a.handshake_done and b.handshake_done
    return a, b
