"""ZeroMQ's numbers: socket types, options, flags, events, errnos.

Programs written for pyzmq compare these values with what sockets return and
pass them straight through (``sock.setsockopt(zmq.LINGER, 0)``), so every
value here is the one libzmq 4.3.5 defines in ``zmq.h`` and every name and
enum class is the one pyzmq 27 exposes. Nothing here is purezmq's own
invention; ``tests/unit/api`` compares the whole module with pyzmq so that
drift is caught.

Each family is an ``IntEnum`` (or ``IntFlag`` where libzmq ORs values
together), and each member is also exported as a module-level name with the
prefix libzmq uses (``EVENT_CONNECTED``, ``NOTIFY_CONNECT``...), because
pyzmq programs use both spellings. The module-level names *are* the enum
members (``PUSH is SocketType.PUSH``), not copies.

Errno values follow the platform: libzmq reuses the C library's codes where
they exist and numbers the rest from ``ZMQ_HAUSNUMERO``.
"""

from __future__ import annotations

import errno as _errno
import sys
from enum import Enum, IntEnum, IntFlag

# ---------------------------------------------------------------------------
# Error numbers
# ---------------------------------------------------------------------------

#: Base of libzmq's private errno range (zmq.h). Codes the platform lacks are
#: numbered ZMQ_HAUSNUMERO + n; the 0MQ-only codes start at + 51.
_HAUSNUMERO = 156384712


def _os_errno(name: str, offset: int) -> int:
    """The platform's value for `name`, or libzmq's fallback if it has none."""
    value = getattr(_errno, name, None)
    return value if isinstance(value, int) else _HAUSNUMERO + offset


class Errno(IntEnum):
    """Error numbers libzmq reports (``ZMQError.errno``).

    POSIX platforms use the C library's values. On Windows libzmq takes them
    from the CRT's ``errno.h``, whose numbers differ from the WSA* codes
    Python's ``errno`` module prefers, so they are spelled out there.
    """

    EAGAIN = _errno.EAGAIN
    EFAULT = _errno.EFAULT
    EINVAL = _errno.EINVAL

    if sys.platform == "win32":  # pragma: no cover - platform specific
        ENOTSUP = 129
        EPROTONOSUPPORT = 135
        ENOBUFS = 119
        ENETDOWN = 116
        EADDRINUSE = 100
        EADDRNOTAVAIL = 101
        ECONNREFUSED = 107
        EINPROGRESS = 112
        ENOTSOCK = 128
        EMSGSIZE = 115
        EAFNOSUPPORT = 102
        ENETUNREACH = 118
        ECONNABORTED = 106
        ECONNRESET = 108
        ENOTCONN = 126
        ETIMEDOUT = 138
        EHOSTUNREACH = 110
        ENETRESET = 117
    else:
        ENOTSUP = _os_errno("ENOTSUP", 1)
        EPROTONOSUPPORT = _os_errno("EPROTONOSUPPORT", 2)
        ENOBUFS = _os_errno("ENOBUFS", 3)
        ENETDOWN = _os_errno("ENETDOWN", 4)
        EADDRINUSE = _os_errno("EADDRINUSE", 5)
        EADDRNOTAVAIL = _os_errno("EADDRNOTAVAIL", 6)
        ECONNREFUSED = _os_errno("ECONNREFUSED", 7)
        EINPROGRESS = _os_errno("EINPROGRESS", 8)
        ENOTSOCK = _os_errno("ENOTSOCK", 9)
        EMSGSIZE = _os_errno("EMSGSIZE", 10)
        EAFNOSUPPORT = _os_errno("EAFNOSUPPORT", 11)
        ENETUNREACH = _os_errno("ENETUNREACH", 12)
        ECONNABORTED = _os_errno("ECONNABORTED", 13)
        ECONNRESET = _os_errno("ECONNRESET", 14)
        ENOTCONN = _os_errno("ENOTCONN", 15)
        ETIMEDOUT = _os_errno("ETIMEDOUT", 16)
        EHOSTUNREACH = _os_errno("EHOSTUNREACH", 17)
        ENETRESET = _os_errno("ENETRESET", 18)

    # Errors only 0MQ has.
    EFSM = _HAUSNUMERO + 51
    ENOCOMPATPROTO = _HAUSNUMERO + 52
    ETERM = _HAUSNUMERO + 53
    EMTHREAD = _HAUSNUMERO + 54


# ---------------------------------------------------------------------------
# Context options (zmq_ctx_set / zmq_ctx_get)
# ---------------------------------------------------------------------------


class ContextOption(IntEnum):
    """Options for ``Context.get`` / ``Context.set``.

    SOCKET_LIMIT and THREAD_PRIORITY share the number 3 in libzmq (the first
    is read-only, the second write-only), so THREAD_PRIORITY is an alias.
    The context also accepts the socket options IPV6 and BLOCKY.
    """

    IO_THREADS = 1
    MAX_SOCKETS = 2
    SOCKET_LIMIT = 3
    THREAD_PRIORITY = 3
    THREAD_SCHED_POLICY = 4
    MAX_MSGSZ = 5
    MSG_T_SIZE = 6
    THREAD_AFFINITY_CPU_ADD = 7
    THREAD_AFFINITY_CPU_REMOVE = 8
    THREAD_NAME_PREFIX = 9


# ---------------------------------------------------------------------------
# Socket types
# ---------------------------------------------------------------------------


class SocketType(IntEnum):
    """Socket types for ``Context.socket``; 12 and up are libzmq drafts."""

    PAIR = 0
    PUB = 1
    SUB = 2
    REQ = 3
    REP = 4
    DEALER = 5
    ROUTER = 6
    PULL = 7
    PUSH = 8
    XPUB = 9
    XSUB = 10
    STREAM = 11

    # Names from 0MQ 2.x, kept by libzmq as aliases.
    XREQ = DEALER
    XREP = ROUTER

    # Draft socket types (libzmq built with ZMQ_BUILD_DRAFT_API).
    SERVER = 12
    CLIENT = 13
    RADIO = 14
    DISH = 15
    GATHER = 16
    SCATTER = 17
    DGRAM = 18
    PEER = 19
    CHANNEL = 20


# ---------------------------------------------------------------------------
# Socket options (zmq_setsockopt / zmq_getsockopt)
# ---------------------------------------------------------------------------


class _OptType(Enum):
    """How an option's value crosses the API: C int, int64, bytes or an fd."""

    int = "int"
    int64 = "int64"
    bytes = "bytes"
    fd = "fd"


class SocketOption(IntEnum):
    """Options for ``Socket.get`` / ``Socket.set``.

    ``member._opt_type`` tells how the value is passed (see `_OptType`);
    options not listed in `_OPT_TYPES` below are C ints.
    """

    HWM = 1
    AFFINITY = 4
    ROUTING_ID = 5
    SUBSCRIBE = 6
    UNSUBSCRIBE = 7
    RATE = 8
    RECOVERY_IVL = 9
    SNDBUF = 11
    RCVBUF = 12
    RCVMORE = 13
    FD = 14
    EVENTS = 15
    TYPE = 16
    LINGER = 17
    RECONNECT_IVL = 18
    BACKLOG = 19
    RECONNECT_IVL_MAX = 21
    MAXMSGSIZE = 22
    SNDHWM = 23
    RCVHWM = 24
    MULTICAST_HOPS = 25
    RCVTIMEO = 27
    SNDTIMEO = 28
    LAST_ENDPOINT = 32
    ROUTER_MANDATORY = 33
    TCP_KEEPALIVE = 34
    TCP_KEEPALIVE_CNT = 35
    TCP_KEEPALIVE_IDLE = 36
    TCP_KEEPALIVE_INTVL = 37
    IMMEDIATE = 39
    XPUB_VERBOSE = 40
    ROUTER_RAW = 41
    IPV6 = 42
    MECHANISM = 43
    PLAIN_SERVER = 44
    PLAIN_USERNAME = 45
    PLAIN_PASSWORD = 46
    CURVE_SERVER = 47
    CURVE_PUBLICKEY = 48
    CURVE_SECRETKEY = 49
    CURVE_SERVERKEY = 50
    PROBE_ROUTER = 51
    REQ_CORRELATE = 52
    REQ_RELAXED = 53
    CONFLATE = 54
    ZAP_DOMAIN = 55
    ROUTER_HANDOVER = 56
    TOS = 57
    CONNECT_ROUTING_ID = 61
    GSSAPI_SERVER = 62
    GSSAPI_PRINCIPAL = 63
    GSSAPI_SERVICE_PRINCIPAL = 64
    GSSAPI_PLAINTEXT = 65
    HANDSHAKE_IVL = 66
    SOCKS_PROXY = 68
    XPUB_NODROP = 69
    BLOCKY = 70
    XPUB_MANUAL = 71
    XPUB_WELCOME_MSG = 72
    STREAM_NOTIFY = 73
    INVERT_MATCHING = 74
    HEARTBEAT_IVL = 75
    HEARTBEAT_TTL = 76
    HEARTBEAT_TIMEOUT = 77
    XPUB_VERBOSER = 78
    CONNECT_TIMEOUT = 79
    TCP_MAXRT = 80
    THREAD_SAFE = 81
    MULTICAST_MAXTPDU = 84
    VMCI_BUFFER_SIZE = 85
    VMCI_BUFFER_MIN_SIZE = 86
    VMCI_BUFFER_MAX_SIZE = 87
    VMCI_CONNECT_TIMEOUT = 88
    USE_FD = 89
    GSSAPI_PRINCIPAL_NAMETYPE = 90
    GSSAPI_SERVICE_PRINCIPAL_NAMETYPE = 91
    BINDTODEVICE = 92

    # Deprecated names: some are aliases, some kept their own number.
    IDENTITY = ROUTING_ID
    CONNECT_RID = CONNECT_ROUTING_ID
    TCP_ACCEPT_FILTER = 38
    IPC_FILTER_PID = 58
    IPC_FILTER_UID = 59
    IPC_FILTER_GID = 60
    IPV4ONLY = 31
    DELAY_ATTACH_ON_CONNECT = IMMEDIATE
    FAIL_UNROUTABLE = ROUTER_MANDATORY
    ROUTER_BEHAVIOR = ROUTER_MANDATORY

    # Options from libzmq's draft API section (some also work in stable builds).
    ZAP_ENFORCE_DOMAIN = 93
    LOOPBACK_FASTPATH = 94
    METADATA = 95
    MULTICAST_LOOP = 96
    ROUTER_NOTIFY = 97
    XPUB_MANUAL_LAST_VALUE = 98
    SOCKS_USERNAME = 99
    SOCKS_PASSWORD = 100
    IN_BATCH_SIZE = 101
    OUT_BATCH_SIZE = 102
    WSS_KEY_PEM = 103
    WSS_CERT_PEM = 104
    WSS_TRUST_PEM = 105
    WSS_HOSTNAME = 106
    WSS_TRUST_SYSTEM = 107
    ONLY_FIRST_SUBSCRIBE = 108
    RECONNECT_STOP = 109
    HELLO_MSG = 110
    DISCONNECT_MSG = 111
    PRIORITY = 112
    # Added in libzmq 4.3.5.
    BUSY_POLL = 113
    HICCUP_MSG = 114
    XSUB_VERBOSE_UNSUBSCRIBE = 115
    TOPICS_COUNT = 116
    NORM_MODE = 117
    NORM_UNICAST_NACK = 118
    NORM_BUFFER_SIZE = 119
    NORM_SEGMENT_SIZE = 120
    NORM_BLOCK_SIZE = 121
    NORM_NUM_PARITY = 122
    NORM_NUM_AUTOPARITY = 123
    NORM_PUSH = 124

    @property
    def _opt_type(self) -> _OptType:
        """How this option's value is passed (pyzmq's private attribute)."""
        return _OPT_TYPES.get(self._value_, _OptType.int)


