"""The PLAIN mechanism (RFC 24 "ZMTP-PLAIN"), client and server.

::

    C: HELLO    username-len username password-len password
    S: WELCOME                       (or ERROR: ZAP refused the credentials)
    C: INITIATE metadata
    S: READY    metadata

Command names are length-prefixed on the wire (``\\x05HELLO``), as libzmq
sends them; RFC 24's prose says space-padded (shared/specs/README.md).

The server has no password list of its own: it asks the ZAP handler
(RFC 27) with the credentials ``[username, password]``, so PLAIN always
needs a ZAP configuration. The socket layer gives one even when no handler
is bound, and then fails the connection when the request has nowhere to go:
libzmq's PLAIN server refuses every client without a handler.

Credentials travel in clear text: PLAIN is for trusted networks (the guide's
"woodhouse" level). Neither the password nor the username ever appears in
an exception message or a log line.

Checks and protocol error codes follow libzmq's ``plain_client.cpp`` and
``plain_server.cpp``.

libzmq's PLAIN ERROR quirk. libzmq (since the 4.2 refactoring into
``plain_common.hpp``, still in 4.3.5 and master) spells the ERROR prefix
``"\x05ERROR"`` in C, where ``\x05E`` is *one* hex escape: its PLAIN ERROR
command goes out as ``^RROR`` + reason-len + reason (0x5E, no name length),
and its PLAIN client recognises only that form - a spec ERROR makes it report
UNEXPECTED_COMMAND instead of the authentication failure. NULL and CURVE are
not affected. So that libzmq clients see HANDSHAKE_FAILED_AUTH like they do
with a libzmq server, our PLAIN server sends libzmq's form
(`LIBZMQ_PLAIN_ERROR`, which can be switched off), and our client accepts
both forms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, NoReturn

from purezmq._zmtp import commands
from purezmq._zmtp.errors import (
    ZMTP_MALFORMED_COMMAND_HELLO,
    ZMTP_MALFORMED_COMMAND_WELCOME,
    ZMTP_UNEXPECTED_COMMAND,
    ProtocolError,
)
from purezmq._zmtp.greeting import PeerGreeting

from .base import Mechanism, MechanismStatus
from .zap import ZapConfig

_WELCOME: Final = b"\x07WELCOME"
#: What libzmq's PLAIN puts where ``\x05ERROR`` belongs (see the module doc).
LIBZMQ_ERROR_PREFIX: Final = b"^RROR"
#: Send PLAIN ERROR commands as libzmq 4.x does, so its clients understand them.
LIBZMQ_PLAIN_ERROR = True
_MAX_CREDENTIAL: Final = 255


def _unexpected(name: bytes, where: str) -> ProtocolError:
    shown = name.decode("ascii", "replace")
    return ProtocolError(f"unexpected {shown} command {where}", code=ZMTP_UNEXPECTED_COMMAND)


def hello_body(username: bytes, password: bytes) -> bytes:
    """HELLO: username-len username password-len password (each 0..255 bytes)."""
    if len(username) > _MAX_CREDENTIAL or len(password) > _MAX_CREDENTIAL:
        raise ValueError("PLAIN username and password are at most 255 bytes each")
    return b"\x05HELLO" + bytes((len(username),)) + username + bytes((len(password),)) + password


def parse_hello(data: bytes) -> tuple[bytes, bytes]:
    """(username, password) from HELLO's data; MALFORMED_COMMAND_HELLO unless
    the two length-prefixed strings fill the command exactly."""
    malformed = ProtocolError("malformed PLAIN HELLO", code=ZMTP_MALFORMED_COMMAND_HELLO)
    if not data:
        raise malformed
    end = 1 + data[0]  # the password's length byte
    if end >= len(data) or end + 1 + data[end] != len(data):
        raise malformed
    return data[1:end], data[end + 1 :]


class PlainClient(Mechanism):
    """PLAIN client: sends the credentials, waits for WELCOME and READY."""

    name = b"PLAIN"

    def __init__(
        self,
        *,
        username: bytes,
        password: bytes,
        identity: bytes | None = None,
        properties: Mapping[str, bytes] | None = None,
    ) -> None:
        super().__init__(as_server=False, identity=identity, properties=properties)
        self._hello = hello_body(username, password)
        self._state = "start"

    def start(self, peer: PeerGreeting) -> None:
        self.peer = peer
        self._send(self._hello)
        self._hello = b""
        self._state = "welcome"

    def process_handshake_command(self, body: bytes) -> None:
        state = self._state
        if body.startswith(LIBZMQ_ERROR_PREFIX) and state in ("welcome", "ready"):
            self._peer_error(body[len(LIBZMQ_ERROR_PREFIX) :])  # libzmq's PLAIN ERROR
        name, data = commands.split_command(body)
        if name == commands.WELCOME and state == "welcome":
            if data:
                raise ProtocolError(
                    "PLAIN WELCOME carries data", code=ZMTP_MALFORMED_COMMAND_WELCOME
                )
            self._send(commands.command(commands.INITIATE, self._ready_properties()))
            self._state = "ready"
        elif name == commands.READY and state == "ready":
            self._accept_properties(data)
            self._state = "done"
            self._set_status(MechanismStatus.READY)
        elif name == commands.ERROR and state in ("welcome", "ready"):
            self._peer_error(data)
        else:
            raise _unexpected(name, "in PLAIN client handshake")


class PlainServer(Mechanism):
    """PLAIN server: takes HELLO, asks ZAP, then WELCOME / INITIATE / READY."""

    name = b"PLAIN"

    def __init__(
        self,
        *,
        identity: bytes | None = None,
        properties: Mapping[str, bytes] | None = None,
        zap: ZapConfig | None = None,
    ) -> None:
        super().__init__(as_server=True, identity=identity, properties=properties, zap=zap)
        self._state = "hello"

    def start(self, peer: PeerGreeting) -> None:
        self.peer = peer

    def wants_input(self) -> bool:
        return self._state != "zap"

    def _fail(self, error: ProtocolError, *, error_reason: bytes | None) -> NoReturn:
        if error_reason is not None and LIBZMQ_PLAIN_ERROR:
            reason = error_reason[:255]
            self._send(LIBZMQ_ERROR_PREFIX + bytes((len(reason),)) + reason)
            error_reason = None
        super()._fail(error, error_reason=error_reason)

    def process_handshake_command(self, body: bytes) -> None:
        name, data = commands.split_command(body)
        state = self._state
        if name == commands.HELLO and state == "hello":
            username, password = parse_hello(data)
            if self.zap is None:
                # The socket layer always gives PLAIN servers a ZapConfig; a
                # mechanism built without one cannot judge anybody: fail closed.
                raise ProtocolError("PLAIN server without ZAP cannot authenticate", kind="auth")
            self._request_zap((username, password))
            self._state = "zap"
        elif name == commands.INITIATE and state == "initiate":
            self._accept_properties(data)
            self._send(commands.ready(self._ready_properties()))
            self._state = "done"
            self._set_status(MechanismStatus.READY)
        else:
            raise _unexpected(name, "in PLAIN server handshake")

    def zap_reply(self, frames: Sequence[bytes]) -> None:
        if self._state != "zap":
            super().zap_reply(frames)
        reply = self._take_zap_reply(frames)
        if reply.status_code != 200:
            self._state = "error"
            self._zap_refused(reply)
        self._send(_WELCOME)
        self._state = "initiate"
