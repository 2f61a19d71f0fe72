"""pgm:// and epgm:// endpoints: parsing, and the OS sockets they use.

libzmq's syntax is ``pgm://INTERFACE;GROUP:PORT``: the interface by name
(``eth0``) or by its IPv4 address, the multicast group, and the PGM data
port (for epgm also the UDP port of both the multicast data and the
unicast NAKs, as libzmq sets OpenPGM's encapsulation ports). IPv4 only.

``epgm`` carries PGM in UDP; ``pgm`` is PGM straight over IP (protocol
113), which needs a raw socket: root or CAP_NET_RAW (EPERM otherwise, as
OpenPGM reports it).
"""

from __future__ import annotations

import errno
import fcntl
import ipaddress
import socket
import struct
from dataclasses import dataclass

from .address import AddressError

IPPROTO_PGM = 113
_SIOCGIFADDR = 0x8915


@dataclass(frozen=True)
class PgmAddress:
    """A parsed multicast endpoint."""

    udp: bool  # epgm
    interface: str  # the interface's IPv4 address
    group: str
    port: int


@dataclass(frozen=True)
class MulticastConfig:
    """The socket options a PGM transport applies (libzmq's meaning):
    RATE in kbit/s, RECOVERY_IVL in ms, hops, TPDU size, kernel buffer sizes
    (-1 leaves the OS default), HWMs, MAXMSGSIZE."""

    sender: bool
    rate_kbps: int = 100
    recovery_ivl_ms: int = 10000
    hops: int = 1
    max_tpdu: int = 1500
    sndbuf: int = -1
    rcvbuf: int = -1
    sndhwm: int = 1000
    rcvhwm: int = 1000
    max_msg_size: int = -1


def _interface_address(name: str) -> str:
    try:
        return str(ipaddress.IPv4Address(name))
    except ValueError:
        pass
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        packed = struct.pack("256s", name.encode()[:15])
        info = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, packed)
    except OSError:
        raise AddressError(
            errno.ENODEV, f"No such interface (or no IPv4 address): {name!r}"
        ) from None
    finally:
        probe.close()
    return socket.inet_ntoa(info[20:24])


def parse_pgm(protocol: str, address: str) -> PgmAddress:
    """``INTERFACE;GROUP:PORT`` as libzmq takes it (EINVAL if malformed,
    ENODEV for an unknown interface)."""
    iface, sep, rest = address.partition(";")
    group, colon, port_s = rest.rpartition(":")
    if not sep or not iface or not colon or not group:
        raise AddressError(
            errno.EINVAL,
            f"Invalid {protocol} address {address!r}: expected 'interface;group:port'",
        )
    try:
        port = int(port_s)
        ip = ipaddress.IPv4Address(group)
    except ValueError:
        raise AddressError(
            errno.EINVAL, f"Invalid {protocol} group or port in {address!r}"
        ) from None
    if not ip.is_multicast or not 0 < port <= 65535:
        raise AddressError(
            errno.EINVAL, f"Invalid {protocol} address {address!r}: not a multicast group:port"
        )
    return PgmAddress(protocol == "epgm", _interface_address(iface), str(ip), port)


def open_socket(addr: PgmAddress, config: MulticastConfig) -> socket.socket:
    """The one non-blocking OS socket of a transport, joined to the group:
    a UDP socket bound to the port (epgm) or a raw IP socket of protocol 113
    (pgm), sending through the interface with MULTICAST_HOPS and no loop."""
    if addr.udp:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, IPPROTO_PGM)
    try:
        if addr.udp:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("0.0.0.0", addr.port))
        if config.sndbuf >= 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, config.sndbuf)
        if config.rcvbuf >= 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, config.rcvbuf)
        iface = socket.inet_aton(addr.interface)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, iface)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, config.hops)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        mreq = socket.inet_aton(addr.group) + iface
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock
