"""RADIO: publishes each message to the DISH peers that joined its group
(RFC 48, libzmq src/radio.cpp).

Messages travel through pipes as ``[group, body]`` - on ZMTP that is the
wire form too: a group frame with MORE, then the body (libzmq's
``radio_session_t``). DISH peers send ``[b"\\x04JOIN" + group]`` and
``[b"\\x05LEAVE" + group]`` (the bodies of the ZMTP 3.1 JOIN/LEAVE commands,
which the ZMTP layer turns into such messages); RADIO reads them as they
arrive and keeps, per group, the pipes that joined it (a multiset, as
libzmq's multimap). Pipes that take every group (a udp connect, where no
JOIN ever comes back) are marked `Pipe.all_groups` and get every message.

Sending drops a message for a peer at its HWM (lossy, like PUB) unless
``xpub_nodrop`` is set, which makes it EAGAIN when any target is full.
Single-part, thread-safe; RADIO never receives.
"""

from __future__ import annotations

from typing import Any, Final

from purezmq._routing.dist import Distributor
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._draft import check_group, single, single_msg, unwrap
from ._options import flag, invalid, write_only
from .base import Pattern

JOIN: Final = b"\x04JOIN"
LEAVE: Final = b"\x05LEAVE"


class Radio(Pattern):
    """``dist`` to the pipes that joined a message's group."""

    socket_type = "RADIO"
    thread_safe = True
    options = frozenset({"xpub_nodrop"})

    def __init__(self) -> None:
        self._dist = Distributor()
        self._groups: dict[bytes, list[Pipe]] = {}
        self._all: list[Pipe] = []
        self._lossy = True

    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._dist.attach(pipe)
        if pipe.all_groups:
            self._all.append(pipe)
        else:
            self.read_activated(pipe)  # joins sent before we attached

    def read_activated(self, pipe: Pipe) -> None:
        while True:
            msg = pipe.read()
            if msg is None:
                return
            if len(msg) == 1:
                self._apply(pipe, bytes(msg[0]))

    def _apply(self, pipe: Pipe, command: bytes) -> None:
        """A JOIN or LEAVE from a DISH; anything else is ignored, as libzmq."""
        if command.startswith(JOIN):
            self._groups.setdefault(command[len(JOIN) :], []).append(pipe)
        elif command.startswith(LEAVE):
            pipes = self._groups.get(command[len(LEAVE) :])
            if pipes is not None and pipe in pipes:
                pipes.remove(pipe)
                if not pipes:
                    del self._groups[command[len(LEAVE) :]]

    def pipe_terminated(self, pipe: Pipe) -> None:
        for group in [g for g, pipes in self._groups.items() if pipe in pipes]:
            pipes = self._groups[group]
            while pipe in pipes:
                pipes.remove(pipe)
            if not pipes:
                del self._groups[group]
        if pipe in self._all:
            self._all.remove(pipe)
        self._dist.terminated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._dist.activated(pipe)

    def send(self, frame: Frame, more: bool) -> bool:
        single(self.socket_type, more)
        data, _rid, group = unwrap(frame)
        check_group(group)
        targets = self._groups.get(group, [])
        if self._all:
            targets = targets + self._all
        dist = self._dist
        if not self._lossy and not dist.check_hwm(targets):
            return False
        dist.send_msg_to(targets, [group, data])
        return True

    def send_msg(self, frames: Msg) -> bool:
        return self.send(single_msg(self.socket_type, frames), False)

    def has_out(self) -> bool:
        return True

    def set_option(self, name: str, value: Any) -> None:
        if name != "xpub_nodrop":
            invalid(self, name)
        self._lossy = not flag(name, value)

    def get_option(self, name: str) -> Any:
        write_only(self, name)
