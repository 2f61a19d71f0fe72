"""purezmq: ZeroMQ in pure Python, with pyzmq's API and libzmq's wire protocol.

``import purezmq as zmq`` and a pyzmq program runs unchanged, and talks to
any libzmq, JeroMQ or NetMQ peer over ZMTP 3.1/3.0 - no compiler, no libzmq.
"""

from __future__ import annotations

import sys as _sys

from . import constants, error
from ._build import COMPILED as COMPILED  # the hot modules run compiled (mypyc)
from ._crypto import curve_keypair, curve_public
from .constants import *  # noqa: F403 - pyzmq exports every constant at the top level
from .constants import COPY_THRESHOLD, DRAFT_API, IPC_PATH_MAX_LEN, PYZMQ_DRAFT_API
from .error import (
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
from .sugar.context import Context, SyncContext
from .sugar.frame import Frame, Message
from .sugar.poll import Poller, select, zmq_poll
from .sugar.proxy import device, proxy, proxy_steerable
from .sugar.socket import Socket, SyncSocket
from .sugar.stopwatch import Stopwatch
from .sugar.tracker import _FINISHED_TRACKER, MessageTracker
from .sugar.version import (
    __revision__,
    __version__,
    pyzmq_version,
    pyzmq_version_info,
    zmq_version,
    zmq_version_info,
)

#: Capabilities this build has, for `has()`.
_CAPABILITIES = {
    "ipc": not _sys.platform.startswith("win"),
    "pgm": True,  # pgm:// and epgm:// (docs/multicast.md)
    "tipc": False,
    "norm": False,
    "curve": False,  # asked of PyNaCl when has("curve") is called
    "gssapi": False,
    "draft": True,  # the draft socket types (docs/drafts.md)
}


def has(capability: str) -> bool:
    """Whether purezmq supports `capability` ('ipc', 'curve', 'pgm', 'draft', ...).

    'curve' is True when PyNaCl is installed (``pip install 'purezmq[curve]'``).
    """
    if capability == "curve":
        from ._crypto import available

        return available()
    return _CAPABILITIES.get(capability, False)


def get_includes() -> list[str]:
    """pyzmq returns C header directories; purezmq has no C API, so none."""
    return []


def get_library_dirs() -> list[str]:
    """pyzmq returns libzmq's directory; purezmq links no library, so none."""
    return []


__all__: list[str] = [
    "COPY_THRESHOLD",
    "DRAFT_API",
    "IPC_PATH_MAX_LEN",
    "PYZMQ_DRAFT_API",
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
    "constants",
    "curve_keypair",
    "curve_public",
    "device",
    "error",
    "get_includes",
    "get_library_dirs",
    "has",
    "proxy",
    "proxy_steerable",
    "pyzmq_version",
    "pyzmq_version_info",
    "select",
    "strerror",
    "zmq_errno",
    "zmq_poll",
    "zmq_version",
    "zmq_version_info",
]
__all__ += constants.__all__

# pyzmq's package exposes these subpackages as attributes after `import zmq`.
from . import backend as backend  # noqa: E402
from . import sugar as sugar  # noqa: E402
from . import utils as utils  # noqa: E402
