"""Interoperability helpers (pyzmq's ``zmq.utils.interop``)."""

from __future__ import annotations

from typing import Any


def cast_int_addr(n: Any) -> int:
    """An address as a Python int.

    pyzmq also accepts a CFFI pointer here; purezmq objects are addressed by
    the plain ints that ``Context.underlying`` / ``Socket.underlying`` return."""
    if isinstance(n, int):
        return n
    try:
        import cffi  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        pass
    else:
        ffi = cffi.FFI()
        if isinstance(n, ffi.CData):
            return int(ffi.cast("size_t", n))
    raise ValueError(f"Cannot cast {n!r} to int")


__all__ = ["cast_int_addr"]
