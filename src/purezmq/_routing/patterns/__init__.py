"""Socket types as patterns, keyed by their ZMTP Socket-Type name.

Each class composes the routing strategies (`..lb`, `..fq`, `..dist`,
`..trie`, `..routing_table`) behind the hooks of `.base.Pattern`; the socket
layer picks one by name and never branches on the type itself.
"""

from __future__ import annotations

from .base import Pattern
from .dealer import Dealer
from .pair import Pair
from .pub import Pub
from .pull import Pull
from .push import Push
from .rep import Rep
from .req import Req
from .router import Router
from .stream import Stream
from .sub import Sub
from .xpub import XPub
from .xsub import XSub

#: Socket-Type name -> pattern class (instantiate with no arguments).
PATTERNS: dict[str, type[Pattern]] = {
    cls.socket_type: cls
    for cls in (Pair, Pub, Sub, Req, Rep, Dealer, Router, Pull, Push, XPub, XSub, Stream)
}

__all__ = [
    "PATTERNS",
    "Dealer",
    "Pair",
    "Pattern",
    "Pub",
    "Pull",
    "Push",
    "Rep",
    "Req",
    "Router",
    "Stream",
    "Sub",
    "XPub",
    "XSub",
]
