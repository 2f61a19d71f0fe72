"""pyzmq's "sugar" layer: the pure-Python API classes.

As in pyzmq, the package re-exports them (``zmq.sugar.Socket`` ...).
"""

from purezmq.error import (
    Again,
    ContextTerminated,
    DraftFDWarning,
    InterruptedSystemCall,
    NotDone,
    ZMQBaseError,
    ZMQBindError,
    ZMQError,
    ZMQVersionError,
    strerror,
    zmq_errno,
)

from . import context, frame, poll, socket, tracker, version
from .context import Context, SyncContext
from .frame import Frame, Message
from .poll import Poller, select
from .proxy import device
from .socket import Socket, SyncSocket
from .stopwatch import Stopwatch
from .tracker import _FINISHED_TRACKER, MessageTracker
from .version import (
    __revision__,
    __version__,
    pyzmq_version,
    pyzmq_version_info,
    zmq_version,
    zmq_version_info,
)

__all__ = [
    "_FINISHED_TRACKER",
    "Again",
    "Context",
    "ContextTerminated",
    "DraftFDWarning",
    "Frame",
    "InterruptedSystemCall",
    "Message",
    "MessageTracker",
    "NotDone",
    "Poller",
    "Socket",
    "Stopwatch",
    "SyncContext",
    "SyncSocket",
    "ZMQBaseError",
    "ZMQBindError",
    "ZMQError",
    "ZMQVersionError",
    "__revision__",
    "__version__",
    "context",
    "device",
    "frame",
    "poll",
    "pyzmq_version",
    "pyzmq_version_info",
    "select",
    "socket",
    "strerror",
    "tracker",
    "version",
    "zmq_errno",
    "zmq_version",
    "zmq_version_info",
]