#: Options that are not plain C ints, by number. Everything else is an int.
_OPT_TYPES: dict[int, _OptType] = {
    SocketOption.AFFINITY: _OptType.int64,
    SocketOption.MAXMSGSIZE: _OptType.int64,
    SocketOption.VMCI_BUFFER_SIZE: _OptType.int64,
    SocketOption.VMCI_BUFFER_MIN_SIZE: _OptType.int64,
    SocketOption.VMCI_BUFFER_MAX_SIZE: _OptType.int64,
    SocketOption.FD: _OptType.fd,
    **dict.fromkeys(
        (
            SocketOption.ROUTING_ID,
            SocketOption.SUBSCRIBE,
            SocketOption.UNSUBSCRIBE,
            SocketOption.LAST_ENDPOINT,
            SocketOption.PLAIN_USERNAME,
            SocketOption.PLAIN_PASSWORD,
            SocketOption.CURVE_PUBLICKEY,
            SocketOption.CURVE_SECRETKEY,
            SocketOption.CURVE_SERVERKEY,
            SocketOption.ZAP_DOMAIN,
            SocketOption.CONNECT_ROUTING_ID,
            SocketOption.GSSAPI_PRINCIPAL,
            SocketOption.GSSAPI_SERVICE_PRINCIPAL,
            SocketOption.SOCKS_PROXY,
            SocketOption.XPUB_WELCOME_MSG,
            SocketOption.BINDTODEVICE,
            SocketOption.TCP_ACCEPT_FILTER,
            SocketOption.METADATA,
            SocketOption.SOCKS_USERNAME,
            SocketOption.SOCKS_PASSWORD,
            SocketOption.WSS_KEY_PEM,
            SocketOption.WSS_CERT_PEM,
            SocketOption.WSS_TRUST_PEM,
            SocketOption.WSS_HOSTNAME,
            SocketOption.HELLO_MSG,
            SocketOption.DISCONNECT_MSG,
            SocketOption.HICCUP_MSG,
        ),
        _OptType.bytes,
    ),
}


# ---------------------------------------------------------------------------
# Messages, send/recv flags, polling
# ---------------------------------------------------------------------------


class MessageOption(IntEnum):
    """Properties of a message (``Frame.get``); SRCFD is deprecated."""

    MORE = 1
    SHARED = 3
    SRCFD = 2


class Flag(IntFlag):
    """Flags for send and recv; NOBLOCK is the 0MQ 2.x name of DONTWAIT."""

    DONTWAIT = 1
    SNDMORE = 2
    NOBLOCK = DONTWAIT


class PollEvent(IntFlag):
    """Events for ``zmq.poll``, ``Poller`` and the EVENTS option."""

    POLLIN = 1
    POLLOUT = 2
    POLLERR = 4
    POLLPRI = 8


# ---------------------------------------------------------------------------
# Values of particular options
# ---------------------------------------------------------------------------


class RouterNotify(IntEnum):
    """Values of ROUTER_NOTIFY (draft); exported as ``NOTIFY_*``."""

    CONNECT = 1
    DISCONNECT = 2


class NormMode(IntEnum):
    """Values of NORM_MODE (draft, libzmq 4.3.5); exported as ``NORM_*``."""

    FIXED = 0
    CC = 1
    CCL = 2
    CCE = 3
    CCE_ECNONLY = 4


class SecurityMechanism(IntEnum):
    """Security mechanisms, as the MECHANISM option reports them."""

    NULL = 0
    PLAIN = 1
    CURVE = 2
    GSSAPI = 3


class ReconnectStop(IntEnum):
    """Bits of RECONNECT_STOP (draft); exported as ``RECONNECT_STOP_*``."""

    CONN_REFUSED = 0x1
    HANDSHAKE_FAILED = 0x2
    AFTER_DISCONNECT = 0x4


# ---------------------------------------------------------------------------
# Socket monitor events and protocol error codes
# ---------------------------------------------------------------------------


class Event(IntFlag):
    """Monitor events (exported as ``EVENT_*``) and the protocol error codes
    that HANDSHAKE_FAILED_PROTOCOL events carry (exported as they are).

    The protocol error codes come first: they are multi-bit values, and
    defining them before the single-bit events keeps each one a named member
    rather than a combination of event bits.
    """

    PROTOCOL_ERROR_WS_UNSPECIFIED = 0x30000000
    PROTOCOL_ERROR_ZMTP_UNSPECIFIED = 0x10000000
    PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND = 0x10000001
    PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE = 0x10000002
    PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE = 0x10000003
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED = 0x10000011
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_MESSAGE = 0x10000012
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_HELLO = 0x10000013
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_INITIATE = 0x10000014
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR = 0x10000015
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_READY = 0x10000016
    PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_WELCOME = 0x10000017
    PROTOCOL_ERROR_ZMTP_INVALID_METADATA = 0x10000018
    PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC = 0x11000001
    PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH = 0x11000002
    PROTOCOL_ERROR_ZAP_UNSPECIFIED = 0x20000000
    PROTOCOL_ERROR_ZAP_MALFORMED_REPLY = 0x20000001
    PROTOCOL_ERROR_ZAP_BAD_REQUEST_ID = 0x20000002
    PROTOCOL_ERROR_ZAP_BAD_VERSION = 0x20000003
    PROTOCOL_ERROR_ZAP_INVALID_STATUS_CODE = 0x20000004
    PROTOCOL_ERROR_ZAP_INVALID_METADATA = 0x20000005

    CONNECTED = 0x0001
    CONNECT_DELAYED = 0x0002
    CONNECT_RETRIED = 0x0004
    LISTENING = 0x0008
    BIND_FAILED = 0x0010
    ACCEPTED = 0x0020
    ACCEPT_FAILED = 0x0040
    CLOSED = 0x0080
    CLOSE_FAILED = 0x0100
    DISCONNECTED = 0x0200
    MONITOR_STOPPED = 0x0400
    HANDSHAKE_FAILED_NO_DETAIL = 0x0800
    HANDSHAKE_SUCCEEDED = 0x1000
    HANDSHAKE_FAILED_PROTOCOL = 0x2000
    HANDSHAKE_FAILED_AUTH = 0x4000

    ALL_V1 = 0xFFFF
    ALL = ALL_V1

    # Draft monitor events (monitor protocol version 2).
    PIPES_STATS = 0x10000
    ALL_V2 = ALL_V1 | PIPES_STATS


