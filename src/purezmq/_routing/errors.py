"""Errors a socket pattern raises. The socket layer turns each into pyzmq's
ZMQError with the errno named here (this layer imports no purezmq module)."""

from __future__ import annotations


class RoutingError(Exception):
    """Base: a send/recv the pattern refuses. `errno_name` names the errno."""

    errno_name = "EINVAL"

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
