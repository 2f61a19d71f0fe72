"""What compiled modules need from mypyc at type-check time, without it at run time.

`mypyc_attr` tells mypyc how to compile a class (e.g. that interpreted
code may subclass it). mypyc reads it from ``mypy_extensions`` while
compiling; at run time a compiled class has already been built and a pure
module needs only a decorator that does nothing. This module is never
compiled itself, so its run-time branch is the no-op - the package keeps
needing nothing outside the standard library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:

    def mypyc_attr(*args: object, **kwargs: object) -> Any:
        """No-op stand-in for mypy_extensions.mypyc_attr."""
        return lambda cls: cls


__all__ = ["mypyc_attr"]