# ---------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------


class DeviceType(IntEnum):
    """Kinds of ``zmq.device``; all three behave as ``zmq.proxy`` today."""

    STREAMER = 1
    FORWARDER = 2
    QUEUE = 3


# ---------------------------------------------------------------------------
# Module-level names. Each is the enum member itself, so identity holds.
# ---------------------------------------------------------------------------

# Context options
IO_THREADS = ContextOption.IO_THREADS
MAX_SOCKETS = ContextOption.MAX_SOCKETS
SOCKET_LIMIT = ContextOption.SOCKET_LIMIT
THREAD_PRIORITY = ContextOption.THREAD_PRIORITY
THREAD_SCHED_POLICY = ContextOption.THREAD_SCHED_POLICY
MAX_MSGSZ = ContextOption.MAX_MSGSZ
MSG_T_SIZE = ContextOption.MSG_T_SIZE
THREAD_AFFINITY_CPU_ADD = ContextOption.THREAD_AFFINITY_CPU_ADD
THREAD_AFFINITY_CPU_REMOVE = ContextOption.THREAD_AFFINITY_CPU_REMOVE
THREAD_NAME_PREFIX = ContextOption.THREAD_NAME_PREFIX

# Devices
STREAMER = DeviceType.STREAMER
FORWARDER = DeviceType.FORWARDER
QUEUE = DeviceType.QUEUE

# Errors
EAGAIN = Errno.EAGAIN
EFAULT = Errno.EFAULT
EINVAL = Errno.EINVAL
ENOTSUP = Errno.ENOTSUP
EPROTONOSUPPORT = Errno.EPROTONOSUPPORT
ENOBUFS = Errno.ENOBUFS
ENETDOWN = Errno.ENETDOWN
EADDRINUSE = Errno.EADDRINUSE
EADDRNOTAVAIL = Errno.EADDRNOTAVAIL
ECONNREFUSED = Errno.ECONNREFUSED
EINPROGRESS = Errno.EINPROGRESS
ENOTSOCK = Errno.ENOTSOCK
EMSGSIZE = Errno.EMSGSIZE
EAFNOSUPPORT = Errno.EAFNOSUPPORT
ENETUNREACH = Errno.ENETUNREACH
ECONNABORTED = Errno.ECONNABORTED
ECONNRESET = Errno.ECONNRESET
ENOTCONN = Errno.ENOTCONN
ETIMEDOUT = Errno.ETIMEDOUT
EHOSTUNREACH = Errno.EHOSTUNREACH
ENETRESET = Errno.ENETRESET
EFSM = Errno.EFSM
ENOCOMPATPROTO = Errno.ENOCOMPATPROTO
ETERM = Errno.ETERM
EMTHREAD = Errno.EMTHREAD

# Protocol error codes (carried by EVENT_HANDSHAKE_FAILED_PROTOCOL)
PROTOCOL_ERROR_WS_UNSPECIFIED = Event.PROTOCOL_ERROR_WS_UNSPECIFIED
PROTOCOL_ERROR_ZMTP_UNSPECIFIED = Event.PROTOCOL_ERROR_ZMTP_UNSPECIFIED
PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND = Event.PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND
PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE = Event.PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE
PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE = Event.PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED = (
    Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED
)
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_MESSAGE = Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_MESSAGE
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_HELLO = Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_HELLO
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_INITIATE = (
    Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_INITIATE
)
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR = Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_READY = Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_READY
PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_WELCOME = Event.PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_WELCOME
PROTOCOL_ERROR_ZMTP_INVALID_METADATA = Event.PROTOCOL_ERROR_ZMTP_INVALID_METADATA
PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC = Event.PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC
PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH = Event.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH
PROTOCOL_ERROR_ZAP_UNSPECIFIED = Event.PROTOCOL_ERROR_ZAP_UNSPECIFIED
PROTOCOL_ERROR_ZAP_MALFORMED_REPLY = Event.PROTOCOL_ERROR_ZAP_MALFORMED_REPLY
PROTOCOL_ERROR_ZAP_BAD_REQUEST_ID = Event.PROTOCOL_ERROR_ZAP_BAD_REQUEST_ID
PROTOCOL_ERROR_ZAP_BAD_VERSION = Event.PROTOCOL_ERROR_ZAP_BAD_VERSION
PROTOCOL_ERROR_ZAP_INVALID_STATUS_CODE = Event.PROTOCOL_ERROR_ZAP_INVALID_STATUS_CODE
PROTOCOL_ERROR_ZAP_INVALID_METADATA = Event.PROTOCOL_ERROR_ZAP_INVALID_METADATA

