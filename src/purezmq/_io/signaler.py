"""A file descriptor one thread makes readable to wake another.

Every cross-thread wake-up in purezmq goes through a `Signaler`: the I/O
thread's command queue, and each socket's mailbox (through the socket's
`PollWaiter`, whose descriptor is also the socket's ``FD`` option, so
selectors and event loops can wait on it).

On Linux it is an eventfd (one descriptor, no buffer to fill); elsewhere a
non-blocking socketpair. Signalling is idempotent: many `signal()` calls
before one `drain()` leave the descriptor readable once.
"""

from __future__ import annotations

import errno
import os
import socket

_HAVE_EVENTFD = hasattr(os, "eventfd")


class Signaler:
    """Readable after `signal()` until `drain()`. Thread-safe for one reader."""

    __slots__ = ("_closed", "_rfd", "_rsock", "_wfd", "_wsock")

    def __init__(self) -> None:
        self._closed = False
        self._rsock: socket.socket | None = None
        self._wsock: socket.socket | None = None
        if _HAVE_EVENTFD:
            fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
            self._rfd = self._wfd = fd
        else:  # pragma: no cover - exercised on platforms without eventfd
            r, w = socket.socketpair()
            r.setblocking(False)
            w.setblocking(False)
            self._rsock, self._wsock = r, w
            self._rfd, self._wfd = r.fileno(), w.fileno()

    def fileno(self) -> int:
        """The descriptor to wait on for readability."""
        return self._rfd

    def signal(self) -> None:
        """Make the descriptor readable (safe from any thread, even if closed)."""
        try:
            if _HAVE_EVENTFD:
                os.eventfd_write(self._wfd, 1)
            else:  # pragma: no cover
                os.write(self._wfd, b"\x00")
        except BlockingIOError:  # pragma: no cover - socketpair buffer full: already signalled
            pass
        except OSError as e:
            # Signalling a closed signaler is a harmless race at shutdown.
            if e.errno not in (errno.EBADF, errno.EPIPE) and not self._closed:
                raise

    def drain(self) -> None:
        """Consume all pending signals (only the waiting thread calls this)."""
        try:
            if _HAVE_EVENTFD:
                os.eventfd_read(self._rfd)
            else:  # pragma: no cover
                while os.read(self._rfd, 4096):
                    pass
        except BlockingIOError:
            pass
        except OSError as e:  # pragma: no cover
            if e.errno != errno.EBADF:
                raise

    def close(self) -> None:
        """Release the descriptor(s)."""
        if self._closed:
            return
        self._closed = True
        if self._rsock is not None and self._wsock is not None:  # pragma: no cover
            self._rsock.close()
            self._wsock.close()
        else:
            os.close(self._rfd)

    @property
    def closed(self) -> bool:
        return self._closed
