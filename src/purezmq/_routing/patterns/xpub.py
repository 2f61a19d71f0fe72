"""XPUB: a publisher that shows subscriptions to the application
(RFC 29, libzmq src/xpub.cpp).

Sending: the first frame of a message is matched against the subscriptions
(``MTrie``) and the whole message goes to every matching pipe (``dist``); a
subscriber at its HWM loses the message (RFC 29 "SHALL silently drop") unless
``xpub_nodrop``, where the send is refused whole with EAGAIN. ``has_out`` is
always True, as libzmq's (``dist_t::has_out``), even with ``xpub_nodrop``: a
blocking send must retry after ``write_activated``, not wait on POLLOUT.

Receiving: peers send subscriptions as ``b"\\x01" + topic`` and cancels as
``b"\\x00" + topic``. They are applied to the trie when they arrive
(``read_activated``) and queued for the application: subscribes that are new
(first pipe for the topic) and cancels that removed the last pipe - or that
matched nothing at all, as libzmq (``rm_result != values_remain``).
``xpub_verbose`` passes every subscribe, ``xpub_verboser`` also every cancel.
Other messages from peers (an XSUB upstream) are passed to the application.
When a pipe goes, its subscriptions are removed and the topics nobody holds
any more are reported as cancels (every topic of the pipe with verboser).

Every frame of an incoming message is examined, as in libzmq (with
``only_first_subscribe``, later frames only if the first was one); non-
subscription frames are grouped into messages the way libzmq's frame stream
would be read (a notification ends a message), except that a message never
spans two incoming messages.

Manual mode (``xpub_manual``): subscriptions are queued for the application
but not applied; receiving one makes its pipe the "last pipe", and
``set_option("subscribe"/"unsubscribe", topic)`` applies a topic to that pipe
(tests/test_xpub_manual.cpp). ``xpub_manual_last_value`` (DRAFT) also sends
the next message only to that pipe. ``xpub_welcome_msg`` is written to every
new pipe. ``invert_matching`` sends to the pipes that do *not* match.

Options: ``xpub_verbose``, ``xpub_verboser``, ``xpub_manual``,
``xpub_manual_last_value`` (DRAFT), ``xpub_nodrop``, ``only_first_subscribe``
(DRAFT), ``invert_matching`` (ints used as booleans); ``xpub_welcome_msg``
(bytes, empty = none); ``subscribe`` / ``unsubscribe`` (bytes, manual mode
only); ``topics_count`` (read-only int, DRAFT). Only ``invert_matching`` and
``topics_count`` can be read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Set
from typing import Any, ClassVar

from purezmq._routing.dist import Distributor
from purezmq._routing.errors import InvalidError
from purezmq._routing.fanout_log import Mutex
from purezmq._routing.pipe import Frame, Msg, Pipe
from purezmq._routing.trie import MTrie, RmResult

from ._options import blob, flag, invalid, write_only
from .base import Pattern

_NOTHING: frozenset[Pipe] = frozenset()


class XPub(Pattern):
    """``dist`` + ``MTrie`` + the queue of subscription notifications."""

    socket_type = "XPUB"
    options = frozenset(
        {
            "xpub_verbose",
            "xpub_verboser",
            "xpub_manual",
            "xpub_manual_last_value",
            "xpub_nodrop",
            "xpub_welcome_msg",
            "only_first_subscribe",
            "invert_matching",
            "subscribe",
            "unsubscribe",
            "topics_count",
        }
    )
    #: Whether subscriptions and peers' messages are passed to the application.
    passes_to_user: ClassVar[bool] = True

    def __init__(self) -> None:
        self._dist = Distributor()
        self._subs = MTrie()
        self._manual_subs = MTrie()
        self._verbose_subs = False
        self._verbose_unsubs = False
        self._lossy = True
        self._manual = False
        self._send_last_pipe = False
        self._invert = False
        self._only_first = False
        self._welcome: bytes = b""
        #: Manual mode: the pipe the last received subscription came from.
        self._manual_pipe: Pipe | None = None
        #: (message, pipe it came from, sets the manual "last pipe")
        self._pending: deque[tuple[Msg, Pipe | None, bool]] = deque()
        self._last_in: Pipe | None = None
        #: True when no option changes how a message's targets are chosen.
        self._plain = True

    def _replan(self) -> None:
        last_value = self._send_last_pipe and self._manual
        self._plain = self._lossy and not self._invert and not last_value

    #: Session pipes read through one shared log (`fanout_log`): a message is
    #: queued and encoded once for all subscribers. A class attribute so that a
    #: test or a measurement can compare with the pipe-per-subscriber path.
    shared_output: ClassVar[bool] = True

    def with_output_lock(self, lock: Mutex) -> Pattern:
        """With `shared_output`, session pipes read through one shared log."""
        if self.shared_output:
            self._dist.share_output(lock)
        return self

    # ------------------------------------------------------------ pipe events
    def attach_pipe(self, pipe: Pipe, locally_initiated: bool) -> None:
        self._dist.attach(pipe)
        if pipe.all_groups:  # pgm/epgm: no subscription ever comes back
            self._subs.add(b"", pipe)  # silently, as libzmq's subscribe_to_all
        if self._welcome:
            self._dist.write_one(pipe, [self._welcome])
        self.read_activated(pipe)

    def read_activated(self, pipe: Pipe) -> None:
        """Apply (and queue) the subscriptions waiting in `pipe`."""
        if pipe not in self._dist:
            return
        msg = pipe.read()
        while msg is not None:
            self._process(pipe, msg)
            msg = pipe.read()

    def _process(self, pipe: Pipe, msg: Msg) -> None:
        """One message from a peer, frame by frame as libzmq's xread_activated.

        Later frames are examined too, unless ``only_first_subscribe`` and the
        first frame was not a (un)subscription.
        """
        group: Msg = []
        examine = True
        for i, frame in enumerate(msg):
            is_sub = examine and len(frame) > 0 and frame[0] in (0, 1)
            if i == 0:
                examine = not self._only_first or is_sub
            if is_sub:
                if self._subscription(pipe, frame):
                    group.append(frame if type(frame) is bytes else bytes(frame))
                    self._pending.append((group, pipe, self._manual))
                    group = []
            elif self.passes_to_user:
                group.append(frame)
        if group:
            self._pending.append((group, pipe, False))

    def _subscription(self, pipe: Pipe, frame: Frame) -> bool:
        """Apply one (un)subscription frame; True if the application sees it."""
        subscribe = frame[0] == 1
        topic = bytes(frame[1:])
        if self._manual:
            if subscribe:
                self._manual_subs.add(topic, pipe)
            else:
                self._manual_subs.rm(topic, pipe)
            return self.passes_to_user
        if subscribe:
            notify = self._subs.add(topic, pipe) or self._verbose_subs
        else:
            removed = self._subs.rm(topic, pipe)
            notify = removed is not RmResult.VALUES_REMAIN or self._verbose_unsubs
        return notify and self.passes_to_user

    def write_activated(self, pipe: Pipe) -> None:
        self._dist.activated(pipe)

    def pipe_terminated(self, pipe: Pipe) -> None:
        dist = self._dist
        if pipe not in dist:
            return
        self.read_activated(pipe)  # libzmq reads up to the delimiter first
        if self._manual:
            self._manual_subs.rm_pipe(pipe, self._unsubscribed, call_on_uniq=False)
            self._subs.rm_pipe(pipe)
            if pipe is self._manual_pipe:
                self._manual_pipe = None
        else:
            self._subs.rm_pipe(pipe, self._unsubscribed, call_on_uniq=not self._verbose_unsubs)
        dist.terminated(pipe)

    def _unsubscribed(self, topic: bytes) -> None:
        """A topic left with a departed pipe: queue its cancel for the application."""
        if self.passes_to_user:
            self._pending.append(([b"\x00" + topic], None, self._manual))
            if self._manual:
                self._manual_pipe = None

    # ------------------------------------------------------------ sending
    def _targets(self, frame: Frame) -> Collection[Pipe]:
        matched: Set[Pipe] = self._subs.match(frame)
        if self._send_last_pipe and self._manual and self._manual_pipe is not None:
            last = self._manual_pipe
            self._manual_pipe = None
            matched = frozenset((last,)) if last in matched else _NOTHING
        if self._invert:
            return [pipe for pipe in self._dist.eligible if pipe not in matched]
        return matched

    def send(self, frame: Frame, more: bool) -> bool:
        dist = self._dist
        if dist.more:  # later frames: the targets were chosen on the first
            dist.send_to(_NOTHING, frame, more)
            return True
        if self._plain:
            dist.send_to(self._subs.match(frame), frame, more)
            return True
        targets = self._targets(frame)
        if not self._lossy and not dist.check_hwm(targets):
            return False
        dist.send_to(targets, frame, more)
        return True

    def send_msg(self, frames: Msg) -> bool:
        dist = self._dist
        if dist.more or not frames:
            return super().send_msg(frames)
        targets = self._targets(frames[0])
        if not self._lossy and not dist.check_hwm(targets):
            return False
        dist.send_msg_to(targets, frames)
        return True

    def has_out(self) -> bool:
        return True

    # ------------------------------------------------------------ receiving
    def recv(self) -> Msg | None:
        if not self._pending:
            return None
        msg, pipe, sets_last = self._pending.popleft()
        self._last_in = pipe
        if sets_last:
            self._manual_pipe = pipe if pipe is not None and pipe in self._dist else None
        return msg

    def has_in(self) -> bool:
        return bool(self._pending)

    @property
    def last_pipe(self) -> Pipe | None:
        return self._last_in

    # ------------------------------------------------------------ options
    def set_option(self, name: str, value: Any) -> None:
        if name not in self.options or name == "topics_count":
            invalid(self, name)
        if name in ("subscribe", "unsubscribe"):
            self._manual_subscription(name, blob(name, value))
        elif name == "xpub_welcome_msg":
            self._welcome = blob(name, value)
        else:
            self._set_flag(name, flag(name, value))
        self._replan()

    def _set_flag(self, name: str, on: bool) -> None:
        if name == "xpub_verbose":
            self._verbose_subs, self._verbose_unsubs = on, False
        elif name == "xpub_verboser":
            self._verbose_subs = self._verbose_unsubs = on
        elif name == "xpub_manual":
            self._manual = on
        elif name == "xpub_manual_last_value":
            self._manual = self._send_last_pipe = on
        elif name == "xpub_nodrop":
            self._lossy = not on
        elif name == "only_first_subscribe":
            self._only_first = on
        else:  # invert_matching
            self._invert = on

    def _manual_subscription(self, name: str, topic: bytes) -> None:
        """Manual mode: apply a topic for the pipe of the last subscription
        received (silently nothing if there is none, as libzmq)."""
        if not self._manual:
            raise InvalidError(f"option {name} is valid on XPUB sockets only with xpub_manual")
        pipe = self._manual_pipe
        if pipe is None:
            return
        if name == "subscribe":
            self._subs.add(topic, pipe)
        else:
            self._subs.rm(topic, pipe)

    def get_option(self, name: str) -> Any:
        if name == "invert_matching" and name in self.options:
            return int(self._invert)
        if name == "topics_count" and name in self.options:
            return self._subs.num_prefixes()
        return write_only(self, name)
