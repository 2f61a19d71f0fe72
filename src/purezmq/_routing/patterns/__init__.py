"""Socket types as patterns, keyed by their ZMTP Socket-Type name.

Each class composes the routing strategies (`..lb`, `..fq`, `..dist`,
`..trie`, `..routing_table`) behind the hooks of `.base.Pattern`; the socket
layer picks one by name and never branches on the type itself.
"""

from __future__ import annotations

from ._draft import Addressed
from .base import Pattern
from .channel import Channel
from .client import Client
from .dealer import Dealer
from .dgram import Dgram
from .dish import Dish
from .pair import Pair
from .pub import Pub
from .pull import Pull
from .push import Push
from .radio import Radio
from .rep import Rep
from .req import Req
from .router import Router
from .scatter import Gather, Scatter
from .server import Peer, Server
from .stream import Stream
from .sub import Sub
from .xpub import XPub
from .xsub import XSub

#: Socket-Type name -> pattern class (instantiate with no arguments).
PATTERNS: dict[str, type[Pattern]] = {
    cls.socket_type: cls
    for cls in (
        *(Pair, Pub, Sub, Req, Rep, Dealer, Router, Pull, Push, XPub, XSub, Stream),
        # libzmq's draft types (always available: purezmq has no build switch)
        *(Server, Client, Radio, Dish, Gather, Scatter, Dgram, Peer, Channel),
    )
}

__all__ = [
    "PATTERNS",
    "Addressed",
    "Channel",
    "Client",
    "Dealer",
    "Dgram",
    "Dish",
    "Gather",
    "Pair",
    "Pattern",
    "Peer",
    "Pub",
    "Pull",
    "Push",
    "Radio",
    "Rep",
    "Req",
    "Router",
    "Scatter",
    "Server",
    "Stream",
    "Sub",
    "XPub",
    "XSub",
]
