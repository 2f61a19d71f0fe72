"""Endpoint strings: parsing, resolution and OS-socket set-up for tcp and ipc.

`tcp://host:port`, `tcp://*:port`, `tcp://*:*` (or port 0), `tcp://[::1]:port`,
hostnames; `ipc:///path`, `ipc://@abstract` (Linux), `ipc://*` (a fresh
temporary path); `inproc://name`. Errors carry the errno libzmq returns for
the same string, so the socket layer can raise pyzmq's ZMQError unchanged.
"""

from __future__ import annotations

import _socket
import errno
import ipaddress
import os
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final


class AddressError(Exception):
    """A malformed or unusable endpoint. `errno` is libzmq's choice for it."""

    def __init__(self, errnum: int, message: str) -> None:
        super().__init__(message)
        self.errno = errnum
        self.message = message


PROTOCOLS = ("tcp", "ipc", "inproc", "pgm", "epgm", "udp")
#: The multicast transports (PGM; see purezmq._transport.pgm).
MULTICAST = ("pgm", "epgm")
#: Transports libzmq knows but purezmq does not carry (EPROTONOSUPPORT).
UNSUPPORTED = ("norm", "tipc", "vmci", "ws", "wss", "vsock")


class Endpoint:
    """A parsed endpoint: protocol and the part after `://`.

    Read-only by convention. A plain class, not a frozen dataclass: the
    dataclass's `__init__` is interpreted even in the compiled build and
    stores through `object.__setattr__` - about 3k instructions on every
    connect() and bind() (issue 14)."""

    __slots__ = ("address", "protocol")

    def __init__(self, protocol: str, address: str) -> None:
        self.protocol = protocol
        self.address = address

    def __str__(self) -> str:
        return f"{self.protocol}://{self.address}"

    def __repr__(self) -> str:
        return f"Endpoint(protocol={self.protocol!r}, address={self.address!r})"


def parse_endpoint(endpoint: str) -> Endpoint:
    """Split and validate `protocol://address` (EINVAL / EPROTONOSUPPORT)."""
    if not isinstance(endpoint, str):
        raise TypeError(f"endpoint must be str, not {type(endpoint).__name__}")
    proto, sep, rest = endpoint.partition("://")
    if not sep or not proto:
        raise AddressError(
            errno.EINVAL, f"Invalid endpoint {endpoint!r}: expected 'protocol://address'"
        )
    if proto in UNSUPPORTED:
        raise AddressError(errno.EPROTONOSUPPORT, f"Protocol {proto!r} is not supported by purezmq")
    if proto not in PROTOCOLS:
        raise AddressError(errno.EPROTONOSUPPORT, f"Protocol {proto!r} not supported")
    if not rest:
        raise AddressError(errno.EINVAL, f"Invalid endpoint {endpoint!r}: empty address")
    if proto == "ipc" and sys.platform == "win32":  # pragma: no cover
        raise AddressError(errno.EPROTONOSUPPORT, "ipc is not available on this platform")
    return Endpoint(proto, rest)


# ---------------------------------------------------------------- tcp
class TcpAddress:
    """A resolved tcp address: the family and the sockaddr to bind/connect.

    Read-only by convention; a plain class for the reason `Endpoint` is one
    (every tcp connect and reconnect resolves one)."""

    __slots__ = ("family", "sockaddr", "source")

    def __init__(
        self,
        family: int,
        sockaddr: tuple[str, int] | tuple[str, int, int, int],
        source: tuple[str, int] | None = None,
    ) -> None:
        self.family = family
        self.sockaddr = sockaddr
        self.source = source

    def __repr__(self) -> str:
        return (
            f"TcpAddress(family={self.family!r}, sockaddr={self.sockaddr!r}, "
            f"source={self.source!r})"
        )

    def uri(self, port: int | None = None) -> str:
        host = self.sockaddr[0]
        p = self.sockaddr[1] if port is None else port
        if self.family == socket.AF_INET6:
            return f"tcp://[{host}]:{p}"
        return f"tcp://{host}:{p}"


def _split_host_port(address: str, what: str) -> tuple[str, str]:
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        raise AddressError(errno.EINVAL, f"Invalid tcp {what} {address!r}: expected host:port")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _parse_port(port: str, address: str, *, bind: bool) -> int:
    if port == "*" and bind:
        return 0
    try:
        value = int(port)
    except ValueError:
        raise AddressError(errno.EINVAL, f"Invalid tcp port in {address!r}") from None
    if not 0 <= value <= 65535 or (value == 0 and not bind):
        raise AddressError(errno.EINVAL, f"Invalid tcp port in {address!r}")
    return value


def check_tcp(address: str) -> None:
    """Validate a connect address's syntax without resolving it (EINVAL).

    libzmq resolves names when it (re)tries to connect, so a name that does
    not resolve yet is not an error at connect() time; a malformed address is."""
    if ";" in address:
        src, _, address = address.partition(";")
        _parse_port(_split_host_port(src, "source address")[1], src, bind=True)
    _host, port = _split_host_port(address, "address")
    _parse_port(port, address, bind=False)