# Monitor events
EVENT_CONNECTED = Event.CONNECTED
EVENT_CONNECT_DELAYED = Event.CONNECT_DELAYED
EVENT_CONNECT_RETRIED = Event.CONNECT_RETRIED
EVENT_LISTENING = Event.LISTENING
EVENT_BIND_FAILED = Event.BIND_FAILED
EVENT_ACCEPTED = Event.ACCEPTED
EVENT_ACCEPT_FAILED = Event.ACCEPT_FAILED
EVENT_CLOSED = Event.CLOSED
EVENT_CLOSE_FAILED = Event.CLOSE_FAILED
EVENT_DISCONNECTED = Event.DISCONNECTED
EVENT_MONITOR_STOPPED = Event.MONITOR_STOPPED
EVENT_HANDSHAKE_FAILED_NO_DETAIL = Event.HANDSHAKE_FAILED_NO_DETAIL
EVENT_HANDSHAKE_SUCCEEDED = Event.HANDSHAKE_SUCCEEDED
EVENT_HANDSHAKE_FAILED_PROTOCOL = Event.HANDSHAKE_FAILED_PROTOCOL
EVENT_HANDSHAKE_FAILED_AUTH = Event.HANDSHAKE_FAILED_AUTH
EVENT_ALL_V1 = Event.ALL_V1
EVENT_ALL = Event.ALL
EVENT_PIPES_STATS = Event.PIPES_STATS
EVENT_ALL_V2 = Event.ALL_V2

# Send/recv flags
DONTWAIT = Flag.DONTWAIT
SNDMORE = Flag.SNDMORE
NOBLOCK = Flag.NOBLOCK

# Message options
MORE = MessageOption.MORE
SHARED = MessageOption.SHARED
SRCFD = MessageOption.SRCFD

# NORM_MODE values
NORM_FIXED = NormMode.FIXED
NORM_CC = NormMode.CC
NORM_CCL = NormMode.CCL
NORM_CCE = NormMode.CCE
NORM_CCE_ECNONLY = NormMode.CCE_ECNONLY

# Poll events
POLLIN = PollEvent.POLLIN
POLLOUT = PollEvent.POLLOUT
POLLERR = PollEvent.POLLERR
POLLPRI = PollEvent.POLLPRI

# RECONNECT_STOP bits
RECONNECT_STOP_CONN_REFUSED = ReconnectStop.CONN_REFUSED
RECONNECT_STOP_HANDSHAKE_FAILED = ReconnectStop.HANDSHAKE_FAILED
RECONNECT_STOP_AFTER_DISCONNECT = ReconnectStop.AFTER_DISCONNECT

# ROUTER_NOTIFY values
NOTIFY_CONNECT = RouterNotify.CONNECT
NOTIFY_DISCONNECT = RouterNotify.DISCONNECT

# Security mechanisms
NULL = SecurityMechanism.NULL
PLAIN = SecurityMechanism.PLAIN
CURVE = SecurityMechanism.CURVE
GSSAPI = SecurityMechanism.GSSAPI

