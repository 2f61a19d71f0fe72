"""The one exception that may leave the sans-I/O ZMTP layer.

Anything a peer can do to us (malformed bytes, an ERROR command, silence past
a deadline) ends *that* connection with a `ProtocolError`. The socket layer
turns it into a monitor event and a log line; no other exception type may
escape `_zmtp` for any byte input (checked by the fuzz tests and
``fuzz/zmtp_fuzz.py``).

The numeric codes are libzmq's ``ZMQ_PROTOCOL_ERROR_*`` values (``zmq.h``),
so monitor events carry the same numbers a libzmq program would see.
"""

from __future__ import annotations

from typing import Literal

# --- libzmq ZMQ_PROTOCOL_ERROR_* values (include/zmq.h) -------------------
ZMTP_UNSPECIFIED = 0x10000000
ZMTP_UNEXPECTED_COMMAND = 0x10000001
ZMTP_INVALID_SEQUENCE = 0x10000002
ZMTP_KEY_EXCHANGE = 0x10000003
ZMTP_MALFORMED_COMMAND_UNSPECIFIED = 0x10000011
ZMTP_MALFORMED_COMMAND_MESSAGE = 0x10000012
ZMTP_MALFORMED_COMMAND_HELLO = 0x10000013
ZMTP_MALFORMED_COMMAND_INITIATE = 0x10000014
ZMTP_MALFORMED_COMMAND_ERROR = 0x10000015
ZMTP_MALFORMED_COMMAND_READY = 0x10000016
ZMTP_MALFORMED_COMMAND_WELCOME = 0x10000017
ZMTP_INVALID_METADATA = 0x10000018
ZMTP_CRYPTOGRAPHIC = 0x11000001
ZMTP_MECHANISM_MISMATCH = 0x11000002
ZAP_UNSPECIFIED = 0x20000000
ZAP_MALFORMED_REPLY = 0x20000001
ZAP_BAD_REQUEST_ID = 0x20000002
ZAP_BAD_VERSION = 0x20000003
ZAP_INVALID_STATUS_CODE = 0x20000004
ZAP_INVALID_METADATA = 0x20000005

#: ``code`` of errors that are not protocol violations (timeouts, ...): libzmq
#: reports those as HANDSHAKE_FAILED_NO_DETAIL / DISCONNECTED, without a code.
NO_CODE = 0

ErrorKind = Literal["protocol", "timeout", "peer", "auth", "refused"]


class ProtocolError(Exception):
    """A ZMTP connection failed; the connection is dead after this.

    Attributes:
        reason: human text for logs.
        code: libzmq's ``ZMQ_PROTOCOL_ERROR_*`` number for a
            HANDSHAKE_FAILED_PROTOCOL monitor event (``NO_CODE`` when the
            failure is not a protocol violation).
        kind: ``"protocol"`` malformed input; ``"timeout"`` handshake or
            heartbeat deadline passed; ``"peer"`` the peer sent an ERROR
            command (``peer_reason`` holds its reason); ``"auth"`` our ZAP
            handler refused the peer (``zap_status`` holds the code);
            ``"refused"`` the peer speaks ZMTP 1.0/2.0, which has no security,
            and this socket requires some (libzmq then reports nothing but
            the disconnection).
        during_handshake: True when the connection never became ready
            (libzmq emits HANDSHAKE_FAILED_* events only then).
        peer_reason: the reason in the peer's ERROR command (kind "peer").
        zap_status: 300/400/500 for an authentication failure: ours (kind
            "auth") or the peer's, when its ERROR reason is a ZAP status code
            as libzmq sends it (libzmq then emits HANDSHAKE_FAILED_AUTH).
    """

    def __init__(
        self,
        reason: str,
        *,
        code: int = ZMTP_UNSPECIFIED,
        kind: ErrorKind = "protocol",
        during_handshake: bool = True,
        peer_reason: bytes = b"",
        zap_status: int | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.kind: ErrorKind = kind
        self.during_handshake = during_handshake
        self.peer_reason = peer_reason
        if zap_status is None and kind == "peer":
            zap_status = zap_status_of(peer_reason)
        self.zap_status = zap_status

    def __repr__(self) -> str:
        return (
            f"ProtocolError({self.reason!r}, code={self.code:#x}, kind={self.kind!r}, "
            f"during_handshake={self.during_handshake})"
        )


def zap_status_of(reason: bytes) -> int | None:
    """The ZAP status code an ERROR reason carries, as libzmq recognises it.

    libzmq puts the ZAP status ("300", "400", "500") as the ERROR reason and a
    receiving libzmq reports it as an authentication failure
    (``mechanism_base_t::handle_error_reason``).
    """
    if len(reason) == 3 and reason[1:] == b"00" and 0x33 <= reason[0] <= 0x35:
        return (reason[0] - 0x30) * 100
    return None


def timeout_error(reason: str, *, during_handshake: bool) -> ProtocolError:
    """A deadline passed (HANDSHAKE_IVL, HEARTBEAT_TIMEOUT or the peer's TTL)."""
    return ProtocolError(reason, code=NO_CODE, kind="timeout", during_handshake=during_handshake)


def internal_error(exc: BaseException) -> ProtocolError:
    """An unexpected exception met inside a connection, contained as the end
    of that connection (issue 12: nothing but ProtocolError leaves `_zmtp`).
    A peer's input can reach code that fails in ways no check foresaw - a
    crypto library refusing a key, an allocation a declared size asked for -
    and the application and the I/O loop must not see it. libzmq, which
    asserts on its own bugs, has no code for this: ZMTP_UNSPECIFIED."""
    error = ProtocolError(f"internal error: {type(exc).__name__}: {exc}", code=ZMTP_UNSPECIFIED)
    error.__cause__ = exc
    return error
