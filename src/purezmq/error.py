"""pyzmq's exception classes, and how purezmq raises them.

Programs catch these by class (``except zmq.Again``) and inspect
``e.errno``, so the hierarchy, the constructor signatures, ``str()``,
``repr()`` and pickling all behave as in pyzmq:

- ``ZMQBaseError`` is the root; ``ZMQBindError`` and ``NotDone`` derive from
  it directly.
- ``ZMQError(errno, msg)`` carries ``errno`` and ``strerror``; given only an
  errno it fills ``strerror`` with libzmq's message for it.
- ``Again`` (EAGAIN), ``ContextTerminated`` (ETERM) and
  ``InterruptedSystemCall`` (EINTR, also an ``InterruptedError``) are
  ``ZMQError`` subclasses; they ignore the arguments they are given and
  always describe their own errno, exactly as pyzmq's do.
- ``ZMQVersionError`` is a ``NotImplementedError``, not a ``ZMQError``.

purezmq code raises through `raise_errno` / `_error_for`, which pick the subclass
pyzmq would pick for the errno and remember it for `zmq_errno`.
"""

from __future__ import annotations

import os
import sys
import threading
from errno import EINTR
from typing import Literal, NoReturn

from .constants import (
    EADDRINUSE,
    EADDRNOTAVAIL,
    EAGAIN,
    ECONNREFUSED,
    EFSM,
    EHOSTUNREACH,
    EINPROGRESS,
    EMTHREAD,
    ENETDOWN,
    ENOBUFS,
    ENOCOMPATPROTO,
    ENOTSUP,
    EPROTONOSUPPORT,
    ETERM,
)

# ---------------------------------------------------------------------------
# Error messages
# ---------------------------------------------------------------------------

#: libzmq's own wording (zmq_strerror) where it differs from the C library's.
_LIBZMQ_MESSAGES: dict[int, str] = {
    EFSM: "Operation cannot be accomplished in current state",
    ENOCOMPATPROTO: "The protocol is not compatible with the socket type",
    ETERM: "Context was terminated",
    EMTHREAD: "No thread available",
    EHOSTUNREACH: "Host unreachable",
}

if sys.platform == "win32":  # pragma: no cover - platform specific
    # libzmq names the errno.h codes the Windows CRT does not describe itself.
    _LIBZMQ_MESSAGES.update(
        {
            ENOTSUP: "Not supported",
            EPROTONOSUPPORT: "Protocol not supported",
            ENOBUFS: "No buffer space available",
            ENETDOWN: "Network is down",
            EADDRINUSE: "Address in use",
            EADDRNOTAVAIL: "Address not available",
            ECONNREFUSED: "Connection refused",
            EINPROGRESS: "Operation in progress",
        }
    )


def strerror(errno: int) -> str:
    """The message libzmq's ``zmq_strerror`` gives for `errno`.

    0MQ's own codes (EFSM, ETERM...) get libzmq's wording; everything else
    is the platform's ``strerror``, as in libzmq.
    """
    message = _LIBZMQ_MESSAGES.get(errno)
    return message if message is not None else os.strerror(errno)


# ---------------------------------------------------------------------------
# The thread's last error (zmq_errno)
# ---------------------------------------------------------------------------


#: The libzmq release whose behaviour and protocol purezmq implements
#: (`zmq.zmq_version_info()`); here, at the bottom of the package, so that
#: errors can name it without importing the facade.
LIBZMQ_VERSION_INFO: tuple[int, int, int] = (4, 3, 5)


class _LastError(threading.local):
    """Per-thread record of the last errno purezmq raised, like C's errno."""

    errno: int = 0


_last_error = _LastError()


def zmq_errno() -> int:
    """The errno of the last purezmq error raised in this thread (0 if none).

    libzmq reads the C ``errno``; purezmq has no C calls, so it remembers
    the errno of the last `ZMQError` it raised on this thread instead.
    """
    return _last_error.errno


# ---------------------------------------------------------------------------
# Exception classes
# ---------------------------------------------------------------------------


class DraftFDWarning(RuntimeWarning):
    """Warning about using FD on a thread-safe (draft) socket.

    purezmq has no draft sockets, so it never issues this; the class exists
    because pyzmq programs may filter it by name.
    """

    def __init__(self, msg: str = "") -> None:
        if not msg:
            msg = (
                "socket.FD on thread-safe draft sockets is experimental and may be removed."
                " Silence this warning with"
                " warnings.simplefilter('ignore', zmq.error.DraftFDWarning)"
            )
        super().__init__(msg)


class ZMQBaseError(Exception):
    """Root of every exception purezmq raises on its own account."""


