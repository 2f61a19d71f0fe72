"""udp:// endpoints (RADIO/DISH and DGRAM): parsing, the datagram format,
and the OS socket.

Addresses, as libzmq 4.3.5's ``udp_address_t::resolve`` reads them:

- ``udp://HOST:PORT``: for a connect, the destination (a RADIO sends there;
  a DISH or DGRAM that connects listens on ``*:PORT``); for a bind, the
  local address to listen on (``*`` for any).
- ``udp://GROUP:PORT`` with a multicast GROUP: sent to the group; a
  receiver binds ``*:PORT`` and joins the group.
- ``udp://IFACE;GROUP:PORT``: the same, through one interface, named by its
  IPv4 address, by name (``eth0``) or ``*``. An interface is only allowed
  with a multicast group, and may not itself be a multicast address
  (EINVAL, as libzmq).

IPv4 only (libzmq: "No IPv6 support yet").

A datagram of RADIO/DISH is one message: the group's length (one byte), the
group, the body (libzmq ``udp_engine_t::out_event``); the receiver drops a
datagram whose group length overruns it. libzmq reads at most
``MAX_UDP_MSG`` (8192) bytes of a datagram; longer ones are not sent here.
A DGRAM datagram is the body alone, and its peer address travels in a first
frame as ``"a.b.c.d:port"`` with a terminating NUL, as libzmq's raw socket
mode writes it (``sockaddr_to_msg``); on sending, the NUL is optional.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from .address import AddressError
from .pgm import _interface_address

#: libzmq's ``MAX_UDP_MSG``: its buffer for one datagram, either way.
MAX_UDP_MSG: Final = 8192
#: libzmq's ENOCOMPATPROTO (ZMQ_HAUSNUMERO + 52); _transport imports no constants.
ENOCOMPATPROTO: Final = 156384712 + 52


@dataclass(frozen=True)
class UdpAddress:
    """A resolved udp endpoint."""

    #: Where datagrams go (host, port); for a bind, the address given.
    target: tuple[str, int]
    #: Where a receiving socket binds (host, port).
    bind: tuple[str, int]
    multicast: bool
    #: The interface's IPv4 address for multicast ("0.0.0.0": the default).
    interface: str


def _host_port(address: str, what: str) -> tuple[str, int]:
    host, colon, port_s = address.rpartition(":")
    if not colon or not host:
        raise AddressError(errno.EINVAL, f"Invalid udp address {what!r}: expected 'host:port'")
    try:
        port = int(port_s)
    except ValueError:
        raise AddressError(errno.EINVAL, f"Invalid udp port in {what!r}") from None
    if not 0 <= port <= 65535:
        raise AddressError(errno.EINVAL, f"Invalid udp port in {what!r}")
    return host, port


def _resolve(host: str, what: str, bind: bool) -> str:
    if host == "*" and bind:
        return "0.0.0.0"
    try:
        return str(ipaddress.IPv4Address(host))
    except ValueError:
        pass
    if bind:  # libzmq allows a NIC name where it binds
        try:
            return _interface_address(host)
        except AddressError:
            pass
    try:
        return socket.gethostbyname(host)
    except OSError:
        raise AddressError(errno.EINVAL, f"Cannot resolve udp host in {what!r}") from None


def parse_udp(address: str, bind: bool) -> UdpAddress:
    """The part after ``udp://`` for a bind (``bind=True``) or a connect."""
    iface_s, sep, rest = address.rpartition(";")
    has_iface = bool(sep)
    if not has_iface:
        rest = address
    host, port = _host_port(rest, address)
    target = _resolve(host, address, bind)
    multicast = ipaddress.IPv4Address(target).is_multicast
    interface = "0.0.0.0"
    if has_iface:
        interface = "0.0.0.0" if iface_s == "*" else _interface_address(iface_s)
        if ipaddress.IPv4Address(interface).is_multicast:
            raise AddressError(errno.EINVAL, f"A udp interface cannot be multicast: {address!r}")
        if not multicast:
            raise AddressError(
                errno.EINVAL, f"A udp interface needs a multicast group: {address!r}"
            )
        bind_addr = (interface, port)
    elif multicast or not bind:
        bind_addr = ("0.0.0.0", port)
    else:
        bind_addr = (target, port)
    return UdpAddress((target, port), bind_addr, multicast, interface)


# ---------------------------------------------------------------- datagrams
def encode_datagram(group: bytes, body: bytes) -> bytes | None:
    """A RADIO message as one datagram, or None if it cannot be one (a group
    over 255 bytes, or more than MAX_UDP_MSG bytes in all)."""
    if len(group) > 255 or 1 + len(group) + len(body) > MAX_UDP_MSG:
        return None
    return bytes((len(group),)) + group + body


def decode_datagram(data: bytes) -> tuple[bytes, bytes] | None:
    """(group, body) of a datagram; None for one whose group overruns it."""
    if not data:
        return None
    size = data[0]
    if len(data) - 1 < size:
        return None
    return data[1 : 1 + size], data[1 + size :]


def peer_name(addr: tuple[str, int]) -> bytes:
    """A DGRAM peer address as libzmq puts it in the first frame (NUL-ended)."""
    return f"{addr[0]}:{addr[1]}\0".encode()


