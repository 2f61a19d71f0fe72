"""Distributor: fan-out of whole messages to all pipes or to a matching subset.

This is libzmq's ``dist_t`` (src/dist.cpp), used by PUB/XPUB/RADIO (to the pipes
whose subscriptions match) and by SUB/XSUB (subscriptions to every upstream
pipe). RFC 29: a publisher "SHALL silently drop the message" for a
subscriber whose queue is full.

Invariants:

- A message goes whole to every *eligible* target, or not at all to a given
  target. The set of targets is fixed on the first frame; frames of a
  multipart message are gathered and written with the last one, so a pipe
  attached in the middle of a message does not receive its tail (libzmq keeps
  such a pipe "eligible but not active" until the message ends).
- A target that cannot take the message (at its HWM) loses that message and
  becomes *inactive*: it receives nothing until ``activated`` (the pipe's
  ``write_activated``, raised when its reader drained to the low-water mark),
  even if room appeared earlier - libzmq's behaviour, which avoids flapping
  between drop and deliver on every message of a burst.
- ``check_hwm`` (XPUB_NODROP) asks, before anything is written, whether all
  given targets have room, so a send can be refused whole (EAGAIN).

With a shared log (PUB, XPUB and RADIO: `fanout_log`), the pipes of sessions do
not receive messages at all: a message for all of them is appended to the
log once, and one for some of them is appended with their set. Only the
other pipes (inproc peers) are written one by one. Drops, deactivation and
XPUB_NODROP's check work on the log's readers as on pipes.

A target whose reader may keep or change the list it receives (an inproc
peer socket) gets its own list. Pipes whose reader only encodes the message
for the wire (`Pipe.shares_messages`: a session's) share one list per
message: a PUB with 100 tcp subscribers made 100 lists per message, and the
garbage collector, woken by them, took a fifth of the publisher's time.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from .fanout_log import LogReader, Mutex, SharedLog
from .pipe import Frame, Msg, Pipe


class Distributor:
    """Fan-out of whole messages (libzmq ``dist_t``)."""

    __slots__ = (
        "_direct",
        "_eligible",
        "_frames",
        "_inactive",
        "_log",
        "_pipes",
        "_targets",
        "more",
    )

    def __init__(self) -> None:
        self._pipes: set[Pipe] = set()
        #: Attached pipes that are not inactive, in attach order.
        self._eligible: list[Pipe] = []
        #: The eligible pipes written one by one (not readers of the log).
        self._direct: list[Pipe] = []
        #: Where session pipes' messages go, for a socket that fans out.
        self._log: SharedLog | None = None
        self._inactive: set[Pipe] = set()
        #: True between the first and the last frame of a message (read-only).
        self.more = False
        self._targets: list[Pipe] = []
        self._frames: Msg = []

    def share_output(self, lock: Mutex) -> None:
        """Send to session pipes through one shared log (`fanout_log`),
        guarded by `lock`. Before the first pipe is attached."""
        if self._log is None and not self._pipes:
            self._log = SharedLog(lock)

    # ------------------------------------------------------------- pipe set
    def attach(self, pipe: Pipe) -> None:
        if pipe in self._pipes:
            return
        self._pipes.add(pipe)
        self._eligible.append(pipe)
        log = self._log
        if log is not None and pipe.shares_messages:
            log.join(pipe)
        else:
            self._direct.append(pipe)

    def activated(self, pipe: Pipe) -> None:
        """A pipe that dropped a message accepts messages again. Idempotent."""
        inactive = self._inactive
        if pipe in inactive:
            reader = pipe.shared
            if reader is not None:
                if not reader.log.reactivate(reader):
                    return  # its session has not taken everything yet
            else:
                self._direct.append(pipe)
            inactive.discard(pipe)
            self._eligible.append(pipe)

    def terminated(self, pipe: Pipe) -> None:
        """Forget `pipe` (also as a target of the message in progress)."""
        if pipe not in self._pipes:
            return
        self._pipes.discard(pipe)
        if pipe in self._inactive:
            self._inactive.discard(pipe)
        else:
            self._eligible.remove(pipe)
            if pipe.shared is None:
                self._direct.remove(pipe)
        reader = pipe.shared
        if reader is not None:
            reader.log.retire(reader)  # its session still takes what it owes (LINGER)
        if self.more and pipe in self._targets:
            self._targets.remove(pipe)

    def has_pipe(self, pipe: Pipe) -> bool:
        return pipe in self._pipes

    def __contains__(self, pipe: Pipe) -> bool:
        # A method, not ``__contains__ = has_pipe``: mypyc would compile the
        # alias as an instance attribute's default, not as a method.
        return pipe in self._pipes

    def __len__(self) -> int:
        return len(self._pipes)

    @property
    def eligible(self) -> list[Pipe]:
        """The pipes that currently receive messages (do not modify)."""
        return self._eligible

    def has_out(self) -> bool:
        """Always True: a distributor drops rather than blocks (``dist_t::has_out``)."""
        return True

    def _deactivate(self, failed: Iterable[Pipe]) -> None:
        for pipe in failed:
            if pipe in self._pipes and pipe not in self._inactive:
                self._inactive.add(pipe)
                self._eligible.remove(pipe)
                reader = pipe.shared
                if reader is not None:
                    reader.log.deactivate(reader)
                else:
                    self._direct.remove(pipe)

    def write_one(self, pipe: Pipe, msg: Msg) -> None:
        """A message for one pipe alone, in order with what fans out (XPUB's
        welcome message), regardless of the HWM."""
        reader = pipe.shared
        if reader is not None:
            reader.log.append_to(msg, (reader,))
        else:
            pipe.write(msg)

    # ------------------------------------------------------------- sending
    def check_hwm(self, pipes: Iterable[Pipe]) -> bool:
        """Do all eligible `pipes` have room for a message? (XPUB_NODROP)

        A closed pipe does not count as full: it is about to be terminated and
        would only swallow the message (libzmq checks the HWM alone).
        """
        inactive = self._inactive
        for pipe in pipes:
            if inactive and pipe in inactive:
                continue
            reader = pipe.shared
            if reader is not None:
                if not reader.log.has_room(reader) and not (pipe.out_closed or pipe.peer_closed):
                    return False
            elif not pipe.check_write() and not (pipe.out_closed or pipe.peer_closed):
                return False
        return True

    def send_to_all(self, frame: Frame, more: bool) -> None:
        """Send one frame of a message to every eligible pipe."""
        self.send_to(self._eligible, frame, more)

    def send_to(self, pipes: Collection[Pipe], frame: Frame, more: bool) -> None:
        """Send one frame of a message to `pipes` (chosen on its first frame).

        Inactive pipes in `pipes` are skipped; pipes found full are deactivated.
        For later frames of a multipart message `pipes` is ignored.
        """
        if self.more:
            self._frames.append(frame)
            if not more:
                self._flush()
            return
        if more:
            self._start_multipart(pipes, frame)
            return
        if self._log is not None:
            self._send_logged(pipes, [frame])
            return
        inactive = self._inactive
        failed: list[Pipe] | None = None
        # A single-frame message: the common case, inlined.
        shared: Msg | None = None
        for pipe in pipes:
            if inactive and pipe in inactive:
                pipe.drops += 1
                continue
            if pipe.shares_messages:
                if shared is None:
                    shared = [frame]
                msg = shared
            else:
                msg = [frame]
            if not pipe.write(msg):
                failed = _dropped(pipe, failed)
        if failed is not None:
            self._deactivate(failed)

    def send_msg_to(self, pipes: Collection[Pipe], msg: Msg) -> None:
        """Send a whole message to `pipes`. `msg` itself goes to the first
        target, or is shared by the targets that share messages."""
        if self._log is not None:
            self._send_logged(pipes, msg)
            return
        inactive = self._inactive
        failed: list[Pipe] | None = None
        shared: Msg | None = None  # the one list of the pipes that share
        private = False  # `msg` went to a reader that may change it
        for pipe in pipes:
            if inactive and pipe in inactive:
                pipe.drops += 1
                continue
            if pipe.shares_messages:
                if shared is None:
                    shared = msg.copy() if private else msg
                item = shared
            else:
                item = msg.copy() if private or shared is msg else msg
            if pipe.write(item):
                if item is msg and not pipe.shares_messages:
                    private = True
                continue
            failed = _dropped(pipe, failed)
        if failed is not None:
            self._deactivate(failed)

    def _flush(self) -> None:
        """Last frame of a multipart message: hand it to every target chosen."""
        frames = self._frames
        targets = self._targets
        self.more = False
        self._frames = []
        self._targets = []
        if self._log is not None:
            self._flush_logged(targets, frames)
            return
        shared: Msg | None = None  # as in send_msg_to
        private = False
        for pipe in targets:
            if pipe.shares_messages:
                if shared is None:
                    shared = frames.copy() if private else frames
                pipe.force_write(shared)
            elif private or shared is frames:
                pipe.force_write(frames.copy())
            else:
                pipe.force_write(frames)
                private = True

    # ------------------------------------------------------------ shared log
    def _send_logged(self, pipes: Collection[Pipe], msg: Msg) -> None:
        """A whole message to `pipes`: once into the log for the session
        pipes among them, one by one to the others."""
        log = self._log
        assert log is not None
        inactive = self._inactive
        if pipes is self._eligible or len(pipes) == len(self._pipes):
            # Every pipe: no walk over the log's readers (the point of the log).
            full = log.full()
            if full:
                self._deactivate([reader.pipe for reader in full])
            for pipe in inactive:
                pipe.drops += 1
            log.append(msg)
            direct = self._direct
            if direct:
                self._write_direct(direct, msg, log.active > 0)
            return
        readers: list[LogReader] = []
        others: list[Pipe] = []
        failed: list[Pipe] = []
        for pipe in pipes:
            if inactive and pipe in inactive:
                pipe.drops += 1
                continue
            reader = pipe.shared
            if reader is None:
                others.append(pipe)
            elif log.has_room(reader):
                readers.append(reader)
            else:
                pipe.drops += 1
                failed.append(pipe)
        if failed:
            self._deactivate(failed)
        if readers:
            log.append_to(msg, readers)
        if others:
            self._write_direct(others, msg, bool(readers))

    def _write_direct(self, pipes: list[Pipe], msg: Msg, shared: bool) -> None:
        """`msg` to pipes whose reader may keep it: each its own list (the
        first may have `msg` itself unless the log holds it)."""
        failed: list[Pipe] | None = None
        for pipe in pipes:
            item = msg.copy() if shared else msg
            shared = True
            if not pipe.write(item):
                failed = _dropped(pipe, failed)
        if failed is not None:
            self._deactivate(failed)

    def _start_multipart(self, pipes: Collection[Pipe], frame: Frame) -> None:
        """First frame of a multipart message: choose (and check) its targets
        (a log's reader is asked for room, another pipe `check_write`)."""
        inactive = self._inactive
        targets: list[Pipe] = []
        failed: list[Pipe] = []
        for pipe in pipes:
            if inactive and pipe in inactive:
                pipe.drops += 1
                continue
            reader = pipe.shared
            room = reader.log.has_room(reader) if reader is not None else pipe.check_write()
            if room:
                targets.append(pipe)
            else:
                pipe.drops += 1
                failed.append(pipe)
        if failed:
            self._deactivate(failed)
        self._targets = targets
        self._frames = [frame]
        self.more = True

    def _flush_logged(self, targets: list[Pipe], frames: Msg) -> None:
        """Last frame of a multipart message, with a log (targets chosen)."""
        log = self._log
        assert log is not None
        readers: list[LogReader] = []
        for pipe in targets:
            reader = pipe.shared
            if reader is not None and reader.active:
                readers.append(reader)
        if readers:
            log.append_to(frames, readers)
        private = bool(readers)
        for pipe in targets:
            if pipe.shared is None:
                pipe.force_write(frames.copy() if private else frames)
                private = True


def _dropped(pipe: Pipe, failed: list[Pipe] | None) -> list[Pipe]:
    """`pipe` could not take a message (at its HWM): count the drop and add it
    to the pipes to deactivate. Called only on a drop, so the sending loops
    allocate no list for the common case where every pipe takes it."""
    pipe.drops += 1
    if failed is None:
        return [pipe]
    failed.append(pipe)
    return failed
