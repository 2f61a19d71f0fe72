"""ZAP (RFC 27) request/reply codec for mechanisms.

A mechanism that authenticates its peer builds a request with
`zap_request_frames`; the socket layer carries it to the handler at
``inproc://zeromq.zap.01`` and hands the reply frames back through
``Mechanism.zap_reply``, which checks them with `parse_zap_reply`.

Frames are the RFC 27 frames *without* the empty envelope delimiter that
libzmq puts in front on its REQ-style pipe; a reply that still carries it
(7 frames, first empty) is accepted too. Checks and their libzmq codes
follow ``zap_client.cpp``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from purezmq._zmtp.errors import (
    ZAP_BAD_REQUEST_ID,
    ZAP_BAD_VERSION,
    ZAP_INVALID_METADATA,
    ZAP_INVALID_STATUS_CODE,
    ZAP_MALFORMED_REPLY,
    ProtocolError,
)
from purezmq._zmtp.metadata import Metadata, parse_properties

ZAP_VERSION: Final = b"1.0"
#: libzmq always uses request id "1" (one request per connection).
ZAP_REQUEST_ID: Final = b"1"
_REPLY_FRAMES: Final = 6


@dataclass(frozen=True, slots=True)
class ZapConfig:
    """What the socket layer knows for a ZAP request.

    Give a mechanism a ZapConfig only when a ZAP domain is set *and* a ZAP
    handler is bound (libzmq: NULL then asks ZAP; without a handler it lets
    the peer in, see tests/test_security_no_zap_handler.cpp).
    """

    domain: bytes
    #: the peer's address as libzmq reports it (IP for tcp, "" for ipc)
    address: bytes = b""
    #: our socket's routing id (libzmq sends options.routing_id)
    identity: bytes = b""


@dataclass(frozen=True, slots=True)
class ZapReply:
    """A checked ZAP reply."""

    status_code: int
    status_text: bytes
    user_id: bytes
    metadata: Metadata = field(default_factory=Metadata)


def zap_request_frames(
    config: ZapConfig, mechanism: bytes, credentials: Sequence[bytes] = ()
) -> list[bytes]:
    """RFC 27 request: version, request id, domain, address, identity,
    mechanism, credentials..."""
    return [
        ZAP_VERSION,
        ZAP_REQUEST_ID,
        config.domain,
        config.address,
        config.identity,
        mechanism,
        *credentials,
    ]


def parse_zap_reply(frames: Sequence[bytes]) -> ZapReply:
    """Check a reply: version, request id, status code, text, user id, metadata."""
    if len(frames) == _REPLY_FRAMES + 1 and frames[0] == b"":
        frames = frames[1:]
    if len(frames) != _REPLY_FRAMES:
        raise ProtocolError(
            f"ZAP reply has {len(frames)} frames, expected {_REPLY_FRAMES}",
            code=ZAP_MALFORMED_REPLY,
        )
    version, request_id, status, text, user_id, metadata = (bytes(f) for f in frames)
    if version != ZAP_VERSION:
        raise ProtocolError(f"ZAP reply version {version!r}", code=ZAP_BAD_VERSION)
    if request_id != ZAP_REQUEST_ID:
        raise ProtocolError(f"ZAP reply for request {request_id!r}", code=ZAP_BAD_REQUEST_ID)
    if status not in (b"200", b"300", b"400", b"500"):
        raise ProtocolError(f"ZAP status code {status!r}", code=ZAP_INVALID_STATUS_CODE)
    return ZapReply(
        status_code=int(status),
        status_text=text,
        user_id=user_id,
        metadata=parse_properties(metadata, code=ZAP_INVALID_METADATA),
    )
