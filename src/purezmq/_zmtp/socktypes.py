"""Socket types as ZMTP sees them: names, legal peers, READY properties.

Compatibility is data, not code (RFC 37 "The Socket-Type Property", which
libzmq enforces in ``mechanism_t::check_socket_type``). The draft types
are patterns too (`purezmq._routing.patterns`).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

#: libzmq's socket types, indexed by their ``ZMQ_*`` number.
SOCKET_TYPES: Final = (
    "PAIR", "PUB", "SUB", "REQ", "REP", "DEALER", "ROUTER",
    "PULL", "PUSH", "XPUB", "XSUB", "STREAM",
)  # fmt: skip
#: Draft socket types (numbers 12-20 in libzmq's draft API).
DRAFT_BASE: Final = 12
DRAFT_SOCKET_TYPES: Final = (
    "SERVER", "CLIENT", "RADIO", "DISH", "GATHER", "SCATTER",
    "DGRAM", "PEER", "CHANNEL",
)  # fmt: skip

_PEERS: Final = {
    "REQ": ("REP", "ROUTER"),
    "REP": ("REQ", "DEALER"),
    "DEALER": ("REP", "DEALER", "ROUTER"),
    "ROUTER": ("REQ", "DEALER", "ROUTER"),
    "PUB": ("SUB", "XSUB"),
    "XPUB": ("SUB", "XSUB"),
    "SUB": ("PUB", "XPUB"),
    "XSUB": ("PUB", "XPUB"),
    "PUSH": ("PULL",),
    "PULL": ("PUSH",),
    "PAIR": ("PAIR",),
    "STREAM": (),  # raw TCP: never speaks ZMTP
    "SERVER": ("CLIENT",),
    "CLIENT": ("SERVER",),
    "RADIO": ("DISH",),
    "DISH": ("RADIO",),
    "GATHER": ("SCATTER",),
    "SCATTER": ("GATHER",),
    "DGRAM": ("DGRAM",),
    "PEER": ("PEER",),
    "CHANNEL": ("CHANNEL",),
}

#: socket type -> the peer socket types it may talk to.
LEGAL_PEERS: Final = MappingProxyType({k: frozenset(v) for k, v in _PEERS.items()})

#: Types whose READY carries the Identity property (libzmq
#: ``mechanism_t::add_basic_properties``; the value may be empty).
SENDS_IDENTITY: Final = frozenset({"REQ", "DEALER", "ROUTER"})

#: Types that send subscriptions upstream (0x01/0x00 messages or, to ZMTP 3.1
#: peers, SUBSCRIBE/CANCEL commands).
SUBSCRIBERS: Final = frozenset({"SUB", "XSUB"})

#: Types that receive subscriptions; incoming SUBSCRIBE/CANCEL commands are
#: handed to them as 0x01/0x00 messages (the form the patterns see).
PUBLISHERS: Final = frozenset({"PUB", "XPUB"})

#: Types whose messages to peers are all JOIN/LEAVE command bodies
#: (``[b"\x04JOIN" + group]``), sent as commands (libzmq ``dish_session_t``;
#: to ZMTP 3.0 peers too: libzmq has no other form).
GROUP_JOINERS: Final = frozenset({"DISH"})

#: Types that take JOIN/LEAVE commands, handed to them as one-frame messages
#: holding the command body (libzmq ``radio_session_t``).
GROUP_PUBLISHERS: Final = frozenset({"RADIO"})


def is_known(socket_type: str) -> bool:
    """True for every name above (stable or draft)."""
    return socket_type in LEGAL_PEERS


def compatible(ours: str, peer: str) -> bool:
    """May a socket of type `ours` talk to a peer announcing `peer`?

    Exact, case-sensitive match as libzmq does (``strequals``).
    """
    peers = LEGAL_PEERS.get(ours)
    return peers is not None and peer in peers


def type_number(socket_type: str) -> int:
    """libzmq's ``ZMQ_*`` number of a type: the socket-type octet of a
    ZMTP/2.0 greeting (RFC 15; libzmq sends the number of XPUB and XSUB too)."""
    if socket_type in SOCKET_TYPES:
        return SOCKET_TYPES.index(socket_type)
    return DRAFT_BASE + DRAFT_SOCKET_TYPES.index(socket_type)


def type_name(number: int) -> str:
    """The type a ZMTP/2.0 socket-type octet names; "" for an unknown number."""
    if 0 <= number < len(SOCKET_TYPES):
        return SOCKET_TYPES[number]
    if 0 <= number - DRAFT_BASE < len(DRAFT_SOCKET_TYPES):
        return DRAFT_SOCKET_TYPES[number - DRAFT_BASE]
    return ""


def sends_identity(socket_type: str) -> bool:
    """Does this type put an Identity property in its READY?"""
    return socket_type in SENDS_IDENTITY
