"""Security mechanisms: the sans-I/O seam (`base`) and NULL.

PLAIN (`plain`) and CURVE (`curve`) plug into `Mechanism` the same way;
see `base` for the contract and `null` for a complete small example. They
are imported from their modules (CURVE needs a crypto provider, see
``purezmq._crypto``).
"""

from .base import Mechanism, MechanismStatus, MessageError
from .null import NullMechanism
from .zap import ZapConfig, ZapReply, parse_zap_reply, zap_request_frames

__all__ = [
    "Mechanism",
    "MechanismStatus",
    "MessageError",
    "NullMechanism",
    "ZapConfig",
    "ZapReply",
    "parse_zap_reply",
    "zap_request_frames",
]
