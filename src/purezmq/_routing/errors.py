"""Errors a socket pattern raises. The socket layer turns each into pyzmq's
ZMQError with the errno named here (this layer imports no purezmq module)."""

from __future__ import annotations

from typing import ClassVar


class RoutingError(Exception):
    """Base: a send/recv the pattern refuses. `errno_name` names the errno."""

    #: A class constant. ClassVar matters: mypyc would otherwise compile it as
    #: an instance attribute's default, which its subclasses' values do not set.
    errno_name: ClassVar[str] = "EINVAL"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FsmError(RoutingError):
    """The operation is not allowed in the socket's current state (EFSM)."""

    errno_name = "EFSM"


class HostUnreachableError(RoutingError):
    """ROUTER_MANDATORY and no peer with that routing id (EHOSTUNREACH)."""

    errno_name = "EHOSTUNREACH"


class NotSupportedError(RoutingError):
    """The socket type does not do this at all, e.g. recv on PUB (ENOTSUP)."""

    errno_name = "ENOTSUP"


class InvalidError(RoutingError):
    """Malformed input from the application, e.g. a bad option value (EINVAL)."""

    errno_name = "EINVAL"
