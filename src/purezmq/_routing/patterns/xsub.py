"""XSUB: a subscriber that sends its subscriptions as messages
(RFC 29, libzmq src/xsub.cpp).

Receiving: fair-queued from every publisher, *unfiltered* - libzmq's XSUB
runs with ``options.filter`` off (only SUB turns it on), relying on the
publisher's filtering.

Sending: ``b"\\x01" + topic`` subscribes and ``b"\\x00" + topic`` cancels;
both update the local ``Trie`` (counted) and are forwarded to every upstream
pipe (``dist``, dropped for a pipe at its HWM as libzmq does). A subscribe is
always forwarded - libzmq stopped filtering duplicates here because XPUB
does it and filtering twice breaks XPUB_VERBOSE through proxies - while a
cancel is forwarded only when the count falls to zero, unless
``xsub_verbose_unsubscribe`` (DRAFT) is set. A cancel that is not forwarded
is dropped whole. Any other message is forwarded as-is to every pipe.

Only a message's first frame is interpreted - libzmq's behaviour with the
DRAFT ``only_first_subscribe``, which is accepted and changes nothing here.
Without it libzmq examines every frame of a multipart message and may drop
a swallowed cancel frame from the middle of it; whole-message pipes cannot.

New pipes, and pipes that reconnected (``hiccuped``), receive every current
subscription once (``Trie.apply``), so a restarted publisher learns them.

Options: ``xsub_verbose_unsubscribe`` (DRAFT), ``only_first_subscribe``
(DRAFT), ``invert_matching`` (ints used as booleans; it only matters on SUB,
but libzmq accepts it on any socket); ``topics_count`` (read-only int, DRAFT).
"""

from __future__ import annotations

from typing import Any

from purezmq._routing.dist import Distributor
from purezmq._routing.fq import FairQueue
from purezmq._routing.pipe import Frame, Msg, Pipe
from purezmq._routing.trie import Trie

from ._options import flag, invalid, write_only
from .base import Pattern


class XSub(Pattern):
    """``fq`` in, ``dist`` (to all) out, ``Trie`` of own subscriptions."""

    socket_type = "XSUB"
    options = frozenset(
        {"xsub_verbose_unsubscribe", "only_first_subscribe", "invert_matching", "topics_count"}
    )
    sends_subscriptions = True

    def __init__(self) -> None:
        self._fq = FairQueue()
        self._dist = Distributor()
        self._subs = Trie()
        self._verbose_unsubs = False
        self._invert = False
        #: Dropping the rest of a message whose first frame was a swallowed cancel.
        self._dropping = False

    # ------------------------------------------------------------ pipe events
    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._fq.attach(pipe)
        self._dist.attach(pipe)
        self._send_subscriptions(pipe)

    def hiccuped(self, pipe: Pipe) -> None:
        if pipe in self._dist:
            self._send_subscriptions(pipe)

    def _send_subscriptions(self, pipe: Pipe) -> None:
        """Every current topic, once, to `pipe` (dropped if it is full, as libzmq)."""
        write = pipe.write
        self._subs.apply(lambda topic: write([b"\x01" + topic]))

    def pipe_terminated(self, pipe: Pipe) -> None:
        self._fq.terminated(pipe)
        self._dist.terminated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        self._fq.activated(pipe)

    def write_activated(self, pipe: Pipe) -> None:
        self._dist.activated(pipe)

    # ------------------------------------------------------------ sending
    def _forwarded(self, frame: Frame) -> bool:
        """Apply a message's first frame to the trie; False to swallow the message."""
        if len(frame):
            kind = frame[0]
            if kind == 1:
                self._subs.add(bytes(frame[1:]))
            elif kind == 0:
                return self._subs.rm(bytes(frame[1:])) or self._verbose_unsubs
        return True

    def send(self, frame: Frame, more: bool) -> bool:
        if self._dropping:
            self._dropping = more
            return True
        dist = self._dist
        if not dist.more and not self._forwarded(frame):
            self._dropping = more
            return True
        dist.send_to_all(frame, more)
        return True

    def send_msg(self, frames: Msg) -> bool:
        dist = self._dist
        if dist.more or self._dropping or not frames:
            return super().send_msg(frames)
        if self._forwarded(frames[0]):
            dist.send_msg_to(dist.eligible, frames)
        return True

    def has_out(self) -> bool:
        return True

    # ------------------------------------------------------------ receiving
    def recv(self) -> Msg | None:
        return self._fq.recv()

    def has_in(self) -> bool:
        return self._fq.has_in()

    @property
    def last_pipe(self) -> Pipe | None:
        return self._fq.last_pipe

    # ------------------------------------------------------------ options
    def set_option(self, name: str, value: Any) -> None:
        if name not in self.options or name == "topics_count":
            invalid(self, name)
        on = flag(name, value)
        if name == "invert_matching":
            self._invert = on
        elif name == "xsub_verbose_unsubscribe":
            self._verbose_unsubs = on
        # only_first_subscribe: already how XSUB reads messages (see above)

    def get_option(self, name: str) -> Any:
        if name == "invert_matching" and name in self.options:
            return int(self._invert)
        if name == "topics_count" and name in self.options:
            return self._subs.num_prefixes()
        return write_only(self, name)
