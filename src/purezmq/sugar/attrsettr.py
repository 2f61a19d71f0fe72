"""Options as attributes: ``sock.linger = 0`` means ``sock.set(zmq.LINGER, 0)``.

Attributes that exist on the object or its class (including annotations of
subclasses) are ordinary attributes; any other name is looked up, upper-
cased, among the constants and treated as an option - pyzmq's convention.
"""

from __future__ import annotations

import errno
from typing import Any

from purezmq import constants
from purezmq.error import ZMQError


class AttributeSetter:
    """Mixin mapping unknown attribute names to get/set of the named option."""

    def __setattr__(self, key: str, value: Any) -> None:
        if key.startswith("_") or key in self.__dict__ or _declared(type(self), key):
            object.__setattr__(self, key, value)
            return
        upper = key.upper()
        opt = getattr(constants, upper, None)
        if not isinstance(opt, int):
            raise AttributeError(f"{type(self).__name__} has no such option: {upper}")
        self._set_attr_opt(upper, opt, value)

    def __getattr__(self, key: str) -> Any:
        # Only called when normal lookup fails.
        if key.startswith("_"):
            raise AttributeError(key)
        upper = key.upper()
        opt = getattr(constants, upper, None)
        if not isinstance(opt, int):
            raise AttributeError(f"{type(self).__name__} has no such option: {upper}")
        try:
            return self._get_attr_opt(upper, opt)
        except ZMQError as e:
            # Write-only options (and names that are not options of this
            # object) are not readable attributes: AttributeError, so that
            # getattr(obj, name, default), hasattr() and mock specs work.
            if e.errno in (errno.EINVAL, errno.EFAULT):
                raise AttributeError(f"{key}: {e.strerror}") from None
            raise

    def __dir__(self) -> list[str]:
        # The options readable as attributes are listed too (pyzmq does the same).
        return sorted({*super().__dir__(), *self._attr_option_names()})

    def _attr_option_names(self) -> list[str]:
        """Option names to list in dir() (none by default)."""
        return []

    def _set_attr_opt(self, name: str, opt: int, value: Any) -> None:
        self.set(opt, value)

    def _get_attr_opt(self, name: str, opt: int) -> Any:
        return self.get(opt)


def _declared(cls: type, key: str) -> bool:
    for klass in cls.__mro__:
        if key in klass.__dict__ or key in getattr(klass, "__annotations__", {}):
            return True
    return False
