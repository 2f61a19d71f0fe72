"""Helpers for the security tests: ZAP handler threads, monitors, a
frame-aware TCP relay that records and tampers, and key pairs.

Every helper works with purezmq and with pyzmq (libzmq) sockets alike.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import zmq

import purezmq

#: Default send/receive timeout of the sockets these tests make.
IO_TIMEOUT_MS = 5000

Decision = tuple[bytes, bytes, bytes, bytes]  # status, text, user id, metadata


def module_of(obj: Any) -> ModuleType:
    return purezmq if isinstance(obj, purezmq.Socket | purezmq.Context) else zmq


# --------------------------------------------------------------------- ZAP
@dataclass
class ZapHandler:
    """A REP (or ROUTER) ZAP handler on a thread; records every request."""

    requests: list[list[bytes]] = field(default_factory=list)
    thread: threading.Thread | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    ready: threading.Event = field(default_factory=threading.Event)

    def stop(self) -> None:
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join(5)
            assert not self.thread.is_alive(), "ZAP handler thread did not stop"


def allow_all(request: Sequence[bytes]) -> Decision:
    return b"200", b"OK", b"anonymous", b""


def start_zap(
    ctx: Any, decide: Callable[[Sequence[bytes]], Decision | None] = allow_all, router: bool = False
) -> ZapHandler:
    """Bind a ZAP handler in `ctx`; `decide(request)` gives the reply (None:
    never answer). `request` has the RFC 27 frames without the envelope."""
    mod = module_of(ctx)
    handler = ZapHandler()

    def run() -> None:
        sock = ctx.socket(mod.ROUTER if router else mod.REP)
        sock.linger = 0
        sock.bind("inproc://zeromq.zap.01")
        handler.ready.set()
        try:
            while not handler.stop_event.is_set():
                if not sock.poll(20):
                    continue
                frames = sock.recv_multipart()
                envelope: list[bytes] = []
                if router:
                    cut = frames.index(b"") + 1
                    envelope, frames = frames[:cut], frames[cut:]
                handler.requests.append(frames)
                verdict = decide(frames)
                if verdict is None:
                    continue
                sock.send_multipart([*envelope, frames[0], frames[1], *verdict])
        finally:
            sock.close()

    handler.thread = threading.Thread(target=run, daemon=True, name="zap-handler")
    handler.thread.start()
    assert handler.ready.wait(5)
    return handler


# ----------------------------------------------------------------- monitors
@dataclass
class Event:
    event: int
    value: int

    def __repr__(self) -> str:
        try:
            name = purezmq.Event(self.event).name
        except ValueError:
            name = str(self.event)
        return f"Event({name}, {self.value:#x})"


class Monitor:
    """Events of one socket (purezmq or libzmq), read from its monitor PAIR."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock.get_monitor_socket()
        self.seen: list[Event] = []

    def _read(self, timeout_ms: int) -> Event | None:
        if not self.sock.poll(timeout_ms):
            return None
        frames = self.sock.recv_multipart()
        event, value = struct.unpack("=HI", frames[0][:6])
        ev = Event(event, value)
        self.seen.append(ev)
        return ev

    def wait_for(self, event: int, timeout: float = 5.0) -> Event:
        for ev in self.seen:
            if ev.event == event:
                return ev
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ev = self._read(50)
            if ev is not None and ev.event == event:
                return ev
        raise AssertionError(f"no event {event} within {timeout}s; saw {self.seen}")

    def drain(self, seconds: float) -> list[Event]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._read(20)
        return self.seen

    def kinds(self) -> set[int]:
        return {ev.event for ev in self.seen}


# --------------------------------------------------------------------- keys
@dataclass(frozen=True)
class Keys:
    """Z85 key pairs of a server and a client (made by libzmq)."""

    server_public: bytes
    server_secret: bytes
    client_public: bytes
    client_secret: bytes


def make_keys() -> Keys:
    sp, ss = zmq.curve_keypair()
    cp, cs = zmq.curve_keypair()
    return Keys(sp, ss, cp, cs)


