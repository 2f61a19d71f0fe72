"""A bridge that makes two ZeroMQ sockets speak ZMTP/1.0 to each other.

It plays an anonymous ZeroMQ 2.x peer to both (RFC 13: the identity frame
``01 00``), drops the identity frame each sends back (its signature was the
frame's header), then copies bytes between them: from there on each speaks
1.0 framing to the other. Used by test_zmtp10_libzmq.py and by the peers
table of docs/compatibility.md (tests/dropin/features.py).
"""

from __future__ import annotations

import socket
import struct
import threading

ANONYMOUS_V1_IDENTITY = b"\x01\x00"  # RFC 13: length 1 (the flags), flags 0


def port_of(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        assert chunk, f"closed after {buf!r}"
        buf += chunk
    return buf


class Bridge:
    """An anonymous ZMTP/1.0 peer to two sockets, then a byte pump between them."""

    def __init__(self, port_a: int, port_b: int) -> None:
        self.socks = [self._greet(port_a), self._greet(port_b)]
        self._threads = [
            threading.Thread(target=self._pump, args=(src, dst), daemon=True)
            for src, dst in ((self.socks[0], self.socks[1]), (self.socks[1], self.socks[0]))
        ]
        for t in self._threads:
            t.start()

    @staticmethod
    def _greet(port: int) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(ANONYMOUS_V1_IDENTITY)
        head = recv_exact(sock, 10)  # its signature: our view, an identity header
        assert head[0] == 0xFF and head[9] == 0x7F, head
        (length,) = struct.unpack(">Q", head[1:9])
        recv_exact(sock, length - 1)  # the identity frame's body
        sock.settimeout(None)
        return sock

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(1 << 16):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        for sock in self.socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        for t in self._threads:
            t.join(5)
