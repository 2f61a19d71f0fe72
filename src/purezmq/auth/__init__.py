"""ZAP authentication (RFC 27) with pyzmq's API: `zmq.auth`.

An authenticator binds the ZAP handler socket (``inproc://zeromq.zap.01``)
in a context and answers the requests that PLAIN and CURVE servers - and
NULL sockets with a ZAP_DOMAIN - of that context send for each new peer:

- `zmq.auth.thread.ThreadAuthenticator` answers from a background thread;
- `zmq.auth.asyncio.AsyncioAuthenticator` from the running asyncio loop;
- `Authenticator` itself only binds; you feed it the requests.

Policies: allow or deny IP addresses, PLAIN user names and passwords per
domain, CURVE client keys from a directory of public certificates (or any
key: `CURVE_ALLOW_ANY`, or a callback). Certificates are made and read with
`create_certificates`, `load_certificate` and `load_certificates`.

Without a handler, libzmq's rules apply: PLAIN servers refuse everybody,
CURVE servers accept any client that knows their public key (see
docs/security.md).
"""

from .base import CURVE_ALLOW_ANY, Authenticator
from .certs import create_certificates, load_certificate, load_certificates

__all__ = [
    "CURVE_ALLOW_ANY",
    "Authenticator",
    "create_certificates",
    "load_certificate",
    "load_certificates",
]
