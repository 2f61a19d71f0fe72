"""The PGM wire format (RFC 3208 section 8 and 9), as OpenPGM writes it.

Every packet starts with the 16-byte header::

    source port(2) destination port(2) type(1) options(1) checksum(2)
    global source id(6) TSDU length(2)

The checksum is the Internet checksum of the whole PGM packet; 0 means "none"
(allowed except for ODATA and RDATA, which OpenPGM rejects without one) and a
computed 0 is sent as 0xFFFF. Downstream packets (SPM, ODATA, RDATA, NCF)
carry the source's transport-session id (GSI and source port) in the GSI and
source-port fields; upstream ones (NAK, SPMR) carry the source's GSI with
the ports swapped.

Options follow the type-specific header when the header's OPT_PRESENT bit is
set: first OPT_LENGTH (type 0, length 4, the total length of all options),
then options of ``type(1) length(1) flags(1) body``, the last one marked by
the END bit of its type. The body of OPT_FRAGMENT and OPT_NAK_LIST starts with
one reserved octet (OpenPGM's packed structures), so OPT_FRAGMENT is 16 bytes.

`parse` accepts any byte string and either returns a `Packet` or raises
`PgmError`: nothing else escapes, whatever the network sends.
"""

from __future__ import annotations

import ipaddress
import struct
from typing import Final

# Packet types (RFC 3208 8).
SPM: Final = 0x00
POLL: Final = 0x01
POLR: Final = 0x02
ODATA: Final = 0x04
RDATA: Final = 0x05
NAK: Final = 0x08
NNAK: Final = 0x09
NCF: Final = 0x0A
SPMR: Final = 0x0C

# Header option bits.
OPT_PRESENT: Final = 0x01
OPT_NETWORK: Final = 0x02

# Option types.
OPT_LENGTH: Final = 0x00
OPT_FRAGMENT: Final = 0x01
OPT_NAK_LIST: Final = 0x02
OPT_END: Final = 0x80
OPT_MASK: Final = 0x7F

AFI_IP: Final = 1
AFI_IP6: Final = 2

HEADER: Final = struct.Struct("!HHBBH6sH")
HEADER_SIZE: Final = 16
DATA_HEADER: Final = struct.Struct("!II")
SPM_HEADER: Final = struct.Struct("!III")
FRAGMENT_OPTION_SIZE: Final = 16
#: OPT_LENGTH then OPT_FRAGMENT: what a fragment carries before its data.
FRAGMENT_OVERHEAD: Final = 4 + FRAGMENT_OPTION_SIZE
#: Most sequence numbers one OPT_NAK_LIST carries (RFC 3208 9.4.1: 62).
NAK_LIST_MAX: Final = 62

SQN_MASK: Final = 0xFFFFFFFF


class PgmError(Exception):
    """A malformed PGM packet: dropped, never fatal to the transport."""


def sqn_diff(a: int, b: int) -> int:
    """``a - b`` in sequence-number space (32-bit serial arithmetic)."""
    d = (a - b) & SQN_MASK
    return d - 0x100000000 if d >= 0x80000000 else d


def checksum(data: bytes | bytearray | memoryview) -> int:
    """The Internet checksum (RFC 1071) as PGM sends it: 0 becomes 0xFFFF,
    because 0 in the header means "no checksum"."""
    buf = bytes(data)
    if len(buf) & 1:
        buf += b"\0"
    total = sum(struct.unpack(f"!{len(buf) // 2}H", buf))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    result = ~total & 0xFFFF
    return result if result else 0xFFFF


class Fragment:
    """OPT_FRAGMENT: this TSDU is bytes `offset`.. of the APDU of `length`
    bytes whose first fragment has sequence number `first`."""

    __slots__ = ("first", "length", "offset")

    def __init__(self, first: int, offset: int, length: int) -> None:
        self.first = first
        self.offset = offset
        self.length = length

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fragment) and (self.first, self.offset, self.length) == (
            other.first,
            other.offset,
            other.length,
        )

    def __hash__(self) -> int:
        return hash((self.first, self.offset, self.length))

    def __repr__(self) -> str:
        return f"Fragment(first={self.first}, offset={self.offset}, length={self.length})"