# Socket options
HWM = SocketOption.HWM
AFFINITY = SocketOption.AFFINITY
ROUTING_ID = SocketOption.ROUTING_ID
SUBSCRIBE = SocketOption.SUBSCRIBE
UNSUBSCRIBE = SocketOption.UNSUBSCRIBE
RATE = SocketOption.RATE
RECOVERY_IVL = SocketOption.RECOVERY_IVL
SNDBUF = SocketOption.SNDBUF
RCVBUF = SocketOption.RCVBUF
RCVMORE = SocketOption.RCVMORE
FD = SocketOption.FD
EVENTS = SocketOption.EVENTS
TYPE = SocketOption.TYPE
LINGER = SocketOption.LINGER
RECONNECT_IVL = SocketOption.RECONNECT_IVL
BACKLOG = SocketOption.BACKLOG
RECONNECT_IVL_MAX = SocketOption.RECONNECT_IVL_MAX
MAXMSGSIZE = SocketOption.MAXMSGSIZE
SNDHWM = SocketOption.SNDHWM
RCVHWM = SocketOption.RCVHWM
MULTICAST_HOPS = SocketOption.MULTICAST_HOPS
RCVTIMEO = SocketOption.RCVTIMEO
SNDTIMEO = SocketOption.SNDTIMEO
LAST_ENDPOINT = SocketOption.LAST_ENDPOINT
ROUTER_MANDATORY = SocketOption.ROUTER_MANDATORY
TCP_KEEPALIVE = SocketOption.TCP_KEEPALIVE
TCP_KEEPALIVE_CNT = SocketOption.TCP_KEEPALIVE_CNT
TCP_KEEPALIVE_IDLE = SocketOption.TCP_KEEPALIVE_IDLE
TCP_KEEPALIVE_INTVL = SocketOption.TCP_KEEPALIVE_INTVL
IMMEDIATE = SocketOption.IMMEDIATE
XPUB_VERBOSE = SocketOption.XPUB_VERBOSE
ROUTER_RAW = SocketOption.ROUTER_RAW
IPV6 = SocketOption.IPV6
MECHANISM = SocketOption.MECHANISM
PLAIN_SERVER = SocketOption.PLAIN_SERVER
PLAIN_USERNAME = SocketOption.PLAIN_USERNAME
PLAIN_PASSWORD = SocketOption.PLAIN_PASSWORD
CURVE_SERVER = SocketOption.CURVE_SERVER
CURVE_PUBLICKEY = SocketOption.CURVE_PUBLICKEY
CURVE_SECRETKEY = SocketOption.CURVE_SECRETKEY
CURVE_SERVERKEY = SocketOption.CURVE_SERVERKEY
PROBE_ROUTER = SocketOption.PROBE_ROUTER
REQ_CORRELATE = SocketOption.REQ_CORRELATE
REQ_RELAXED = SocketOption.REQ_RELAXED
CONFLATE = SocketOption.CONFLATE
ZAP_DOMAIN = SocketOption.ZAP_DOMAIN
ROUTER_HANDOVER = SocketOption.ROUTER_HANDOVER
TOS = SocketOption.TOS
CONNECT_ROUTING_ID = SocketOption.CONNECT_ROUTING_ID
GSSAPI_SERVER = SocketOption.GSSAPI_SERVER
GSSAPI_PRINCIPAL = SocketOption.GSSAPI_PRINCIPAL
GSSAPI_SERVICE_PRINCIPAL = SocketOption.GSSAPI_SERVICE_PRINCIPAL
GSSAPI_PLAINTEXT = SocketOption.GSSAPI_PLAINTEXT
HANDSHAKE_IVL = SocketOption.HANDSHAKE_IVL
SOCKS_PROXY = SocketOption.SOCKS_PROXY
XPUB_NODROP = SocketOption.XPUB_NODROP
BLOCKY = SocketOption.BLOCKY
XPUB_MANUAL = SocketOption.XPUB_MANUAL
XPUB_WELCOME_MSG = SocketOption.XPUB_WELCOME_MSG
STREAM_NOTIFY = SocketOption.STREAM_NOTIFY
INVERT_MATCHING = SocketOption.INVERT_MATCHING
HEARTBEAT_IVL = SocketOption.HEARTBEAT_IVL
HEARTBEAT_TTL = SocketOption.HEARTBEAT_TTL
HEARTBEAT_TIMEOUT = SocketOption.HEARTBEAT_TIMEOUT
XPUB_VERBOSER = SocketOption.XPUB_VERBOSER
CONNECT_TIMEOUT = SocketOption.CONNECT_TIMEOUT
TCP_MAXRT = SocketOption.TCP_MAXRT
THREAD_SAFE = SocketOption.THREAD_SAFE
MULTICAST_MAXTPDU = SocketOption.MULTICAST_MAXTPDU
VMCI_BUFFER_SIZE = SocketOption.VMCI_BUFFER_SIZE
VMCI_BUFFER_MIN_SIZE = SocketOption.VMCI_BUFFER_MIN_SIZE
VMCI_BUFFER_MAX_SIZE = SocketOption.VMCI_BUFFER_MAX_SIZE
VMCI_CONNECT_TIMEOUT = SocketOption.VMCI_CONNECT_TIMEOUT
USE_FD = SocketOption.USE_FD
GSSAPI_PRINCIPAL_NAMETYPE = SocketOption.GSSAPI_PRINCIPAL_NAMETYPE
GSSAPI_SERVICE_PRINCIPAL_NAMETYPE = SocketOption.GSSAPI_SERVICE_PRINCIPAL_NAMETYPE
BINDTODEVICE = SocketOption.BINDTODEVICE
IDENTITY = SocketOption.IDENTITY
CONNECT_RID = SocketOption.CONNECT_RID
TCP_ACCEPT_FILTER = SocketOption.TCP_ACCEPT_FILTER
IPC_FILTER_PID = SocketOption.IPC_FILTER_PID
IPC_FILTER_UID = SocketOption.IPC_FILTER_UID
IPC_FILTER_GID = SocketOption.IPC_FILTER_GID
IPV4ONLY = SocketOption.IPV4ONLY
DELAY_ATTACH_ON_CONNECT = SocketOption.DELAY_ATTACH_ON_CONNECT
FAIL_UNROUTABLE = SocketOption.FAIL_UNROUTABLE
ROUTER_BEHAVIOR = SocketOption.ROUTER_BEHAVIOR
ZAP_ENFORCE_DOMAIN = SocketOption.ZAP_ENFORCE_DOMAIN
LOOPBACK_FASTPATH = SocketOption.LOOPBACK_FASTPATH
METADATA = SocketOption.METADATA
MULTICAST_LOOP = SocketOption.MULTICAST_LOOP
ROUTER_NOTIFY = SocketOption.ROUTER_NOTIFY
XPUB_MANUAL_LAST_VALUE = SocketOption.XPUB_MANUAL_LAST_VALUE
SOCKS_USERNAME = SocketOption.SOCKS_USERNAME
SOCKS_PASSWORD = SocketOption.SOCKS_PASSWORD
IN_BATCH_SIZE = SocketOption.IN_BATCH_SIZE
OUT_BATCH_SIZE = SocketOption.OUT_BATCH_SIZE
WSS_KEY_PEM = SocketOption.WSS_KEY_PEM
WSS_CERT_PEM = SocketOption.WSS_CERT_PEM
WSS_TRUST_PEM = SocketOption.WSS_TRUST_PEM
WSS_HOSTNAME = SocketOption.WSS_HOSTNAME
WSS_TRUST_SYSTEM = SocketOption.WSS_TRUST_SYSTEM
ONLY_FIRST_SUBSCRIBE = SocketOption.ONLY_FIRST_SUBSCRIBE
RECONNECT_STOP = SocketOption.RECONNECT_STOP
HELLO_MSG = SocketOption.HELLO_MSG
DISCONNECT_MSG = SocketOption.DISCONNECT_MSG
PRIORITY = SocketOption.PRIORITY
BUSY_POLL = SocketOption.BUSY_POLL
HICCUP_MSG = SocketOption.HICCUP_MSG
XSUB_VERBOSE_UNSUBSCRIBE = SocketOption.XSUB_VERBOSE_UNSUBSCRIBE
TOPICS_COUNT = SocketOption.TOPICS_COUNT
NORM_MODE = SocketOption.NORM_MODE
NORM_UNICAST_NACK = SocketOption.NORM_UNICAST_NACK
NORM_BUFFER_SIZE = SocketOption.NORM_BUFFER_SIZE
NORM_SEGMENT_SIZE = SocketOption.NORM_SEGMENT_SIZE
NORM_BLOCK_SIZE = SocketOption.NORM_BLOCK_SIZE
NORM_NUM_PARITY = SocketOption.NORM_NUM_PARITY
NORM_NUM_AUTOPARITY = SocketOption.NORM_NUM_AUTOPARITY
NORM_PUSH = SocketOption.NORM_PUSH

