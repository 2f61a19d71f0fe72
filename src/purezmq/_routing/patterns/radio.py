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
As PUB's, the session pipes read through one shared output log
(`fanout_log`): a message for every peer is queued and encoded once.
Single-part, thread-safe; RADIO never receives.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

from purezmq._routing.dist import Distributor
from purezmq._routing.fanout_log import Mutex
from purezmq._routing.pipe import Frame, Msg, Pipe

from ._draft import check_group, single, single_msg, unwrap
from ._options import flag, invalid, write_only
from .base import Pattern

JOIN: Final = b"\x04JOIN"
LEAVE: Final = b"\x05LEAVE"
#: The targets of a group nobody joined (shared, never changed).
_NOBODY: Final[dict[Pipe, int]] = {}


class Radio(Pattern):
    """``dist`` to the pipes that joined a message's group."""

    socket_type = "RADIO"
    thread_safe = True
    options = frozenset({"xpub_nodrop"})

    def __init__(self) -> None:
        self._dist = Distributor()
        #: group -> the pipes that joined it, with how many times.
        self._groups: dict[bytes, dict[Pipe, int]] = {}
        self._all: list[Pipe] = []
        self._lossy = True

    def with_output_lock(self, lock: Mutex) -> Pattern:
        """Session pipes read through one shared log, as PUB's do."""
        self._dist.share_output(lock)
        return self

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
            pipes = self._groups.setdefault(command[len(JOIN) :], {})
            pipes[pipe] = pipes.get(pipe, 0) + 1
        elif command.startswith(LEAVE):
            group = command[len(LEAVE) :]
            joined = self._groups.get(group)
            if joined is not None and pipe in joined:
                if joined[pipe] > 1:
                    joined[pipe] -= 1
                else:
                    del joined[pipe]
                    if not joined:
                        del self._groups[group]

    def pipe_terminated(self, pipe: Pipe) -> None:
        for group in [g for g, joined in self._groups.items() if pipe in joined]:
            joined = self._groups[group]
            del joined[pipe]
            if not joined:
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
        targets: Collection[Pipe] = self._groups.get(group, _NOBODY)
        if self._all:
            targets = [*targets, *self._all]
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