def resolve_tcp(address: str, *, bind: bool, ipv6: bool) -> TcpAddress:
    """Resolve a tcp address as libzmq does: '*' binds every interface of the
    family, IPV6 allows v6 (and v4-mapped) addresses, names go through DNS."""
    source: tuple[str, int] | None = None
    if not bind and ";" in address:
        src, _, address = address.partition(";")
        shost, sport = _split_host_port(src, "source address")
        source = (shost, _parse_port(sport, src, bind=True))
    host, port_s = _split_host_port(address, "address")
    port = _parse_port(port_s, address, bind=bind)
    if bind and host == "*":
        if ipv6:
            return TcpAddress(socket.AF_INET6, ("::", port, 0, 0))
        return TcpAddress(socket.AF_INET, ("0.0.0.0", port))
    family = socket.AF_UNSPEC if ipv6 else socket.AF_INET
    flags = socket.AI_PASSIVE if bind else 0
    try:
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM, 0, flags)
    except (socket.gaierror, UnicodeError) as e:
        if bind:
            raise AddressError(errno.ENODEV, f"No such device/interface {host!r} ({e})") from None
        raise AddressError(errno.EINVAL, f"Cannot resolve {host!r}: {e}") from None
    # Prefer IPv4 unless only IPv6 resolved (libzmq with IPV6 accepts both).
    infos.sort(key=lambda i: i[0] != socket.AF_INET)
    fam, _, _, _, sockaddr = infos[0]
    return TcpAddress(fam, sockaddr, source)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Tuning:
    """OS-level socket settings from the socket options, applied to every
    connection: TCP_KEEPALIVE* (-1 = leave the OS default), SNDBUF/RCVBUF
    (kernel buffer sizes in bytes, -1 or 0 = leave the OS default) and TOS."""

    keepalive: tuple[int, int, int, int] = (-1, -1, -1, -1)
    sndbuf: int = -1
    rcvbuf: int = -1
    tos: int = 0


#: The C member under `socket.socket.family`: the plain int. The property
#: converts it to an `AddressFamily` member through the interpreted enum
#: machinery (about 1 µs a read), and a connection's set-up read it thrice.
_raw_family: Callable[[socket.socket], int] = _socket.socket.family.__get__
_INET: Final = (int(socket.AF_INET), int(socket.AF_INET6))


def is_inet(sock: socket.socket) -> bool:
    """Is `sock` a tcp (IPv4/IPv6) socket, not AF_UNIX?"""
    return _raw_family(sock) in _INET


def tune_socket(sock: socket.socket, tuning: Tuning) -> None:
    """Apply `tuning`; for tcp also TCP_NODELAY (ZeroMQ batches by itself)."""
    if tuning.sndbuf > 0:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, tuning.sndbuf)
    if tuning.rcvbuf > 0:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, tuning.rcvbuf)
    family = _raw_family(sock)
    if family not in _INET:
        return
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tuning.tos:
        v6 = family == socket.AF_INET6
        level = socket.IPPROTO_IPV6 if v6 else socket.IPPROTO_IP
        opt = socket.IPV6_TCLASS if v6 else socket.IP_TOS
        sock.setsockopt(level, opt, tuning.tos)
    on, cnt, idle, intvl = tuning.keepalive
    if on != -1:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1 if on else 0)
    if on == 1:
        names = (("TCP_KEEPCNT", cnt), ("TCP_KEEPIDLE", idle), ("TCP_KEEPINTVL", intvl))
        for opt_name, value in names:
            number: int | None = getattr(socket, opt_name, None)  # not on every OS
            if number is not None and value != -1:
                sock.setsockopt(socket.IPPROTO_TCP, number, value)


# ---------------------------------------------------------------- ipc
def ipc_path(address: str, *, bind: bool) -> str:
    """The AF_UNIX path for an ipc address; '@name' is Linux's abstract namespace
    (a leading NUL byte); '*' binds a fresh path in a private temp directory."""
    if address == "*":
        if not bind:
            raise AddressError(errno.EINVAL, "ipc://* can only be bound, not connected")
        directory = tempfile.mkdtemp(prefix="purezmq-")
        return os.path.join(directory, "socket")
    if address.startswith("@"):
        if not sys.platform.startswith("linux"):
            raise AddressError(errno.EINVAL, "abstract ipc names (ipc://@name) need Linux")
        return "\0" + address[1:]
    if len(address.encode()) >= IPC_PATH_MAX_LEN:
        raise AddressError(
            errno.ENAMETOOLONG,
            f"ipc path is {len(address.encode())} bytes; the limit is {IPC_PATH_MAX_LEN - 1}",
        )
    return address


def ipc_uri(path: str) -> str:
    """The endpoint string for an AF_UNIX path (LAST_ENDPOINT)."""
    if path.startswith("\0"):
        return "ipc://@" + path[1:]
    return "ipc://" + path


#: sizeof(sockaddr_un.sun_path) on Linux; other Unixes use 104.
IPC_PATH_MAX_LEN = 108 if sys.platform.startswith("linux") else 104


def numeric_address(address: str, *, ipv6: bool) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """A numeric IP address parsed as libzmq parses one (getaddrinfo with
    AI_NUMERICHOST; IPv4 mapped into IPv6 when `ipv6`). ValueError if it is
    not one (TCP_ACCEPT_FILTER)."""
    flags = socket.AI_NUMERICHOST | (getattr(socket, "AI_V4MAPPED", 0) if ipv6 else 0)
    family = socket.AF_INET6 if ipv6 else socket.AF_INET
    try:
        info = socket.getaddrinfo(address, None, family, socket.SOCK_STREAM, 0, flags)
        return ipaddress.ip_address(str(info[0][4][0]).partition("%")[0])
    except (OSError, UnicodeError) as e:
        raise ValueError(f"not a numeric address: {address!r}") from e