# Socket types
PAIR = SocketType.PAIR
PUB = SocketType.PUB
SUB = SocketType.SUB
REQ = SocketType.REQ
REP = SocketType.REP
DEALER = SocketType.DEALER
ROUTER = SocketType.ROUTER
PULL = SocketType.PULL
PUSH = SocketType.PUSH
XPUB = SocketType.XPUB
XSUB = SocketType.XSUB
STREAM = SocketType.STREAM
XREQ = SocketType.XREQ
XREP = SocketType.XREP
SERVER = SocketType.SERVER
CLIENT = SocketType.CLIENT
RADIO = SocketType.RADIO
DISH = SocketType.DISH
GATHER = SocketType.GATHER
SCATTER = SocketType.SCATTER
DGRAM = SocketType.DGRAM
PEER = SocketType.PEER
CHANNEL = SocketType.CHANNEL

# ---------------------------------------------------------------------------
# Top-level integers pyzmq defines outside its constants module. They live
# here so purezmq/__init__ can re-export them; they are not in __all__, to
# keep this module's star-export identical to pyzmq's ``zmq.constants``.
# ---------------------------------------------------------------------------

#: Frames smaller than this are copied rather than shared (pyzmq's default).
COPY_THRESHOLD = 65536

#: Longest ipc:// path: sizeof(sockaddr_un.sun_path) - 1 on this platform.
#: (BSD-derived systems have a 104-byte sun_path, Linux and Windows 108.)
_BSD_LIKE = sys.platform == "darwin" or "bsd" in sys.platform or "dragonfly" in sys.platform
IPC_PATH_MAX_LEN = 103 if _BSD_LIKE else 107

#: The draft socket types (CLIENT, SERVER, RADIO, DISH, SCATTER, GATHER, PEER,
#: CHANNEL) and pyzmq's draft API (Frame.routing_id and group, join/leave,
#: connect_peer) are always there: a pure implementation has no build switch.
#: libzmq's draft *options* (ROUTER_NOTIFY, HELLO_MSG...) are not implemented.
DRAFT_API = True
PYZMQ_DRAFT_API = True


