"""PUB: XPUB without the application side (RFC 29, libzmq src/pub.cpp).

Subscriptions from peers are applied (never shown), other messages from
peers are ignored, and receiving is ENOTSUP.

Options: XPUB's, because libzmq's PUB is an XPUB and accepts them all
(its documentation lists ``xpub_nodrop`` and ``invert_matching`` for PUB).
The verbose options then change nothing visible, ``xpub_welcome_msg`` is
sent, and ``xpub_manual`` leaves subscriptions unapplied (libzmq then queues
them forever for a recv that PUB cannot do; here they are not queued).
"""

from __future__ import annotations

from purezmq._routing.errors import NotSupportedError
from purezmq._routing.pipe import Msg

from .xpub import XPub


class Pub(XPub):
    """XPUB that neither reports subscriptions nor receives."""

    socket_type = "PUB"
    passes_to_user = False

    def recv(self) -> Msg | None:
        raise NotSupportedError("PUB sockets cannot receive")

    def has_in(self) -> bool:
        return False
