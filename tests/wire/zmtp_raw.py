"""A small, independent ZMTP 3.x peer for the wire tests.

Written from RFC 23/37 and libzmq's tests (``testutil.hpp``,
``test_mock_pub_sub.cpp``, ``test_heartbeats.cpp``) and deliberately naive:
blocking sockets, a timeout on every read, bytes built by hand. It never
imports purezmq's codec (``purezmq._zmtp``): the point is to check purezmq's
bytes against a second, separate reading of the spec.

Byte builders return complete wire bytes (frame header included). `RawPeer`
wraps one TCP connection and fails the test (AssertionError) when the other
side does not produce what it expects in time.
"""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass

# ------------------------------------------------------------------ constants
SIGNATURE = b"\xff" + b"\x00" * 8 + b"\x7f"  # 10 bytes, RFC 37 "signature"
SIGNATURE_LEN = 10
GREETING_LEN = 64
PREFIX_LEN = 11  # signature + major version: what a peer sends first


def libzmq_signature(routing_id: bytes = b"") -> bytes:
    """The signature libzmq 4.3 (and so purezmq) sends: its padding is the
    64-bit length of a ZMTP 1.0 identity frame (RFC 37 "Detecting ZMTP 1.0
    and 2.0 Peers"), the routing id's length + 1."""
    return b"\xff" + struct.pack(">Q", len(routing_id) + 1) + b"\x7f"

FLAG_MORE = 0x01
FLAG_LONG = 0x02
FLAG_COMMAND = 0x04

DEFAULT_TIMEOUT = 5.0


# -------------------------------------------------------------- byte builders
def greeting(
    *, major: int = 3, minor: int = 1, mechanism: bytes = b"NULL", as_server: int = 0
) -> bytes:
    """A 64-byte greeting built field by field (RFC 37 "greeting")."""
    assert len(mechanism) <= 20
    out = SIGNATURE + bytes((major, minor)) + mechanism + b"\x00" * (20 - len(mechanism))
    out += bytes((as_server,)) + b"\x00" * 31
    assert len(out) == GREETING_LEN
    return out


def frame(
    body: bytes, *, more: bool = False, command: bool = False, long: bool | None = None
) -> bytes:
    """One frame; `long` forces the 8-byte size (default: only when > 255)."""
    flags = (FLAG_MORE if more else 0) | (FLAG_COMMAND if command else 0)
    if long is None:
        long = len(body) > 255
    if long:
        return bytes((flags | FLAG_LONG,)) + struct.pack(">Q", len(body)) + body
    assert len(body) <= 255
    return bytes((flags, len(body))) + body


def message(*frames: bytes) -> bytes:
    """A multipart message: MORE on every frame but the last."""
    last = len(frames) - 1
    return b"".join(frame(f, more=i < last) for i, f in enumerate(frames))


def command(name: bytes, data: bytes = b"") -> bytes:
    """A command frame: name-len name data."""
    return frame(bytes((len(name),)) + name + data, command=True)


def prop(name: bytes, value: bytes) -> bytes:
    """One metadata property: name-len(1) name value-len(4, BE) value."""
    return bytes((len(name),)) + name + struct.pack(">I", len(value)) + value


def ready(socket_type: bytes | None, identity: bytes | None = None, *extra: bytes) -> bytes:
    """READY with Socket-Type, optional Identity and raw extra properties."""
    data = b""
    if socket_type is not None:
        data += prop(b"Socket-Type", socket_type)
    if identity is not None:
        data += prop(b"Identity", identity)
    return command(b"READY", data + b"".join(extra))


def ping(ttl: int = 0, context: bytes = b"") -> bytes:
    return command(b"PING", struct.pack(">H", ttl) + context)


def subscribe_cmd(topic: bytes) -> bytes:
    return command(b"SUBSCRIBE", topic)


def cancel_cmd(topic: bytes) -> bytes:
    return command(b"CANCEL", topic)


# -------------------------------------------------------------------- parsing
@dataclass(frozen=True)
class Frame:
    flags: int
    body: bytes
    long_size: bool  # the 8-byte size field was used

    @property
    def more(self) -> bool:
        return bool(self.flags & FLAG_MORE)

    @property
    def is_command(self) -> bool:
        return bool(self.flags & FLAG_COMMAND)


def split_command(body: bytes) -> tuple[bytes, bytes]:
    """(name, data) of a command body; asserts the name fits."""
    assert body, "empty command body"
    n = body[0]
    assert 1 <= n <= len(body) - 1, f"bad command name length {n} in {body!r}"
    return body[1 : 1 + n], body[1 + n :]


def parse_properties(data: bytes) -> list[tuple[bytes, bytes]]:
    """A strict metadata parser: every property complete, nothing left over."""
    out: list[tuple[bytes, bytes]] = []
    pos = 0
    while pos < len(data):
        n = data[pos]
        assert n >= 1, f"empty property name at {pos} in {data!r}"
        pos += 1
        assert pos + n + 4 <= len(data), f"truncated property in {data!r}"
        name = data[pos : pos + n]
        pos += n
        (vlen,) = struct.unpack_from(">I", data, pos)
        pos += 4
        assert pos + vlen <= len(data), f"property value overruns in {data!r}"
        out.append((name, data[pos : pos + vlen]))
        pos += vlen
    return out


