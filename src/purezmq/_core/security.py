"""Which security mechanism a new connection gets, from the socket's options.

libzmq copies a socket's options when it connects or accepts; so do we:
`mechanism_factory` snapshots the security options into a `Security` and
returns the factory a session calls once per connection with the peer's
address. NULL without a ZAP domain returns None (the session's fast default).

ZAP policy, libzmq 4.3's (``null_mechanism.cpp``, ``plain_server.cpp``,
``curve_server.cpp``), decided per connection because a handler may be bound
or unbound at any time:

=============  ==========================  =================================
mechanism      handler bound               no handler
=============  ==========================  =================================
NULL           ZAP if ZAP_DOMAIN is set    accepted (refused with
                                           ZAP_ENFORCE_DOMAIN and a domain)
PLAIN server   always ZAP                  **refused**
CURVE server   ZAP (unless ENFORCE and     **accepted: any client key**
               no domain)                  (refused with ZAP_ENFORCE_DOMAIN)
clients        never ZAP                   -
=============  ==========================  =================================

"Refused" here means the mechanism still asks and the session, finding no
handler, fails the connection (HANDSHAKE_FAILED_NO_DETAIL, EFAULT).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from purezmq import _crypto
from purezmq._zmtp.mechanisms.base import Mechanism
from purezmq._zmtp.mechanisms.curve import CurveClient, CurveServer
from purezmq._zmtp.mechanisms.null import NullMechanism
from purezmq._zmtp.mechanisms.plain import PlainClient, PlainServer
from purezmq._zmtp.mechanisms.zap import ZapConfig
from purezmq.constants import SecurityMechanism
from purezmq.constants import SocketOption as O

from .zap import handler_bound

if TYPE_CHECKING:
    from purezmq._crypto import NaclCrypto

    from .context_core import ContextCore
    from .options import SocketOptions

#: Makes the mechanism of one connection; called with the peer's address.
MechanismFactory = Callable[[str], Mechanism]


@dataclass(frozen=True, slots=True, repr=False)
class Security:
    """The security options of a socket at connect/accept time."""

    mechanism: SecurityMechanism
    as_server: bool
    zap_domain: bytes
    zap_enforce_domain: bool
    routing_id: bytes
    plain_username: bytes = b""
    plain_password: bytes = b""
    curve_public: bytes = b""
    curve_secret: bytes = b""
    curve_server: bytes = b""

    def __repr__(self) -> str:  # keys and passwords stay out of logs
        side = "server" if self.as_server else "client"
        return f"<Security {self.mechanism.name} {side} domain={self.zap_domain!r}>"

    @classmethod
    def from_options(cls, options: SocketOptions) -> Security:
        value = options.value
        return cls(
            mechanism=SecurityMechanism(options.mechanism),
            as_server=bool(options.as_server),
            zap_domain=bytes(value(O.ZAP_DOMAIN)),
            zap_enforce_domain=bool(value(O.ZAP_ENFORCE_DOMAIN)),
            routing_id=bytes(value(O.ROUTING_ID)),
            plain_username=bytes(value(O.PLAIN_USERNAME)),
            plain_password=bytes(value(O.PLAIN_PASSWORD)),
            curve_public=bytes(value(O.CURVE_PUBLICKEY)),
            curve_secret=bytes(value(O.CURVE_SECRETKEY)),
            curve_server=bytes(value(O.CURVE_SERVERKEY)),
        )


def check_available(options: SocketOptions) -> None:
    """Raise ZMQError(ENOTSUP) now if the options ask for CURVE without PyNaCl
    (bind calls this: its factory only runs when a peer connects)."""
    if options.mechanism == SecurityMechanism.CURVE:
        _crypto.require()


def mechanism_factory(options: SocketOptions, ctx: ContextCore) -> MechanismFactory | None:
    """The factory for this socket's next connections, or None for plain NULL.

    Raises ZMQError(ENOTSUP) naming the ``purezmq[curve]`` extra when CURVE
    is asked for without PyNaCl.
    """
    if options.mechanism == SecurityMechanism.NULL and not options.value(O.ZAP_DOMAIN):
        return None  # the usual case, asked at every connect(): decided before building
    security = Security.from_options(options)
    crypto = _crypto.require() if security.mechanism == SecurityMechanism.CURVE else None
    curve_public = b""
    if crypto is not None and security.as_server:
        curve_public = crypto.public_key(security.curve_secret)  # once, not per connection
    return functools.partial(_make, security, ctx, crypto, curve_public)


def _make(
    security: Security,
    ctx: ContextCore,
    crypto: NaclCrypto | None,
    curve_public: bytes,
    peer_address: str,
) -> Mechanism:
    """The mechanism of one new connection (driver thread)."""
    kind = security.mechanism
    zap = ZapConfig(
        domain=security.zap_domain,
        address=peer_address.encode("utf-8", "surrogateescape"),
        identity=security.routing_id,
    )
    if kind == SecurityMechanism.PLAIN:
        if security.as_server:
            return PlainServer(zap=zap)
        return PlainClient(username=security.plain_username, password=security.plain_password)
    if kind == SecurityMechanism.CURVE:
        assert crypto is not None  # mechanism_factory required it for CURVE
        if security.as_server:
            # libzmq: ZAP when a domain is set or ENFORCE is off; a missing
            # handler then refuses only with ENFORCE (else any key is accepted).
            enforce = security.zap_enforce_domain
            ask = bool(security.zap_domain) if enforce else handler_bound(ctx)
            return CurveServer(
                crypto=crypto,
                secret_key=security.curve_secret,
                public_key=curve_public,
                zap=zap if ask else None,
            )
        return CurveClient(
            crypto=crypto,
            public_key=security.curve_public,
            secret_key=security.curve_secret,
            server_key=security.curve_server,
        )
    # NULL with a ZAP domain.
    ask = bool(security.zap_domain) and (security.zap_enforce_domain or handler_bound(ctx))
    return NullMechanism(zap=zap if ask else None)