class Packet:
    """One parsed PGM packet. Which fields mean something depends on `kind`:

    - SPM: `sqn` (SPM sequence), `trail`, `lead`, `nla` (the source's address);
    - ODATA/RDATA: `sqn`, `trail`, `payload`, `fragment`;
    - NAK/NCF/NNAK: `sqn` and `nak_list` (every sequence number asked for,
      `sqn` first), `nla` (the source's address), `group`;
    - SPMR and anything else: the header only.
    """

    __slots__ = (
        "dport",
        "fragment",
        "group",
        "gsi",
        "kind",
        "lead",
        "nak_list",
        "nla",
        "payload",
        "sport",
        "sqn",
        "trail",
    )

    def __init__(self, kind: int, sport: int, dport: int, gsi: bytes) -> None:
        self.kind = kind
        self.sport = sport
        self.dport = dport
        self.gsi = gsi
        self.sqn = 0
        self.trail = 0
        self.lead = 0
        self.nla = ""
        self.group = ""
        self.payload = b""
        self.fragment: Fragment | None = None
        self.nak_list: list[int] = []

    def __repr__(self) -> str:
        return f"Packet(kind={self.kind:#x}, sqn={self.sqn}, gsi={self.gsi.hex()})"


# ---------------------------------------------------------------- encoding
def _nla(address: str) -> bytes:
    ip = ipaddress.ip_address(address)
    afi = AFI_IP if ip.version == 4 else AFI_IP6
    return struct.pack("!HH", afi, 0) + ip.packed


def _finish(header: bytearray) -> bytes:
    """Fill in the checksum (bytes 6-7) of a complete packet."""
    header[6:8] = b"\0\0"
    header[6:8] = checksum(header).to_bytes(2, "big")
    return bytes(header)


def _header(kind: int, sport: int, dport: int, gsi: bytes, options: int, tsdu: int) -> bytes:
    return HEADER.pack(sport, dport, kind, options, 0, gsi, tsdu)


def encode_data(
    gsi: bytes,
    sport: int,
    dport: int,
    sqn: int,
    trail: int,
    payload: bytes,
    fragment: Fragment | None = None,
    *,
    repair: bool = False,
) -> bytes:
    """An ODATA packet (RDATA with `repair`), with OPT_FRAGMENT when given."""
    opts = b""
    flags = 0
    if fragment is not None:
        flags = OPT_PRESENT
        opts = struct.pack("!BBH", OPT_LENGTH, 4, FRAGMENT_OVERHEAD) + struct.pack(
            "!BBBBIII",
            OPT_FRAGMENT | OPT_END,
            FRAGMENT_OPTION_SIZE,
            0,
            0,
            fragment.first,
            fragment.offset,
            fragment.length,
        )
    kind = RDATA if repair else ODATA
    packet = bytearray(_header(kind, sport, dport, gsi, flags, len(payload)))
    packet += DATA_HEADER.pack(sqn & SQN_MASK, trail & SQN_MASK)
    packet += opts
    packet += payload
    return _finish(packet)


def encode_spm(
    gsi: bytes, sport: int, dport: int, spm_sqn: int, trail: int, lead: int, nla: str
) -> bytes:
    """An SPM: the source's window (trail..lead) and its address for NAKs."""
    packet = bytearray(_header(SPM, sport, dport, gsi, 0, 0))
    packet += SPM_HEADER.pack(spm_sqn & SQN_MASK, trail & SQN_MASK, lead & SQN_MASK)
    packet += _nla(nla)
    return _finish(packet)


def encode_nak(
    gsi: bytes,
    sport: int,
    dport: int,
    sqns: list[int],
    source_nla: str,
    group: str,
    *,
    kind: int = NAK,
) -> bytes:
    """A NAK (or NCF with `kind`) for `sqns` (1 to 63 of them).

    `sport`/`dport` are as the packet travels: for a NAK, the receiver's data
    port and then the source's TSI port; for an NCF, the other way round."""
    if not 1 <= len(sqns) <= NAK_LIST_MAX + 1:
        raise ValueError(f"a NAK carries 1 to {NAK_LIST_MAX + 1} sequence numbers")
    flags = OPT_NETWORK if kind == NCF else 0
    rest = sqns[1:]
    opts = b""
    if rest:
        flags |= OPT_PRESENT
        body_len = 4 + 4 * len(rest)
        opts = struct.pack("!BBH", OPT_LENGTH, 4, 4 + body_len) + struct.pack(
            f"!BBBB{len(rest)}I", OPT_NAK_LIST | OPT_END, body_len, 0, 0, *rest
        )
    packet = bytearray(_header(kind, sport, dport, gsi, flags, 0))
    packet += struct.pack("!I", sqns[0] & SQN_MASK)
    packet += _nla(source_nla) + _nla(group)
    packet += opts
    return _finish(packet)


def encode_spmr(gsi: bytes, sport: int, dport: int) -> bytes:
    """An SPMR: a receiver asking the source (TSI port `dport`) for an SPM."""
    return _finish(bytearray(_header(SPMR, sport, dport, gsi, 0, 0)))


