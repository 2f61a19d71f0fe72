"""String-type helpers kept for old programs (pyzmq's ``zmq.utils.strtypes``, deprecated)."""

from __future__ import annotations

import builtins
import warnings

bytes = builtins.bytes  # the names pyzmq exports
unicode = str
basestring = (str,)

_DEPRECATED = "zmq.utils.strtypes is deprecated; use str.encode / bytes.decode"


def cast_bytes(
    s: str | builtins.bytes, encoding: str = "utf8", errors: str = "strict"
) -> builtins.bytes:
    """`s` as bytes (str is encoded)."""
    warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
    if isinstance(s, builtins.bytes):
        return s
    if isinstance(s, str):
        return s.encode(encoding, errors)
    raise TypeError(f"Expected unicode or bytes, got {s!r}")


def cast_unicode(s: str | builtins.bytes, encoding: str = "utf8", errors: str = "strict") -> str:
    """`s` as str (bytes are decoded)."""
    warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
    if isinstance(s, builtins.bytes):
        return s.decode(encoding, errors)
    if isinstance(s, str):
        return s
    raise TypeError(f"Expected unicode or bytes, got {s!r}")


b = asbytes = cast_bytes
u = cast_unicode

__all__ = ["asbytes", "b", "basestring", "bytes", "cast_bytes", "cast_unicode", "u", "unicode"]
