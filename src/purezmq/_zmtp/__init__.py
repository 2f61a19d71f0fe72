"""Sans-I/O ZMTP 3.x - and the ZMTP/2.0 and 1.0 that libzmq still accepts
(legacy.py, v1.py): greeting, framing, commands, metadata, heartbeats and
security mechanisms. Bytes and messages in, bytes and messages out; time is
a float the caller passes. Imports only the standard library.

The only exception that leaves this package for any byte input is
`ProtocolError`.
"""

from . import commands, socktypes
from .connection import ZMTPConnection
from .errors import (
    NO_CODE,
    ZAP_BAD_REQUEST_ID,
    ZAP_BAD_VERSION,
    ZAP_INVALID_METADATA,
    ZAP_INVALID_STATUS_CODE,
    ZAP_MALFORMED_REPLY,
    ZAP_UNSPECIFIED,
    ZMTP_CRYPTOGRAPHIC,
    ZMTP_INVALID_METADATA,
    ZMTP_INVALID_SEQUENCE,
    ZMTP_KEY_EXCHANGE,
    ZMTP_MALFORMED_COMMAND_ERROR,
    ZMTP_MALFORMED_COMMAND_HELLO,
    ZMTP_MALFORMED_COMMAND_INITIATE,
    ZMTP_MALFORMED_COMMAND_MESSAGE,
    ZMTP_MALFORMED_COMMAND_READY,
    ZMTP_MALFORMED_COMMAND_UNSPECIFIED,
    ZMTP_MALFORMED_COMMAND_WELCOME,
    ZMTP_MECHANISM_MISMATCH,
    ZMTP_UNEXPECTED_COMMAND,
    ZMTP_UNSPECIFIED,
    ProtocolError,
)
from .frames import BIG_FRAME, Buffer, FrameEncoder
from .mechanisms import Mechanism, MechanismStatus, NullMechanism, ZapConfig
from .metadata import Metadata, encode_properties, parse_properties
from .socktypes import compatible, sends_identity

__all__ = [
    "BIG_FRAME",
    "NO_CODE",
    "ZAP_BAD_REQUEST_ID",
    "ZAP_BAD_VERSION",
    "ZAP_INVALID_METADATA",
    "ZAP_INVALID_STATUS_CODE",
    "ZAP_MALFORMED_REPLY",
    "ZAP_UNSPECIFIED",
    "ZMTP_CRYPTOGRAPHIC",
    "ZMTP_INVALID_METADATA",
    "ZMTP_INVALID_SEQUENCE",
    "ZMTP_KEY_EXCHANGE",
    "ZMTP_MALFORMED_COMMAND_ERROR",
    "ZMTP_MALFORMED_COMMAND_HELLO",
    "ZMTP_MALFORMED_COMMAND_INITIATE",
    "ZMTP_MALFORMED_COMMAND_MESSAGE",
    "ZMTP_MALFORMED_COMMAND_READY",
    "ZMTP_MALFORMED_COMMAND_UNSPECIFIED",
    "ZMTP_MALFORMED_COMMAND_WELCOME",
    "ZMTP_MECHANISM_MISMATCH",
    "ZMTP_UNEXPECTED_COMMAND",
    "ZMTP_UNSPECIFIED",
    "Buffer",
    "FrameEncoder",
    "Mechanism",
    "MechanismStatus",
    "Metadata",
    "NullMechanism",
    "ProtocolError",
    "ZMTPConnection",
    "ZapConfig",
    "commands",
    "compatible",
    "encode_properties",
    "parse_properties",
    "sends_identity",
    "socktypes",
]