# ---------------------------------------------------------------- parsing
def _parse_nla(data: bytes, pos: int) -> tuple[str, int]:
    if len(data) < pos + 4:
        raise PgmError("truncated NLA")
    afi = int.from_bytes(data[pos : pos + 2], "big")
    size = 4 if afi == AFI_IP else 16 if afi == AFI_IP6 else 0
    if not size:
        raise PgmError(f"unknown NLA address family {afi}")
    end = pos + 4 + size
    if len(data) < end:
        raise PgmError("truncated NLA")
    return str(ipaddress.ip_address(data[pos + 4 : end])), end


def _parse_options(data: bytes, pos: int, packet: Packet) -> int:
    """Read the options at `pos`; return the offset after them."""
    if len(data) < pos + 4:
        raise PgmError("truncated options")
    if data[pos] & OPT_MASK != OPT_LENGTH or data[pos + 1] != 4:
        raise PgmError("options do not start with OPT_LENGTH")
    total = int.from_bytes(data[pos + 2 : pos + 4], "big")
    end = pos + total
    if total < 4 or end > len(data):
        raise PgmError(f"bad options length {total}")
    p = pos + 4
    last = False
    while not last:
        if p + 3 > end:
            raise PgmError("options overrun OPT_LENGTH")
        otype, olen = data[p], data[p + 1]
        if olen < 3 or p + olen > end:
            raise PgmError(f"bad option length {olen}")
        last = bool(otype & OPT_END)
        otype &= OPT_MASK
        if otype == OPT_FRAGMENT:
            if olen != FRAGMENT_OPTION_SIZE:
                raise PgmError("bad OPT_FRAGMENT length")
            first, offset, length = struct.unpack_from("!III", data, p + 4)
            packet.fragment = Fragment(first, offset, length)
        elif otype == OPT_NAK_LIST:
            count = (olen - 4) // 4
            if olen < 4 or (olen - 4) % 4:
                raise PgmError("bad OPT_NAK_LIST length")
            packet.nak_list.extend(struct.unpack_from(f"!{count}I", data, p + 4))
        p += olen
    if p != end:
        raise PgmError("options shorter than OPT_LENGTH says")
    return end


def parse(data: bytes) -> Packet:
    """One PGM packet (no IP or UDP header), checksum verified."""
    if len(data) < HEADER_SIZE:
        raise PgmError(f"packet of {len(data)} bytes is shorter than a PGM header")
    sport, dport, kind, flags, csum, gsi, tsdu = HEADER.unpack_from(data)
    kind &= 0x0F  # the high nibble is the version (0)
    if csum:
        if checksum(data[:6] + b"\0\0" + data[8:]) != csum:
            raise PgmError("checksum mismatch")
    elif kind in (ODATA, RDATA):
        raise PgmError("ODATA/RDATA without a checksum")
    packet = Packet(kind, sport, dport, gsi)
    pos = HEADER_SIZE
    if kind in (ODATA, RDATA):
        if len(data) < pos + 8:
            raise PgmError("truncated data header")
        packet.sqn, packet.trail = DATA_HEADER.unpack_from(data, pos)
        pos += 8
        if flags & OPT_PRESENT:
            pos = _parse_options(data, pos, packet)
        if len(data) - pos != tsdu:
            raise PgmError(f"TSDU length {tsdu} but {len(data) - pos} bytes of data")
        packet.payload = data[pos:]
        frag = packet.fragment
        if frag is not None and (
            frag.offset + tsdu > frag.length or sqn_diff(packet.sqn, frag.first) < 0
        ):
            raise PgmError("fragment outside its APDU")
    elif kind == SPM:
        if len(data) < pos + 12:
            raise PgmError("truncated SPM")
        packet.sqn, packet.trail, packet.lead = SPM_HEADER.unpack_from(data, pos)
        packet.nla, pos = _parse_nla(data, pos + 12)
        if flags & OPT_PRESENT:
            _parse_options(data, pos, packet)
    elif kind in (NAK, NCF, NNAK):
        if len(data) < pos + 4:
            raise PgmError("truncated NAK")
        packet.nak_list.append(int.from_bytes(data[pos : pos + 4], "big"))
        packet.sqn = packet.nak_list[0]
        packet.nla, pos = _parse_nla(data, pos + 4)
        packet.group, pos = _parse_nla(data, pos)
        if flags & OPT_PRESENT:
            _parse_options(data, pos, packet)
        if packet.fragment is not None:
            raise PgmError("OPT_FRAGMENT in a NAK")
    return packet


def strip_ip_header(datagram: bytes) -> bytes:
    """The PGM packet inside an IPv4 datagram read from a raw socket."""
    if len(datagram) < 20 or datagram[0] >> 4 != 4:
        raise PgmError("not an IPv4 datagram")
    ihl = (datagram[0] & 0x0F) * 4
    if ihl < 20 or len(datagram) < ihl:
        raise PgmError("bad IPv4 header length")
    return datagram[ihl:]
