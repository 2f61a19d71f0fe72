"""Hand-written ZMTP for the few interop tests that need a peer we control.

A raw peer speaks just enough ZMTP 3.x (NULL mechanism) to complete a
handshake, then does whatever the test needs: stays silent, records what it
receives, speaks ZMTP 3.0 subscriptions as messages. Where a test says it
replays libzmq, the bytes come from a real libzmq socket
(`capture_libzmq_handshake`), not from this module's encoder.
"""

from __future__ import annotations

import select
import socket
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

import zmq

SIGNATURE = b"\xff" + b"\x00" * 8 + b"\x7f"
GREETING_SIZE = 64
FLAG_MORE = 0x01
FLAG_LONG = 0x02
FLAG_COMMAND = 0x04
IO_TIMEOUT = 5.0


def greeting(minor: int = 1, mechanism: bytes = b"NULL", as_server: bool = False) -> bytes:
    """A 64-byte ZMTP 3.`minor` greeting."""
    return (
        SIGNATURE
        + bytes([3, minor])
        + mechanism.ljust(20, b"\x00")
        + bytes([int(as_server)])
        + b"\x00" * 31
    )


def encode_frame(body: bytes, flags: int = 0) -> bytes:
    if len(body) > 255:
        return bytes([flags | FLAG_LONG]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def command_body(name: bytes, data: bytes = b"") -> bytes:
    return bytes([len(name)]) + name + data


def command(name: bytes, data: bytes = b"") -> bytes:
    """A whole command frame."""
    return encode_frame(command_body(name, data), FLAG_COMMAND)


def ready(socket_type: str, identity: bytes | None = None) -> bytes:
    """A READY command frame announcing `socket_type` (and Identity if given)."""
    props = [(b"Socket-Type", socket_type.encode())]
    if identity is not None:
        props.append((b"Identity", identity))
    data = b"".join(bytes([len(k)]) + k + struct.pack(">I", len(v)) + v for k, v in props)
    return command(b"READY", data)


def split_command(body: bytes) -> tuple[bytes, bytes]:
    """(name, data) of a command frame's body."""
    n = body[0]
    return body[1 : 1 + n], body[1 + n :]


class RawPeer:
    """One TCP connection spoken to byte by byte."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        sock.settimeout(IO_TIMEOUT)

    @classmethod
    def connect(cls, host: str, port: int) -> RawPeer:
        return cls(socket.create_connection((host, port), timeout=IO_TIMEOUT))

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError(f"peer closed after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def readable(self, timeout: float) -> bool:
        """Are bytes waiting (within `timeout` seconds)?"""
        return bool(select.select([self.sock], [], [], timeout)[0])

    def read_message(self) -> list[bytes]:
        """The next whole message; commands in between fail the test."""
        frames = []
        while True:
            flags, body = self.read_frame()
            assert not flags & FLAG_COMMAND, f"unexpected command {body!r}"
            frames.append(body)
            if not flags & FLAG_MORE:
                return frames

    def read_greeting(self) -> bytes:
        data = self.recv_exact(GREETING_SIZE)
        assert data[:1] == b"\xff" and data[9:10] == b"\x7f", f"not a ZMTP greeting: {data!r}"
        return data

    def read_frame_raw(self) -> tuple[int, bytes, bytes]:
        """(flags, body, the frame's exact bytes on the wire)."""
        head = self.recv_exact(1)
        flags = head[0]
        if flags & FLAG_LONG:
            size_bytes = self.recv_exact(8)
            (size,) = struct.unpack(">Q", size_bytes)
        else:
            size_bytes = self.recv_exact(1)
            size = size_bytes[0]
        body = self.recv_exact(size)
        return flags, body, head + size_bytes + body

    def read_frame(self) -> tuple[int, bytes]:
        flags, body, _ = self.read_frame_raw()
        return flags, body

    def handshake(self, socket_type: str, minor: int = 1) -> tuple[bytes, bytes]:
        """Send our greeting and READY, read the peer's; return (greeting, READY body)."""
        self.send(greeting(minor))
        peer_greeting = self.read_greeting()
        self.send(ready(socket_type))
        flags, body = self.read_frame()
        assert flags & FLAG_COMMAND and split_command(body)[0] == b"READY", body
        return peer_greeting, body


class RawListener:
    """A listening TCP socket on 127.0.0.1 that hands out RawPeers."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(IO_TIMEOUT)
        self.port = self.sock.getsockname()[1]
        self.endpoint = f"tcp://127.0.0.1:{self.port}"

    def accept(self) -> RawPeer:
        conn, _ = self.sock.accept()
        return RawPeer(conn)

    def close(self) -> None:
        self.sock.close()


@dataclass
class Recorder:
    """Reads frames from a RawPeer on a thread until EOF; never writes."""

    peer: RawPeer
    frames: list[tuple[int, bytes]] = field(default_factory=list)
    eof: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def start(self) -> Recorder:
        self.peer.sock.settimeout(None)
        self.thread = threading.Thread(target=self._run, name="raw-recorder", daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            while True:
                self.frames.append(self.peer.read_frame())
        except (EOFError, OSError):
            pass
        finally:
            self.eof.set()

    def commands(self, name: bytes) -> list[bytes]:
        """Data of the recorded commands called `name`."""
        out = []
        for flags, body in list(self.frames):
            if flags & FLAG_COMMAND:
                cname, data = split_command(body)
                if cname == name:
                    out.append(data)
        return out

    def stop(self) -> None:
        try:
            self.peer.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.peer.close()
        if self.thread is not None:
            self.thread.join(IO_TIMEOUT)


@dataclass
class LibzmqHandshake:
    """What a real libzmq socket sent: greeting, READY (and a PING if asked)."""

    greeting: bytes
    ready: bytes
    ping: bytes | None = None


def capture_libzmq_handshake(
    zctx: zmq.Context[Any], socket_type: str, peer_type: str, *, ping_ttl_ms: int | None = None
) -> LibzmqHandshake:
    """Handshake with a real libzmq `socket_type` socket and keep its exact bytes.

    With `ping_ttl_ms`, the libzmq socket heartbeats (HEARTBEAT_IVL 20 ms and
    that TTL) and its first PING frame is captured too."""
    lz = zctx.socket(getattr(zmq, socket_type))
    lz.linger = 0
    if ping_ttl_ms is not None:
        lz.heartbeat_ivl = 20
        lz.heartbeat_ttl = ping_ttl_ms
        lz.heartbeat_timeout = 5000
    lz.bind("tcp://127.0.0.1:*")
    port = int(lz.last_endpoint.decode().rsplit(":", 1)[1])
    raw = RawPeer.connect("127.0.0.1", port)
    try:
        raw.send(greeting(1))
        lz_greeting = raw.read_greeting()
        raw.send(ready(peer_type))
        flags, body, lz_ready = raw.read_frame_raw()
        assert flags & FLAG_COMMAND and split_command(body)[0] == b"READY"
        ping = None
        if ping_ttl_ms is not None:
            while ping is None:
                flags, body, wire = raw.read_frame_raw()
                if flags & FLAG_COMMAND and split_command(body)[0] == b"PING":
                    ping = wire
        return LibzmqHandshake(lz_greeting, lz_ready, ping)
    finally:
        raw.close()
        lz.close(linger=0)


class FrameParser:
    """Incremental parser for one direction of a ZMTP 3 stream (greeting skipped)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._greeting_left = GREETING_SIZE
        self.frames: list[tuple[int, bytes]] = []

    def feed(self, data: bytes) -> None:
        self._buf += data
        if self._greeting_left:
            n = min(self._greeting_left, len(self._buf))
            del self._buf[:n]
            self._greeting_left -= n
        while True:
            if len(self._buf) < 2:
                return
            flags = self._buf[0]
            if flags & FLAG_LONG:
                if len(self._buf) < 9:
                    return
                (size,) = struct.unpack(">Q", self._buf[1:9])
                start = 9
            else:
                size, start = self._buf[1], 2
            if len(self._buf) < start + size:
                return
            self.frames.append((flags, bytes(self._buf[start : start + size])))
            del self._buf[: start + size]

    def command_names(self) -> list[bytes]:
        return [split_command(body)[0] for flags, body in list(self.frames) if flags & FLAG_COMMAND]


class Tap:
    """A TCP man in the middle: forwards one connection to 127.0.0.1:`port`
    unchanged and records the ZMTP frames going each way."""

    def __init__(self, port: int) -> None:
        self._port = port
        self._listener = RawListener()
        self.endpoint = self._listener.endpoint
        #: frames sent by the side that connected to the tap / by the target
        self.from_client = FrameParser()
        self.from_server = FrameParser()
        self._socks: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        accept = threading.Thread(target=self._accept, name="tap-accept", daemon=True)
        self._threads.append(accept)
        accept.start()

    def _accept(self) -> None:
        try:
            client, _ = self._listener.sock.accept()
            server = socket.create_connection(("127.0.0.1", self._port), timeout=IO_TIMEOUT)
        except OSError:
            return
        for s in (client, server):
            s.settimeout(None)
            self._socks.append(s)
        for src, dst, parser in (
            (client, server, self.from_client),
            (server, client, self.from_server),
        ):
            t = threading.Thread(target=self._pump, args=(src, dst, parser), daemon=True)
            self._threads.append(t)
            t.start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, parser: FrameParser) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
                parser.feed(data)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        self._listener.close()
        for s in self._socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        for t in self._threads:
            t.join(IO_TIMEOUT)
