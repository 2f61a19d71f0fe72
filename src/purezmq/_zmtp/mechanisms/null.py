"""The NULL mechanism (RFC 37 "The NULL Security Mechanism").

Both peers send READY with their metadata; the handshake is done when each
has sent and received one. With a `ZapConfig`, our READY waits for the ZAP
handler's verdict, as in libzmq's ``null_mechanism_t``:

- 200: READY goes out;
- 400/500: ERROR with the status code as reason, then
  ``ProtocolError(kind="auth")``;
- 300 (temporary failure): no ERROR (RFC 27/CURVEZMQ: disconnect silently),
  ``ProtocolError(kind="auth")``. libzmq's NULL instead stalls until the
  handshake timer fires; failing at once reaches the same end sooner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from purezmq._zmtp import commands
from purezmq._zmtp.errors import ZMTP_UNEXPECTED_COMMAND, ProtocolError
from purezmq._zmtp.greeting import PeerGreeting

from .base import Mechanism, MechanismStatus
from .zap import ZapConfig


class NullMechanism(Mechanism):
    """NULL security: no authentication, no encryption, READY both ways."""

    name = b"NULL"

    def __init__(
        self,
        *,
        as_server: bool = False,
        identity: bytes | None = None,
        properties: Mapping[str, bytes] | None = None,
        zap: ZapConfig | None = None,
    ) -> None:
        super().__init__(as_server=as_server, identity=identity, properties=properties, zap=zap)
        self._ready_sent = False
        self._ready_received = False
        self._zap_pending = False

    def start(self, peer: PeerGreeting) -> None:
        self.peer = peer
        if self.zap is not None:
            self._request_zap()
            self._zap_pending = True
        else:
            self._send_ready()

    def _send_ready(self) -> None:
        self._send(commands.ready(self._ready_properties()))
        self._ready_sent = True
        self._update()

    def _update(self) -> None:
        if self._ready_sent and self._ready_received:
            self._set_status(MechanismStatus.READY)

    def process_handshake_command(self, body: bytes) -> None:
        if self._ready_received or self.status is not MechanismStatus.HANDSHAKING:
            raise ProtocolError("command after the peer's READY", code=ZMTP_UNEXPECTED_COMMAND)
        name, data = commands.split_command(body)
        if name == commands.READY:
            self._accept_properties(data)
            self._ready_received = True
            self._update()
        elif name == commands.ERROR:
            self._peer_error(data)
        else:
            shown = name.decode("ascii", "replace")
            raise ProtocolError(
                f"unexpected {shown} command in NULL handshake", code=ZMTP_UNEXPECTED_COMMAND
            )

    def zap_reply(self, frames: Sequence[bytes]) -> None:
        if not self._zap_pending:
            super().zap_reply(frames)
        self._zap_pending = False
        reply = self._take_zap_reply(frames)
        if reply.status_code == 200:
            self._send_ready()
            return
        code = str(reply.status_code).encode()
        text = reply.status_text.decode("utf-8", "replace")
        self._fail(
            ProtocolError(
                f"ZAP refused the peer: {reply.status_code} {text}",
                kind="auth",
                zap_status=reply.status_code,
            ),
            error_reason=None if reply.status_code == 300 else code,
        )
