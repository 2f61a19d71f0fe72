"""Security mechanisms: the sans-I/O seam (`base`) and NULL.

PLAIN and CURVE plug into `Mechanism` the same way; see `base` for the
contract and `null` for a complete small example.
"""

from .base import Mechanism, MechanismStatus
from .null import NullMechanism
from .zap import ZapConfig, ZapReply, parse_zap_reply, zap_request_frames

__all__ = [
    "Mechanism",
    "MechanismStatus",
    "NullMechanism",
    "ZapConfig",
    "ZapReply",
    "parse_zap_reply",
    "zap_request_frames",
]