def parse_peer_name(name: bytes) -> tuple[str, int] | None:
    """The destination of a DGRAM message's first frame (``"a.b.c.d:port"``),
    or None when it is not one (libzmq drops such a message)."""
    if name.endswith(b"\0"):
        name = name[:-1]
    try:
        host, colon, port_s = name.decode("ascii").rpartition(":")
        port = int(port_s)
        ip = str(ipaddress.IPv4Address(host))
    except (UnicodeDecodeError, ValueError):
        return None
    if not colon or not 0 < port <= 65535:
        return None
    return ip, port


# ---------------------------------------------------------------- sockets
def open_udp(
    addr: UdpAddress, *, send: bool, recv: bool, hops: int, loop: bool = True
) -> socket.socket:
    """The non-blocking socket of one udp endpoint, set up as libzmq's
    ``udp_engine_t::plug``: a sender to a group gets the loop, TTL and
    interface; a receiver binds (``*:PORT`` and joins the group for
    multicast, with SO_REUSEADDR/SO_REUSEPORT so several may listen)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        if send and addr.multicast:
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, int(loop))
            if hops > 0:
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, hops)
            if addr.interface != "0.0.0.0":
                iface = socket.inet_aton(addr.interface)
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, iface)
        if recv:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if addr.multicast:
                if hasattr(socket, "SO_REUSEPORT"):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                sock.bind(("0.0.0.0", addr.bind[1]))
                mreq = socket.inet_aton(addr.target[0]) + socket.inet_aton(addr.interface)
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
            else:
                sock.bind(addr.bind)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


# ---------------------------------------------------------------- roles
Buffer = bytes | bytearray | memoryview
Address = tuple[str, int]


class DatagramCodec(Protocol):
    """How one socket type's messages become datagrams and back."""

    #: Does the endpoint send (RADIO, DGRAM) and receive (DISH, DGRAM)?
    sends: bool
    receives: bool

    def encode(self, msg: Sequence[Buffer], target: Address) -> tuple[bytes, Address] | None:
        """The datagram and its destination for a message; None: drop it."""

    def decode(self, data: bytes, peer: Address) -> list[bytes] | None:
        """The message for a datagram from `peer`; None: drop it."""


class GroupCodec:
    """RADIO/DISH: ``[group, body]`` <-> group-length, group, body."""

    def __init__(self, sends: bool, receives: bool) -> None:
        self.sends = sends
        self.receives = receives

    def encode(self, msg: Sequence[Buffer], target: Address) -> tuple[bytes, Address] | None:
        if len(msg) != 2:
            return None
        data = encode_datagram(bytes(msg[0]), bytes(msg[1]))
        return None if data is None else (data, target)

    def decode(self, data: bytes, peer: Address) -> list[bytes] | None:
        parts = decode_datagram(data)
        return None if parts is None else [parts[0], parts[1]]


class RawCodec:
    """DGRAM: ``[b"a.b.c.d:port\\0", body]`` <-> body to/from that address."""

    sends = True
    receives = True

    def encode(self, msg: Sequence[Buffer], target: Address) -> tuple[bytes, Address] | None:
        if len(msg) != 2:
            return None
        dest = parse_peer_name(bytes(msg[0]))
        body = bytes(msg[1])
        if dest is None or len(body) > MAX_UDP_MSG:
            return None
        return body, dest

    def decode(self, data: bytes, peer: Address) -> list[bytes] | None:
        return [peer_name(peer), data]


#: Socket type -> (may bind, may connect, its codec) - libzmq's rules:
#: ``check_protocol`` allows udp for DISH, RADIO and DGRAM, ``bind`` only for
#: DISH and DGRAM; the session makes RADIO send only and DISH receive only.
ROLES: Final[dict[str, tuple[bool, bool, DatagramCodec]]] = {
    "RADIO": (False, True, GroupCodec(sends=True, receives=False)),
    "DISH": (True, True, GroupCodec(sends=False, receives=True)),
    "DGRAM": (True, True, RawCodec()),
}


@dataclass(frozen=True)
class UdpPlan:
    """A resolved endpoint and what its engine does."""

    address: UdpAddress
    codec: DatagramCodec


@dataclass(frozen=True)
class UdpConfig:
    """What a udp endpoint needs of its socket: its type, bind or connect,
    MULTICAST_HOPS, multicast loop (libzmq's MULTICAST_LOOP default: on) and
    the HWMs."""

    socket_type: str
    bind: bool
    hops: int = 1
    loop: bool = True
    sndhwm: int = 1000
    rcvhwm: int = 1000

    def plan(self, address: UdpAddress) -> UdpPlan:
        return UdpPlan(address, role(self.socket_type, self.bind))


def role(socket_type: str, bind: bool) -> DatagramCodec:
    """The codec of `socket_type`, or ENOCOMPATPROTO where libzmq refuses udp."""
    entry = ROLES.get(socket_type)
    if entry is None or not (entry[0] if bind else entry[1]):
        verb = "bind to" if bind else "connect to"
        allowed = sorted(t for t, r in ROLES.items() if (r[0] if bind else r[1]))
        raise AddressError(
            ENOCOMPATPROTO,
            f"{socket_type} sockets cannot {verb} udp:// (only {', '.join(allowed)})",
        )
    return entry[2]
