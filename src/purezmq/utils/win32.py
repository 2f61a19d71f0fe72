"""Windows console helpers (pyzmq's ``zmq.utils.win32``).

``allow_interrupt`` lets Ctrl-C interrupt a blocking call on Windows, where
libzmq's C calls would otherwise swallow it. purezmq's blocking calls are
Python code and already wake up for signals, so this only matters for an
`action` to run on Ctrl-C: on Windows it installs a console control handler
for the duration of the ``with`` block; elsewhere it does nothing, as in pyzmq.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    def _install(action: Callable[[], Any] | None) -> Callable[[], None]:
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handler_type = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.DWORD)

        def handle(event: int) -> int:
            if event == 0:  # CTRL_C_EVENT
                if action is not None:
                    action()
                else:
                    import _thread

                    _thread.interrupt_main()
            return 0

        handler = handler_type(handle)
        kernel32.SetConsoleCtrlHandler(handler, True)
        return lambda: kernel32.SetConsoleCtrlHandler(handler, False)

else:

    def _install(action: Callable[[], Any] | None) -> Callable[[], None]:
        return lambda: None


class allow_interrupt:  # noqa: N801 - pyzmq's name
    """``with allow_interrupt(action): ...`` - call `action` on Ctrl-C (Windows)."""

    def __init__(self, action: Callable[[], Any] | None = None) -> None:
        self._action = action
        self._undo: Callable[[], None] | None = None

    def __enter__(self) -> None:
        self._undo = _install(self._action)

    def __exit__(self, *args: Any) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None


__all__ = ["allow_interrupt"]
