"""`Authenticator`: the ZAP handler's policies (pyzmq's ``zmq.auth.base``).

A ZAP request (RFC 27) carries: version, request id, domain, the peer's
address, the server socket's routing id, the mechanism and its credentials
(PLAIN: user name and password; CURVE: the client's long-term public key).
`handle_zap_message` decides and replies through `zap_socket`:

1. an address that is not allowed (when an allow list exists) or that is
   denied is refused, whatever the mechanism;
2. NULL passes (the address check is all there is);
3. PLAIN passes when the domain's password table (domain "*" when the
   request has none) holds that user with that password;
4. CURVE passes with `CURVE_ALLOW_ANY`, or when a callback approves the key,
   or when the domain's certificate directory holds the key;
5. GSSAPI passes (an outside service already authenticated the principal).

A pass is answered "200 OK" with a User-Id (the PLAIN user name, the CURVE
key's Z85 text by default - see `curve_user_id` - or "anonymous"); a refusal
"400" with the reason. The server socket then puts the User-Id in every
message's properties: ``frame.get("User-Id")``.

Until a policy is configured: NULL peers pass, PLAIN and CURVE peers are
refused. Passwords are compared in constant time and never logged.
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Awaitable
from typing import Any

import purezmq as zmq
from purezmq.utils import z85

from .certs import load_certificates

#: `configure_curve(location=CURVE_ALLOW_ANY)`: any client key passes.
CURVE_ALLOW_ANY = "*"
#: The ZAP version this handler speaks.
VERSION = b"1.0"
#: Where ZAP handlers bind (RFC 27).
ZAP_ENDPOINT = "inproc://zeromq.zap.01"


class Authenticator:
    """ZAP policies and the handler socket, without an event loop of its own.

    Call `start` to bind ``zap_socket``, then feed each request it receives
    to `handle_zap_message` (a coroutine)::

        auth = Authenticator(ctx)
        auth.allow("127.0.0.1")
        auth.start()
        while True:
            await auth.handle_zap_message(auth.zap_socket.recv_multipart())

    `zmq.auth.thread.ThreadAuthenticator` and
    `zmq.auth.asyncio.AsyncioAuthenticator` run that loop for you.
    """

    context: Any
    encoding: str
    allow_any: bool
    credentials_providers: dict[str, Any]
    zap_socket: Any
    _allowed: set[str]
    _denied: set[str]
    passwords: dict[str, dict[str, str]]
    certs: dict[str, dict[bytes, Any]]
    log: Any

    def __init__(self, context: Any = None, encoding: str = "utf-8", log: Any = None) -> None:
        self.context = context or zmq.Context.instance()
        self.encoding = encoding
        self.allow_any = False
        self.credentials_providers = {}
        self.zap_socket = None
        self._allowed = set()
        self._denied = set()
        #: domain -> {user name: password}
        self.passwords = {}
        #: domain -> {Z85 public key: True}
        self.certs = {}
        self.log = log or logging.getLogger("zmq.auth")

    # ------------------------------------------------------------ socket
    def start(self) -> None:
        """Bind the ZAP handler socket (a REP at inproc://zeromq.zap.01)."""
        self.zap_socket = self.context.socket(zmq.REP, socket_class=zmq.Socket)
        self.zap_socket.linger = 1
        self.zap_socket.bind(ZAP_ENDPOINT)
        self.log.debug("Starting")

    def stop(self) -> None:
        """Close the ZAP handler socket."""
        if self.zap_socket:
            self.zap_socket.close()
        self.zap_socket = None

    # ------------------------------------------------------------ policies
    def allow(self, *addresses: str) -> None:
        """Allow these IP addresses; every other address is refused.

        NULL peers from them pass; PLAIN and CURVE peers still have to
        authenticate. Mutually exclusive with `deny`.
        """
        if self._denied:
            raise ValueError("Only use allow or deny, not both")
        self.log.debug("Allowing %s", ",".join(addresses))
        self._allowed.update(addresses)

    def deny(self, *addresses: str) -> None:
        """Refuse these IP addresses; the others go on to authenticate.

        Mutually exclusive with `allow`.
        """
        if self._allowed:
            raise ValueError("Only use a allow or deny, not both")
        self.log.debug("Denying %s", ",".join(addresses))
        self._denied.update(addresses)

    def configure_plain(self, domain: str = "*", passwords: dict[str, str] | None = None) -> None:
        """PLAIN: the user names and passwords of `domain` ("*": any domain).

        The dict is used as given, so later changes to it apply at once.
        """
        if passwords:
            self.passwords[domain] = passwords
        self.log.debug("Configure plain: %s", domain)

    def configure_curve(self, domain: str = "*", location: str | os.PathLike[str] = ".") -> None:
        """CURVE: accept the client keys whose public certificates (``*.key``
        files) are in the directory `location`, for `domain` ("*": any).

        `location` = `CURVE_ALLOW_ANY` accepts every key. Call again after
        adding or removing certificates.
        """
        self.log.debug("Configure curve: %s[%s]", domain, location)
        if location == CURVE_ALLOW_ANY:
            self.allow_any = True
            return
        self.allow_any = False
        try:
            self.certs[domain] = load_certificates(location)
        except Exception as e:
            self.log.error("Failed to load CURVE certs from %s: %s", location, e)

    def configure_curve_callback(self, domain: str = "*", credentials_provider: Any = None) -> None:
        """CURVE: ask `credentials_provider.callback(domain, z85_key)` (which
        may be a coroutine function) whether a client key passes."""
        self.allow_any = False
        if credentials_provider is not None:
            self.credentials_providers[domain] = credentials_provider
        else:
            self.log.error("None credentials_provider provided for domain:%s", domain)

    def curve_user_id(self, client_public_key: bytes) -> str:
        """The User-Id of an authenticated CURVE client: its key in Z85.

        Override to map keys to names of your own.
        """
        return z85.encode(client_public_key).decode("ascii")

    def configure_gssapi(self, domain: str = "*", location: str | None = None) -> None:
        """GSSAPI needs no configuration here (and purezmq has no GSSAPI)."""

    # ------------------------------------------------------------ requests
    async def handle_zap_message(self, msg: list[bytes]) -> None:
        """Judge one ZAP request (the frames after REP's envelope) and reply."""
        if len(msg) < 6:
            self.log.error("Invalid ZAP message, not enough frames: %r", msg)
            if len(msg) < 2:
                self.log.error("Not enough information to reply")
            else:
                self._send_zap_reply(msg[1], b"400", b"Not enough frames")
            return
        version, request_id, raw_domain, raw_address, identity, mechanism = msg[:6]
        credentials = msg[6:]
        domain = raw_domain.decode(self.encoding, "replace")
        address = raw_address.decode(self.encoding, "replace")
        if version != VERSION:
            self.log.error("Invalid ZAP version: %r", msg[:6])
            self._send_zap_reply(request_id, b"400", b"Invalid version")
            return
        self.log.debug(
            "version: %r, request_id: %r, domain: %r, address: %r, identity: %r, mechanism: %r",
            version,
            request_id,
            domain,
            address,
            identity,
            mechanism,
        )
        allowed, denied, reason = self._check_address(address)
        user_id = "anonymous"
        if not denied:
            if mechanism == b"NULL":
                if not allowed:
                    self.log.debug("ALLOWED (NULL)")
                    allowed = True
            elif mechanism == b"PLAIN":
                if len(credentials) != 2:
                    self.log.error("Invalid PLAIN credentials: %d frames", len(credentials))
                    self._send_zap_reply(request_id, b"400", b"Invalid credentials")
                    return
                user_id, password = (c.decode(self.encoding, "replace") for c in credentials)
                allowed, reason = self._authenticate_plain(domain, user_id, password)
            elif mechanism == b"CURVE":
                if len(credentials) != 1:
                    self.log.error("Invalid CURVE credentials: %d frames", len(credentials))
                    self._send_zap_reply(request_id, b"400", b"Invalid credentials")
                    return
                key = credentials[0]
                allowed, reason = await self._authenticate_curve(domain, key)
                if allowed:
                    user_id = self.curve_user_id(key)
            elif mechanism == b"GSSAPI":
                if len(credentials) != 1:
                    self.log.error("Invalid GSSAPI credentials: %d frames", len(credentials))
                    self._send_zap_reply(request_id, b"400", b"Invalid credentials")
                    return
                principal = credentials[0]
                user_id = principal.decode("utf8")
                allowed, reason = self._authenticate_gssapi(domain, principal)
        if allowed:
            self._send_zap_reply(request_id, b"200", b"OK", user_id)
        else:
            self._send_zap_reply(request_id, b"400", reason)

    def _check_address(self, address: str) -> tuple[bool, bool, bytes]:
        """(allowed, denied, reason) from the allow or deny list."""
        if self._allowed:
            if address in self._allowed:
                self.log.debug("PASSED (allowed) address=%s", address)
                return True, False, b"NO ACCESS"
            self.log.debug("DENIED (not allowed) address=%s", address)
            return False, True, b"Address not allowed"
        if self._denied:
            if address in self._denied:
                self.log.debug("DENIED (denied) address=%s", address)
                return False, True, b"Address denied"
            self.log.debug("PASSED (not denied) address=%s", address)
            return True, False, b"NO ACCESS"
        return False, False, b"NO ACCESS"

    def _authenticate_plain(self, domain: str, username: str, password: str) -> tuple[bool, bytes]:
        """PLAIN: (allowed, reason). The password is compared in constant
        time and never logged."""
        if not self.passwords:
            self.log.debug("DENIED (PLAIN) No passwords defined")
            return False, b"No passwords defined"
        table = self.passwords.get(domain or "*")
        if table is None:
            reason = b"Invalid domain"
        elif username not in table:
            reason = b"Invalid username"
        elif hmac.compare_digest(
            password.encode(self.encoding, "replace"),
            table[username].encode(self.encoding, "replace"),
        ):
            self.log.debug("ALLOWED (PLAIN) domain=%s username=%s", domain, username)
            return True, b""
        else:
            reason = b"Invalid password"
        self.log.debug("DENIED %s", reason)
        return False, reason

    async def _authenticate_curve(self, domain: str, client_key: bytes) -> tuple[bool, bytes]:
        """CURVE: (allowed, reason) for a client's 32-byte public key."""
        if self.allow_any:
            self.log.debug("ALLOWED (CURVE allow any client)")
            return True, b"OK"
        domain = domain or "*"
        z85_key = z85.encode(client_key)
        if self.credentials_providers:
            provider = self.credentials_providers.get(domain)
            if provider is None:
                return False, b"Unknown domain"
            verdict = provider.callback(domain, z85_key)
            if isinstance(verdict, Awaitable):
                verdict = await verdict
            allowed = bool(verdict)
            self.log.debug(
                "%s (CURVE auth_callback) domain=%s client_key=%s",
                "ALLOWED" if allowed else "DENIED",
                domain,
                z85_key,
            )
            return (True, b"OK") if allowed else (False, b"Unknown key")
        certs = self.certs.get(domain)
        if certs is None:
            return False, b"Unknown domain"
        allowed = bool(certs.get(z85_key))
        self.log.debug(
            "%s (CURVE) domain=%s client_key=%s",
            "ALLOWED" if allowed else "DENIED",
            domain,
            z85_key,
        )
        return (True, b"OK") if allowed else (False, b"Unknown key")

    def _authenticate_gssapi(self, domain: str, principal: bytes) -> tuple[bool, bytes]:
        """GSSAPI: an outside service already did the work."""
        self.log.debug("ALLOWED (GSSAPI) domain=%s principal=%s", domain, principal)
        return True, b"OK"

    def _send_zap_reply(
        self,
        request_id: bytes,
        status_code: bytes,
        status_text: bytes,
        user_id: str | bytes = "anonymous",
    ) -> None:
        """Reply: version, request id, status, text, User-Id (only for 200),
        metadata (none)."""
        if status_code != b"200":
            user_id = b""
        if isinstance(user_id, str):
            user_id = user_id.encode(self.encoding, "replace")
        self.log.debug("ZAP reply code=%s text=%s", status_code, status_text)
        self.zap_socket.send_multipart(
            [VERSION, request_id, status_code, status_text, user_id, b""]
        )


__all__ = ["CURVE_ALLOW_ANY", "Authenticator"]