def curve_server(sock: Any, keys: Keys) -> Any:
    sock.curve_server = True
    sock.curve_secretkey = keys.server_secret
    sock.curve_publickey = keys.server_public
    return sock


def curve_client(sock: Any, keys: Keys, server_public: bytes | None = None) -> Any:
    sock.curve_serverkey = server_public or keys.server_public
    sock.curve_publickey = keys.client_public
    sock.curve_secretkey = keys.client_secret
    return sock


def offer(sock: Any, data: bytes) -> None:
    """Send without blocking, for connections that are about to be refused:
    once the handshake failed the client may have no pipe left to send on
    (libzmq does not reconnect after an authentication failure either)."""
    mod = module_of(sock)
    try:
        sock.send(data, mod.NOBLOCK)
    except mod.Again:
        pass


def recv_or_none(sock: Any, timeout_ms: int) -> list[bytes] | None:
    if not sock.poll(timeout_ms):
        return None
    return [bytes(f) for f in sock.recv_multipart()]


def last_endpoint(sock: Any) -> str:
    value = sock.getsockopt(module_of(sock).LAST_ENDPOINT)
    return value.decode() if isinstance(value, bytes) else str(value)


# ------------------------------------------------------------------ relay
#: hook(direction, index, frame) -> frames to forward instead. `direction` is
#: "c2s" or "s2c"; `index` counts frames after the greeting, per direction;
#: `frame` is the whole wire frame (flags, size, body).
Hook = Callable[[str, int, bytes], list[bytes]]


def split_frame(frame: bytes) -> tuple[int, bytes]:
    """(flags, body) of a whole wire frame."""
    flags = frame[0]
    if flags & 0x02:
        return flags, frame[9:]
    return flags, frame[2:]


def make_frame(flags: int, body: bytes) -> bytes:
    if len(body) > 255:
        return bytes((flags | 0x02,)) + struct.pack(">Q", len(body)) + body
    return bytes((flags & ~0x02, len(body))) + body


class Relay:
    """A TCP man in the middle: forwards, records, and lets a hook rewrite
    ZMTP frames (after the 64-byte greeting) in either direction."""

    def __init__(self, target_port: int, hook: Hook | None = None) -> None:
        self.target_port = target_port
        self.hook = hook
        self.recorded: dict[str, bytearray] = {"c2s": bytearray(), "s2c": bytearray()}
        self._lsock = socket.create_server(("127.0.0.1", 0))
        self.port = self._lsock.getsockname()[1]
        self.endpoint = f"tcp://127.0.0.1:{self.port}"
        self._socks: list[socket.socket] = [self._lsock]
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="relay-accept").start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._lsock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._socks += [client, server]
            for src, dst, direction in ((client, server, "c2s"), (server, client, "s2c")):
                threading.Thread(
                    target=self._pump, args=(src, dst, direction), daemon=True, name="relay"
                ).start()

    def _pump(self, src: socket.socket, dst: socket.socket, direction: str) -> None:
        buf = b""
        greeting_left = 64
        index = 0
        try:
            while True:
                chunk = src.recv(65536)
                if not chunk:
                    break
                with self._lock:
                    self.recorded[direction] += chunk
                if self.hook is None:
                    dst.sendall(chunk)
                    continue
                buf += chunk
                if greeting_left:
                    take = buf[:greeting_left]
                    buf = buf[greeting_left:]
                    greeting_left -= len(take)
                    dst.sendall(take)
                out = b""
                while len(buf) >= 2:
                    header = 9 if buf[0] & 0x02 else 2
                    if len(buf) < header:
                        break
                    size = struct.unpack(">Q", buf[1:9])[0] if header == 9 else buf[1]
                    if len(buf) < header + size:
                        break
                    frame, buf = buf[: header + size], buf[header + size :]
                    out += b"".join(self.hook(direction, index, frame))
                    index += 1
                if out:
                    dst.sendall(out)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            try:
                s.close()
            except OSError:
                pass