@dataclass(frozen=True)
class Greeting:
    raw: bytes

    @property
    def signature_ok(self) -> bool:
        return self.raw[0] == 0xFF and self.raw[9] == 0x7F

    @property
    def version(self) -> tuple[int, int]:
        return self.raw[10], self.raw[11]

    @property
    def mechanism(self) -> bytes:
        return self.raw[12:32]

    @property
    def as_server(self) -> int:
        return self.raw[32]

    @property
    def filler(self) -> bytes:
        return self.raw[33:64]


# ------------------------------------------------------------------- the peer
class PeerClosed(AssertionError):
    """The other side closed while we expected bytes."""


class RawPeer:
    """One blocking TCP connection speaking hand-made ZMTP."""

    def __init__(self, sock: socket.socket, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.sock = sock
        self.timeout = timeout
        self.sock.settimeout(timeout)
        self._pending = b""  # bytes read ahead by recv_available

    @classmethod
    def connect(cls, port: int, timeout: float = DEFAULT_TIMEOUT) -> RawPeer:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, timeout)

    # ------------------------------------------------------------ raw bytes
    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv_exact(self, n: int, timeout: float | None = None) -> bytes:
        """Exactly `n` bytes, or AssertionError (EOF or timeout)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        buf = self._pending[:n]
        self._pending = self._pending[n:]
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {n} bytes, got {buf!r}")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(n - len(buf))
            except TimeoutError:
                raise AssertionError(f"timed out waiting for {n} bytes, got {buf!r}") from None
            except ConnectionResetError:
                raise PeerClosed(f"connection reset after {buf!r} (wanted {n} bytes)") from None
            if not chunk:
                raise PeerClosed(f"EOF after {buf!r} (wanted {n} bytes)")
            buf += chunk
        self.sock.settimeout(self.timeout)
        return buf

    def recv_available(self, wait: float) -> bytes:
        """Whatever arrives within `wait` seconds (for "nothing more comes")."""
        deadline = time.monotonic() + wait
        got = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            got += chunk
        self.sock.settimeout(self.timeout)
        self._pending += got
        return got

    def wait_closed(self, timeout: float | None = None) -> bytes:
        """Read until the other side closes (EOF or RST); returns the bytes
        received. AssertionError if it is still open after `timeout`."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        got = self._pending
        self._pending = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"connection still open after {timeout}s; received {got!r}")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            except (ConnectionResetError, BrokenPipeError):
                return got
            if not chunk:
                return got
            got += chunk

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def abort(self) -> None:
        """Close with RST (SO_LINGER 0) instead of FIN."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close()

    # ---------------------------------------------------------------- ZMTP
    def read_greeting(self) -> Greeting:
        return Greeting(self.recv_exact(GREETING_LEN))

    def read_frame(self) -> Frame:
        flags = self.recv_exact(1)[0]
        assert flags & 0xF8 == 0, f"reserved flag bits set: {flags:#04x}"
        if flags & FLAG_LONG:
            (size,) = struct.unpack(">Q", self.recv_exact(8))
        else:
            size = self.recv_exact(1)[0]
        return Frame(flags, self.recv_exact(size), bool(flags & FLAG_LONG))

    def read_command(self) -> tuple[bytes, bytes]:
        f = self.read_frame()
        assert f.is_command, f"expected a command, got data frame {f!r}"
        assert not f.more, f"command frame with MORE flag: {f!r}"
        return split_command(f.body)

    def read_message(self) -> list[bytes]:
        """The next data message (commands are a test failure here)."""
        frames: list[bytes] = []
        while True:
            f = self.read_frame()
            assert not f.is_command, f"expected a data frame, got command {f.body!r}"
            frames.append(f.body)
            if not f.more:
                return frames

    def read_ready(self) -> dict[bytes, bytes]:
        name, data = self.read_command()
        assert name == b"READY", f"expected READY, got {name!r} {data!r}"
        props = parse_properties(data)
        return {k.lower(): v for k, v in props}

    def handshake(
        self,
        socket_type: bytes,
        identity: bytes | None = None,
        *,
        minor: int = 1,
        major: int = 3,
    ) -> tuple[Greeting, dict[bytes, bytes]]:
        """Full NULL handshake as the libzmq mocks do: our greeting, theirs,
        our READY, theirs. Returns (their greeting, their READY properties,
        names lower-cased)."""
        self.send(greeting(major=major, minor=minor))
        theirs = self.read_greeting()
        assert theirs.signature_ok, theirs.raw
        self.send(ready(socket_type, identity))
        return theirs, self.read_ready()

    def send_message(self, *frames: bytes) -> None:
        self.send(message(*frames))