# The same names as pyzmq's ``zmq.constants.__all__``, including the three
# ``enum`` base classes that module happens to re-export (so that
# ``zmq.IntEnum`` exists after ``from zmq.constants import *``).
__all__ = [
    "AFFINITY",
    "BACKLOG",
    "BINDTODEVICE",
    "BLOCKY",
    "BUSY_POLL",
    "CHANNEL",
    "CLIENT",
    "CONFLATE",
    "CONNECT_RID",
    "CONNECT_ROUTING_ID",
    "CONNECT_TIMEOUT",
    "CURVE",
    "CURVE_PUBLICKEY",
    "CURVE_SECRETKEY",
    "CURVE_SERVER",
    "CURVE_SERVERKEY",
    "DEALER",
    "DELAY_ATTACH_ON_CONNECT",
    "DGRAM",
    "DISCONNECT_MSG",
    "DISH",
    "DONTWAIT",
    "EADDRINUSE",
    "EADDRNOTAVAIL",
    "EAFNOSUPPORT",
    "EAGAIN",
    "ECONNABORTED",
    "ECONNREFUSED",
    "ECONNRESET",
    "EFAULT",
    "EFSM",
    "EHOSTUNREACH",
    "EINPROGRESS",
    "EINVAL",
    "EMSGSIZE",
    "EMTHREAD",
    "ENETDOWN",
    "ENETRESET",
    "ENETUNREACH",
    "ENOBUFS",
    "ENOCOMPATPROTO",
    "ENOTCONN",
    "ENOTSOCK",
    "ENOTSUP",
    "EPROTONOSUPPORT",
    "ETERM",
    "ETIMEDOUT",
    "EVENTS",
    "EVENT_ACCEPTED",
    "EVENT_ACCEPT_FAILED",
    "EVENT_ALL",
    "EVENT_ALL_V1",
    "EVENT_ALL_V2",
    "EVENT_BIND_FAILED",
    "EVENT_CLOSED",
    "EVENT_CLOSE_FAILED",
    "EVENT_CONNECTED",
    "EVENT_CONNECT_DELAYED",
    "EVENT_CONNECT_RETRIED",
    "EVENT_DISCONNECTED",
    "EVENT_HANDSHAKE_FAILED_AUTH",
    "EVENT_HANDSHAKE_FAILED_NO_DETAIL",
    "EVENT_HANDSHAKE_FAILED_PROTOCOL",
    "EVENT_HANDSHAKE_SUCCEEDED",
    "EVENT_LISTENING",
    "EVENT_MONITOR_STOPPED",
    "EVENT_PIPES_STATS",
    "FAIL_UNROUTABLE",
    "FD",
    "FORWARDER",
    "GATHER",
    "GSSAPI",
    "GSSAPI_PLAINTEXT",
    "GSSAPI_PRINCIPAL",
    "GSSAPI_PRINCIPAL_NAMETYPE",
    "GSSAPI_SERVER",
    "GSSAPI_SERVICE_PRINCIPAL",
    "GSSAPI_SERVICE_PRINCIPAL_NAMETYPE",
    "HANDSHAKE_IVL",
    "HEARTBEAT_IVL",
    "HEARTBEAT_TIMEOUT",
    "HEARTBEAT_TTL",
    "HELLO_MSG",
    "HICCUP_MSG",
    "HWM",
    "IDENTITY",
    "IMMEDIATE",
    "INVERT_MATCHING",
    "IN_BATCH_SIZE",
    "IO_THREADS",
    "IPC_FILTER_GID",
    "IPC_FILTER_PID",
    "IPC_FILTER_UID",
    "IPV4ONLY",
    "IPV6",
    "LAST_ENDPOINT",
    "LINGER",
    "LOOPBACK_FASTPATH",
    "MAXMSGSIZE",
    "MAX_MSGSZ",
    "MAX_SOCKETS",
    "MECHANISM",
    "METADATA",
    "MORE",
    "MSG_T_SIZE",
    "MULTICAST_HOPS",
    "MULTICAST_LOOP",
    "MULTICAST_MAXTPDU",
    "NOBLOCK",
    "NORM_BLOCK_SIZE",
    "NORM_BUFFER_SIZE",
    "NORM_CC",
    "NORM_CCE",
    "NORM_CCE_ECNONLY",
    "NORM_CCL",
    "NORM_FIXED",
    "NORM_MODE",
    "NORM_NUM_AUTOPARITY",
    "NORM_NUM_PARITY",
    "NORM_PUSH",
    "NORM_SEGMENT_SIZE",
    "NORM_UNICAST_NACK",
    "NOTIFY_CONNECT",
    "NOTIFY_DISCONNECT",
    "NULL",
    "ONLY_FIRST_SUBSCRIBE",
    "OUT_BATCH_SIZE",
    "PAIR",
    "PEER",
    "PLAIN",
    "PLAIN_PASSWORD",
    "PLAIN_SERVER",
    "PLAIN_USERNAME",
    "POLLERR",
    "POLLIN",
    "POLLOUT",
    "POLLPRI",
    "PRIORITY",
    "PROBE_ROUTER",
    "PROTOCOL_ERROR_WS_UNSPECIFIED",
    "PROTOCOL_ERROR_ZAP_BAD_REQUEST_ID",
    "PROTOCOL_ERROR_ZAP_BAD_VERSION",
    "PROTOCOL_ERROR_ZAP_INVALID_METADATA",
    "PROTOCOL_ERROR_ZAP_INVALID_STATUS_CODE",
    "PROTOCOL_ERROR_ZAP_MALFORMED_REPLY",
    "PROTOCOL_ERROR_ZAP_UNSPECIFIED",
    "PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC",
    "PROTOCOL_ERROR_ZMTP_INVALID_METADATA",
    "PROTOCOL_ERROR_ZMTP_INVALID_SEQUENCE",
    "PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_ERROR",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_HELLO",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_INITIATE",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_MESSAGE",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_READY",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_UNSPECIFIED",
    "PROTOCOL_ERROR_ZMTP_MALFORMED_COMMAND_WELCOME",
    "PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH",
    "PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND",
    "PROTOCOL_ERROR_ZMTP_UNSPECIFIED",
    "PUB",
    "PULL",
    "PUSH",
    "QUEUE",
    "RADIO",
    "RATE",
    "RCVBUF",
    "RCVHWM",
    "RCVMORE",
    "RCVTIMEO",
    "RECONNECT_IVL",
    "RECONNECT_IVL_MAX",
    "RECONNECT_STOP",
    "RECONNECT_STOP_AFTER_DISCONNECT",
    "RECONNECT_STOP_CONN_REFUSED",
    "RECONNECT_STOP_HANDSHAKE_FAILED",
    "RECOVERY_IVL",
    "REP",
    "REQ",
    "REQ_CORRELATE",
    "REQ_RELAXED",
    "ROUTER",
    "ROUTER_BEHAVIOR",
    "ROUTER_HANDOVER",
    "ROUTER_MANDATORY",
    "ROUTER_NOTIFY",
    "ROUTER_RAW",
    "ROUTING_ID",
    "SCATTER",
    "SERVER",
    "SHARED",
    "SNDBUF",
    "SNDHWM",
    "SNDMORE",
    "SNDTIMEO",
    "SOCKET_LIMIT",
    "SOCKS_PASSWORD",
    "SOCKS_PROXY",
    "SOCKS_USERNAME",
    "SRCFD",
    "STREAM",
    "STREAMER",
    "STREAM_NOTIFY",
    "SUB",
    "SUBSCRIBE",
    "TCP_ACCEPT_FILTER",
    "TCP_KEEPALIVE",
    "TCP_KEEPALIVE_CNT",
    "TCP_KEEPALIVE_IDLE",
    "TCP_KEEPALIVE_INTVL",
    "TCP_MAXRT",
    "THREAD_AFFINITY_CPU_ADD",
    "THREAD_AFFINITY_CPU_REMOVE",
    "THREAD_NAME_PREFIX",
    "THREAD_PRIORITY",
    "THREAD_SAFE",
    "THREAD_SCHED_POLICY",
    "TOPICS_COUNT",
    "TOS",
    "TYPE",
    "UNSUBSCRIBE",
    "USE_FD",
    "VMCI_BUFFER_MAX_SIZE",
    "VMCI_BUFFER_MIN_SIZE",
    "VMCI_BUFFER_SIZE",
    "VMCI_CONNECT_TIMEOUT",
    "WSS_CERT_PEM",
    "WSS_HOSTNAME",
    "WSS_KEY_PEM",
    "WSS_TRUST_PEM",
    "WSS_TRUST_SYSTEM",
    "XPUB",
    "XPUB_MANUAL",
    "XPUB_MANUAL_LAST_VALUE",
    "XPUB_NODROP",
    "XPUB_VERBOSE",
    "XPUB_VERBOSER",
    "XPUB_WELCOME_MSG",
    "XREP",
    "XREQ",
    "XSUB",
    "XSUB_VERBOSE_UNSUBSCRIBE",
    "ZAP_DOMAIN",
    "ZAP_ENFORCE_DOMAIN",
    "ContextOption",
    "DeviceType",
    "Enum",
    "Errno",
    "Event",
    "Flag",
    "IntEnum",
    "IntFlag",
    "MessageOption",
    "NormMode",
    "PollEvent",
    "ReconnectStop",
    "RouterNotify",
    "SecurityMechanism",
    "SocketOption",
    "SocketType",
]
