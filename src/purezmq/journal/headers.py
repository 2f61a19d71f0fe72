"""Headers: the connection properties a capture records with each message (opt-in).

A ZeroMQ message has no headers, but every received message carries the
properties of the connection it came from: what libzmq's ``zmq_msg_gets``
and pyzmq's ``Frame.get`` return - "Socket-Type", "Identity" (REQ, DEALER and
ROUTER peers send it), "Peer-Address", "User-Id" (from the ZAP handler) and
the application's "X-..." metadata (ZMQ_METADATA) - and a ROUTER capture
strips each message's routing id. A capture with ``headers`` keeps them as
Kafka-style (key, value) pairs, which the Spark source gives as its
``headers`` column (includeHeaders).

Properties travel on received Frames only, and can be asked for by name
only (there is no call that lists them), so the capture asks for a list of
names on every message. Two names are never asked where the capture itself
rules them out: "Routing-Id" on a socket that is not a ROUTER (it is not a
property there), and "User-Id" on a socket without ZAP (only a ZAP handler
sets it; any "User-Id" a peer declared itself would be unauthenticated).
"""

from __future__ import annotations

from typing import Any

import purezmq as zmq

from .schema import Headers

#: Every name the defaults may hold (the defaults of a ROUTER capture).
DEFAULT_HEADERS = ("Socket-Type", "Identity", "Routing-Id", "Peer-Address", "User-Id")
ROUTING_ID = "Routing-Id"
USER_ID = "User-Id"
_NOBLOCK = int(zmq.NOBLOCK)  # see capture._NOBLOCK


def default_headers(socket_type: str) -> tuple[str, ...]:
    """What ``headers=True`` records for a capture of `socket_type`.

    A ROUTER capture's peers (DEALER, REQ, ROUTER) send their Identity and
    each message comes with a routing id; PULL and SUB captures' peers
    (PUSH, PUB) send neither, so asking for them would only cost time.
    """
    if socket_type.upper() == "ROUTER":
        return DEFAULT_HEADERS
    return tuple(n for n in DEFAULT_HEADERS if n not in ("Identity", ROUTING_ID))


def has_zap(sock: Any) -> bool:
    """Whether `sock` authenticates its peers through ZAP (so User-Id can exist)."""
    return bool(
        sock.getsockopt(zmq.PLAIN_SERVER)
        or sock.getsockopt(zmq.CURVE_SERVER)
        or sock.getsockopt(zmq.ZAP_DOMAIN)
    )


def names_to_ask(names: tuple[str, ...], router: bool, zap: bool) -> tuple[str, ...]:
    """`names` without those the capture's own socket rules out (see the module doc).

    Names are matched case-insensitively, as libzmq does, and kept as given.
    """
    out = []
    for name in names:
        low = name.lower()
        if (low == ROUTING_ID.lower() and not router) or (low == USER_ID.lower() and not zap):
            continue
        out.append(ROUTING_ID if low == ROUTING_ID.lower() else name)
    return tuple(out)


def recv_with_headers(
    sock: Any, limit: int, names: tuple[str, ...], router: bool
) -> tuple[list[list[bytes]], list[Headers | None]]:
    """Up to `limit` queued messages, and each one's properties named in `names`.

    The first frame of each message is received as a Frame (the properties
    are there) and the rest as bytes. On a ROUTER socket that first frame is
    the routing id, recorded as "Routing-Id". A message whose connection has
    none of the properties gets None: no headers, which Spark shows as null,
    as Kafka's source does for a record without headers.
    """
    recv, recv_rest = sock.recv, sock.recv_multipart
    msgs: list[list[bytes]] = []
    headers: list[Headers | None] = []
    try:
        for _ in range(limit):
            first = recv(_NOBLOCK, copy=False)
            data = first.bytes
            msgs.append([data, *recv_rest(_NOBLOCK)] if first.more else [data])
            headers.append(_properties(first, names, data if router else None))
    except zmq.Again:
        pass
    return msgs, headers


def _properties(frame: Any, names: tuple[str, ...], routing_id: bytes | None) -> Headers | None:
    out = []
    for name in names:
        if name == ROUTING_ID:  # names_to_ask spelt it so
            if routing_id is not None:
                out.append((name, routing_id))
            continue
        try:
            value = frame.get(name)
        except zmq.ZMQError:
            continue  # this connection does not have it
        out.append((name, value.encode() if isinstance(value, str) else bytes(value)))
    return tuple(out) or None
