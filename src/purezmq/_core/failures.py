"""What a connection's failure means: a monitor event, and whether to reconnect.

libzmq reports a failed handshake with one of the HANDSHAKE_FAILED_* events
(and nothing for a connection that merely dropped), and never reconnects
after a protocol error - bad bytes, a refused socket type, failed
authentication - only after timeouts and dropped connections. Both rules
are decided here, once, from the sans-I/O layer's `ProtocolError`.
"""

from __future__ import annotations

from errno import EFAULT

from purezmq import constants as C
from purezmq._zmtp import ProtocolError
from purezmq._zmtp.mechanisms.base import MessageError

from .monitor import Monitor

_FAILED_PROTOCOL = int(C.EVENT_HANDSHAKE_FAILED_PROTOCOL)
_FAILED_AUTH = int(C.EVENT_HANDSHAKE_FAILED_AUTH)
_FAILED_NO_DETAIL = int(C.EVENT_HANDSHAKE_FAILED_NO_DETAIL)


def may_reconnect(err: ProtocolError) -> bool:
    """Only a timeout is worth another attempt; a protocol error ends the session."""
    return err.kind == "timeout"


def report_failure(monitor: Monitor, endpoint: str, err: ProtocolError) -> None:
    """Emit the HANDSHAKE_FAILED_* event libzmq emits for `err`, if any."""
    if not err.during_handshake and not isinstance(err, MessageError):
        return  # (libzmq reports a bad CURVE MESSAGE like a handshake failure)
    if err.kind == "refused":
        return  # a ZMTP 1.0/2.0 peer under security: libzmq says only DISCONNECTED
    if err.kind == "protocol":
        monitor.event(_FAILED_PROTOCOL, err.code, endpoint)
    elif err.kind in ("auth", "peer"):
        # Ours or the peer's ZAP status (an ERROR reason "300"/"400"/"500");
        # a peer ERROR with any other reason gets no event in libzmq.
        if err.zap_status is not None:
            monitor.event(_FAILED_AUTH, err.zap_status, endpoint)
        elif err.kind == "auth":  # ZAP needed but no handler bound: libzmq says EFAULT
            monitor.event(_FAILED_NO_DETAIL, EFAULT, endpoint)
    else:
        monitor.event(_FAILED_NO_DETAIL, 0, endpoint)