class ZMQError(ZMQBaseError):
    """An error with a 0MQ errno, as returned by libzmq calls.

    ``ZMQError(errno)`` describes the errno with `strerror`;
    ``ZMQError(errno, msg)`` uses `msg` instead. Without an errno, the
    thread's `zmq_errno` is used. A non-int "errno" is taken as the message
    and leaves ``errno`` None, which is how pyzmq treats it.
    """

    errno: int | None = None
    strerror: str

    def __init__(self, errno: int | str | None = None, msg: str | None = None) -> None:
        if errno is None:
            errno = zmq_errno()
        if isinstance(errno, int):
            self.errno = errno
            self.strerror = strerror(errno) if msg is None else msg
        else:
            self.strerror = str(errno) if msg is None else msg

    def __str__(self) -> str:
        return self.strerror

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}('{self}')"


class ZMQBindError(ZMQBaseError):
    """``Socket.bind_to_random_port`` found no free port in its range."""


class NotDone(ZMQBaseError):
    """A ``MessageTracker.wait`` timed out before 0MQ finished with a message."""


class ContextTerminated(ZMQError):
    """ETERM: the socket's context was terminated while it was in use.

    Arguments are accepted for signature compatibility and ignored.
    """

    def __init__(
        self,
        errno: int | Literal["ignored"] = "ignored",
        msg: str = "ignored",
    ) -> None:
        super().__init__(ETERM)


class Again(ZMQError):
    """EAGAIN: a non-blocking call (or one with a timeout) could not proceed.

    Arguments are accepted for signature compatibility and ignored.
    """

    def __init__(
        self,
        errno: int | Literal["ignored"] = "ignored",
        msg: str = "ignored",
    ) -> None:
        super().__init__(EAGAIN)


class InterruptedSystemCall(ZMQError, InterruptedError):
    """EINTR escaped a call that should have retried it.

    purezmq retries interrupted waits itself, so seeing this is a bug.
    Arguments are accepted for signature compatibility and ignored.
    """

    errno = EINTR
    strerror: str

    def __init__(
        self,
        errno: int | Literal["ignored"] = "ignored",
        msg: str = "ignored",
    ) -> None:
        super().__init__(EINTR)

    def __str__(self) -> str:
        return (
            super().__str__()
            + ": This call should have been retried. Please report this to purezmq."
        )


class ZMQVersionError(NotImplementedError):
    """A feature needs a newer libzmq than the one purezmq implements.

    purezmq implements libzmq 4.3.5's behaviour, so ``version`` is "4.3.5".
    """

    msg: str
    min_version: str
    version: str

    def __init__(self, min_version: str, msg: str = "Feature") -> None:
        self.msg = msg
        self.min_version = min_version
        self.version = ".".join(str(part) for part in LIBZMQ_VERSION_INFO)

    def __repr__(self) -> str:
        return f"ZMQVersionError('{self}')"

    def __str__(self) -> str:
        return f"{self.msg} requires libzmq >= {self.min_version}, have {self.version}"


# ---------------------------------------------------------------------------
# Raising helpers for purezmq's own modules
# ---------------------------------------------------------------------------


def _error_for(errno: int, msg: str | None = None) -> ZMQError:
    """The exception pyzmq would raise for `errno`, recorded for zmq_errno.

    EAGAIN, ETERM and EINTR give their subclasses, which always describe
    their own errno (as pyzmq's do), so `msg` only reaches plain ZMQErrors.
    Returned rather than raised so futures can ``set_exception`` it.
    """
    _last_error.errno = errno
    if errno == EAGAIN:
        return Again(errno)
    if errno == ETERM:
        return ContextTerminated(errno)
    if errno == EINTR:
        return InterruptedSystemCall(errno)
    # Built with pyzmq's arguments so that .args (and pickles) match too.
    return ZMQError(errno) if msg is None else ZMQError(errno, msg)


def raise_errno(errno: int, msg: str | None = None) -> NoReturn:
    """Raise what pyzmq raises for `errno` (see `_error_for`)."""
    raise _error_for(errno, msg)


#: Short name for purezmq's internal use.
_raise = raise_errno


def _check_rc(rc: int, errno: int | None = None, error_without_errno: bool = True) -> None:
    """pyzmq's helper for C-style return codes: raise if `rc` is -1.

    Kept for code ported from pyzmq; purezmq's own code calls `raise_errno`.
    """
    if rc != -1:
        return
    if errno is None:
        errno = zmq_errno()
    if errno == 0 and not error_without_errno:
        return
    raise_errno(errno)


def _check_version(
    min_version_info: tuple[int] | tuple[int, int] | tuple[int, int, int],
    msg: str = "Feature",
) -> None:
    """Raise ZMQVersionError if libzmq 4.3.5 is older than `min_version_info`."""
    if min_version_info > LIBZMQ_VERSION_INFO:
        min_version = ".".join(str(part) for part in min_version_info)
        raise ZMQVersionError(min_version, msg)


__all__ = [
    "Again",
    "ContextTerminated",
    "DraftFDWarning",
    "InterruptedSystemCall",
    "NotDone",
    "ZMQBaseError",
    "ZMQBindError",
    "ZMQError",
    "ZMQVersionError",
]
