"""Helpers for pattern options (values arrive already type-checked by name)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from purezmq._routing.errors import InvalidError

if TYPE_CHECKING:
    from .base import Pattern


def flag(name: str, value: Any) -> bool:
    """An int option used as a boolean: libzmq accepts ``value >= 0`` only."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, int) or value < 0:
        raise InvalidError(f"option {name} takes a non-negative integer, not {value!r}")
    return value != 0


def blob(name: str, value: Any) -> bytes:
    """A binary option (subscription topic, welcome message)."""
    if isinstance(value, str):
        raise InvalidError(f"option {name} takes bytes; encode the str first")
    try:
        return bytes(value)
    except TypeError:
        raise InvalidError(f"option {name} takes bytes, not {type(value).__name__}") from None


def invalid(pattern: Pattern, name: str) -> NoReturn:
    """`name` is not an option of this socket type (EINVAL, as libzmq)."""
    raise InvalidError(f"option {name} is not valid for {pattern.socket_type} sockets")


def write_only(pattern: Pattern, name: str) -> NoReturn:
    """libzmq's pattern options are mostly write-only: reading them is EINVAL."""
    if name in pattern.options:
        raise InvalidError(f"option {name} cannot be read on {pattern.socket_type} sockets")
    invalid(pattern, name)
