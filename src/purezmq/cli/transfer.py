"""``purezmq send``, ``recv``, ``pub`` and ``sub``: messages between stdin,
stdout and a socket of any type.

``send`` writes messages from its input (stdin, a file or ``--message``) to
the socket; a REQ socket prints each reply. ``recv`` prints every message the
socket receives; a REP socket answers each request (an echo, or
``--reply``). ``pub`` and ``sub`` are ``send`` and ``recv`` with the types
and options of publish/subscribe (topics, waiting for subscribers).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

import purezmq as zmq

from .common import (
    EXIT_INTERRUPTED,
    RECEIVERS,
    SENDERS,
    HelpFormatter,
    Interrupted,
    StopFlag,
    add_socket_arguments,
    check_endpoints,
    duration,
    fail,
    finish,
    note,
    open_socket,
    positive_int,
    running,
    wait_for,
)
from .framing import FORMATS, Framing, FramingError, delimiter
from .progress import Progress, add_progress_argument

_FRAMING_HELP = (
    "line: a message per line, frames split on --delimiter; raw: the whole input is one "
    "message, output frames are written as they are; json: a JSON array of frames per line "
    '(strings, or {"base64": ...} for bytes)'
)


def _add_framing(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("framing")
    g.add_argument(
        "-f", "--format", choices=FORMATS, default="line",
        help=f"how messages are written on stdin/stdout (default: line). {_FRAMING_HELP}",
    )  # fmt: skip
    g.add_argument(
        "-d", "--delimiter", type=delimiter, default=b"\t", metavar="TEXT",
        help=r"line format: what separates the frames of a message on a line "
        r"(default: a TAB; C escapes such as '\t' or '\x1f' work; '' keeps each line one frame)",
    )  # fmt: skip


def _add_sending(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("sending")
    g.add_argument(
        "input", nargs="?", default="-", metavar="FILE",
        help="read messages from FILE (default: stdin, also '-')",
    )  # fmt: skip
    g.add_argument(
        "-m", "--message", action="append", default=None, metavar="TEXT",
        help="send TEXT (framed as --format says) instead of reading input; repeatable",
    )  # fmt: skip
    g.add_argument(
        "-n", "--count", type=positive_int, default=None, metavar="N",
        help="stop after sending N messages (default: all the input)",
    )  # fmt: skip
    g.add_argument(
        "--rate", type=float, default=None, metavar="MSG_PER_S",
        help="send at most this many messages per second (default: as fast as the peers take them)",
    )  # fmt: skip
    g.add_argument(
        "--repeat", type=positive_int, default=1, metavar="N",
        help="send the input N times over (default: 1); with --message, a quick load generator",
    )  # fmt: skip
    g.add_argument(
        "--timeout", type=duration, default=float("inf"), metavar="SECONDS",
        help="fail if a message cannot be handed to the socket (no peer, peers at their "
        "high-water mark) or a REQ gets no reply within SECONDS (default: wait forever)",
    )  # fmt: skip


def _add_receiving(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("receiving")
    g.add_argument(
        "-n", "--count", type=positive_int, default=None, metavar="N",
        help="exit after N messages (default: run until interrupted)",
    )  # fmt: skip
    g.add_argument(
        "--timeout", type=duration, default=float("inf"), metavar="SECONDS",
        help="stop when no message arrives for SECONDS; an error if --count was not reached "
        "(default: wait forever)",
    )  # fmt: skip
    g.add_argument(
        "--reply", default=None, metavar="TEXT",
        help="REP: answer every request with TEXT, framed as --format says "
        "(default: echo the request)",
    )  # fmt: skip
    g.add_argument(
        "-s", "--subscribe", "--topic", dest="topics", action="append", default=None,
        metavar="PREFIX",
        help="SUB/XSUB: receive messages whose first frame starts with PREFIX; repeatable "
        "(default: everything)",
    )  # fmt: skip
    g.add_argument(
        "--output", dest="output", default="-", metavar="FILE",
        help="write messages to FILE (default: stdout)",
    )  # fmt: skip


def _add_pub(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("publishing")
    g.add_argument(
        "--topic", default=None, metavar="TOPIC",
        help="put TOPIC before each message, as a frame of its own (subscribers match it)",
    )  # fmt: skip
    g.add_argument(
        "--wait-subscribers", type=int, default=0, metavar="N",
        help="before publishing, wait until N subscriptions have arrived (PUB drops what no "
        "subscriber has asked for yet: the slow-joiner problem); bounded by --timeout",
    )  # fmt: skip


def add_parsers(sub: Any) -> None:
    senders = frozenset(SENDERS)
    receivers = frozenset(RECEIVERS)
    epilog_send = (
        "examples:\n"
        "  ls | purezmq send -b 'tcp://*:5555'                  each file name to the PULL peers\n"
        "  purezmq send -t REQ -c tcp://localhost:5555 -m ping  prints the reply\n"
        "  purezmq send -t DEALER -c ipc:///tmp/q -f json < messages.jsonl\n"
    )
    p = sub.add_parser(
        "send", help="send messages from stdin, a file or --message",
        description="Send messages read from stdin, a file or --message through a socket "
        "(default PUSH). A REQ socket waits for each reply and prints it; ROUTER takes the "
        "peer's routing id as the first frame.",
        epilog=epilog_send, formatter_class=HelpFormatter,
    )  # fmt: skip
    add_socket_arguments(p, "PUSH", senders)
    _add_framing(p)
    _add_sending(p)
    add_progress_argument(p)
    p.set_defaults(run=run_send, parser=p)

    epilog_recv = (
        "examples:\n"
        "  purezmq recv -b 'tcp://*:5555'                        print what PUSH peers send\n"
        "  purezmq recv -t REP -b tcp://127.0.0.1:5555 --reply ok\n"
        "  purezmq recv -t ROUTER -b ipc:///tmp/q -f json -n 1   one message, identity first\n"
    )
    p = sub.add_parser(
        "recv", help="print the messages a socket receives",
        description="Print every message a socket (default PULL) receives, one per line. "
        "A REP socket answers each request with --reply or an echo.",
        epilog=epilog_recv, formatter_class=HelpFormatter,
    )  # fmt: skip
    add_socket_arguments(p, "PULL", receivers)
    _add_framing(p)
    _add_receiving(p)
    add_progress_argument(p)
    p.set_defaults(run=run_recv, parser=p)

    p = sub.add_parser(
        "pub", help="publish messages from stdin, a file or --message",
        description="Publish messages (send on a PUB socket, by default bound). Subscribers "
        "get only what is published after they subscribed: --wait-subscribers waits for them.",
        epilog="example:\n  tail -F app.log | purezmq pub -b 'tcp://*:5556' --topic app.log\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    add_socket_arguments(p, "PUB", frozenset({"PUB", "XPUB"}))
    _add_framing(p)
    _add_sending(p)
    _add_pub(p)
    add_progress_argument(p)
    p.set_defaults(run=run_send, parser=p)

    p = sub.add_parser(
        "sub", help="print the messages published to some topics",
        description="Subscribe (a SUB socket, by default connected) and print what is published.",
        epilog="example:\n  purezmq sub -c tcp://localhost:5556 --topic app. --topic audit\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    add_socket_arguments(p, "SUB", frozenset({"SUB", "XSUB"}))
    _add_framing(p)
    _add_receiving(p)
    add_progress_argument(p)
    p.set_defaults(run=run_recv, parser=p)


# ------------------------------------------------------------------ sending
def _messages(a: argparse.Namespace, framing: Framing) -> Iterator[list[bytes]]:
    """The messages to send, read lazily (a pipe is sent as it flows)."""
    if a.message is not None:
        for n, text in enumerate(a.message, 1):
            data = text.encode("utf-8", "surrogateescape")
            yield framing.parse(data, f"--message {n}: ")
        return
    if a.input == "-":
        yield from framing.read(sys.stdin.buffer)
        return
    try:
        f = open(a.input, "rb")  # noqa: SIM115 - closed below, after the last message
    except OSError as exc:
        fail(f"cannot read {a.input}: {exc.strerror}")
    with f:
        yield from framing.read(f)


def _repeated(a: argparse.Namespace, framing: Framing) -> Iterator[list[bytes]]:
    if a.repeat == 1:
        yield from _messages(a, framing)
        return
    first = list(_messages(a, framing))  # read once, sent --repeat times
    for _ in range(a.repeat):
        yield from first


def _wait_subscribers(sock: Any, wanted: int, stop: StopFlag, timeout: float) -> None:
    """Count subscriptions arriving on an XPUB until `wanted` have come."""
    seen = 0
    while seen < wanted:
        if not wait_for(sock, zmq.POLLIN, stop, timeout):
            fail(f"only {seen} of {wanted} subscriptions arrived within --timeout")
        if sock.recv()[:1] == b"\x01":
            seen += 1


def run_send(a: argparse.Namespace) -> int:
    check_endpoints(a, a.parser)
    framing = Framing(a.format, a.delimiter)
    topic = getattr(a, "topic", None)
    waiting = getattr(a, "wait_subscribers", 0)
    # PUB cannot see subscriptions; XPUB can, and otherwise behaves the same.
    kind = "XPUB" if waiting and a.type == "PUB" else a.type
    sent = 0
    problem = None
    with running() as (ctx, stop):
        try:
            sock = open_socket(ctx, a, kind)
            if waiting:
                _wait_subscribers(sock, waiting, stop, a.timeout)
            with Progress(a.progress, "sent", a.count) as progress:
                pace = _Pace(a.rate, stop)
                for frames in _repeated(a, framing):
                    if a.count is not None and sent >= a.count:
                        break
                    pace.wait()
                    _send_one(sock, [topic.encode(), *frames] if topic else frames, stop, a)
                    sent += 1
                    progress.advance()
                    if a.type == "REQ":
                        framing.write(sys.stdout.buffer, _reply(sock, stop, a.timeout))
        except Interrupted:
            note(f"interrupted after sending {sent} messages")
            return EXIT_INTERRUPTED
        except FramingError as exc:
            # What came before the bad input was good: it is still delivered.
            problem = f"{exc} (after sending {sent} messages)"
        sock.close()
        finish(ctx, stop)
    if problem:
        fail(problem)
    return 0


class _Pace:
    """At most `rate` messages per second (no limit when None)."""

    def __init__(self, rate: float | None, stop: StopFlag) -> None:
        self.interval = 1.0 / rate if rate else 0.0
        self.stop = stop
        self.next_at = time.monotonic()

    def wait(self) -> None:
        if not self.interval:
            return
        delay = self.next_at - time.monotonic()
        if delay > 0 and self.stop.wait(delay):
            raise Interrupted
        self.next_at = max(self.next_at, time.monotonic() - self.interval) + self.interval


def _send_one(sock: Any, frames: list[bytes], stop: StopFlag, a: argparse.Namespace) -> None:
    while True:
        try:
            sock.send_multipart(frames, zmq.NOBLOCK)
            return
        except zmq.Again:
            if not wait_for(sock, zmq.POLLOUT, stop, a.timeout):
                fail(
                    f"could not send within --timeout {a.timeout:g} s: no peer takes messages "
                    "(none connected yet, or all at their high-water mark)"
                )


def _reply(sock: Any, stop: StopFlag, timeout: float) -> list[bytes]:
    if not wait_for(sock, zmq.POLLIN, stop, timeout):
        fail(f"no reply within --timeout {timeout:g} s")
    frames: list[bytes] = sock.recv_multipart()
    return frames


# ---------------------------------------------------------------- receiving
def _output(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdout.buffer
    try:
        return open(path, "ab")
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror}")


def _subscribe(sock: Any, a: argparse.Namespace) -> None:
    if a.topics is not None and a.type not in ("SUB", "XSUB"):
        fail(f"--subscribe is for SUB and XSUB sockets, not {a.type}")
    if a.type not in ("SUB", "XSUB"):
        return
    for prefix in a.topics if a.topics is not None else [""]:
        if a.type == "SUB":
            sock.setsockopt(zmq.SUBSCRIBE, prefix.encode())
        else:  # XSUB subscribes by sending the subscription message
            sock.send(b"\x01" + prefix.encode())


def run_recv(a: argparse.Namespace) -> int:
    check_endpoints(a, a.parser)
    framing = Framing(a.format, a.delimiter)
    reply = None if a.reply is None else framing.parse(a.reply.encode(), "--reply: ")
    if reply is not None and a.type != "REP":
        fail(f"--reply is for REP sockets, not {a.type}")
    out = _output(a.output)
    received = 0
    try:
        with running() as (ctx, stop):
            sock = open_socket(ctx, a)
            _subscribe(sock, a)
            with Progress(a.progress, "received", a.count) as progress:
                while a.count is None or received < a.count:
                    try:
                        ready = wait_for(sock, zmq.POLLIN, stop, a.timeout)
                    except Interrupted:
                        if a.count is None:
                            break  # an endless recv ends this way: not a failure
                        raise
                    if not ready:
                        if a.count is not None:
                            fail(
                                f"received {received} of {a.count} messages within "
                                f"--timeout {a.timeout:g} s"
                            )
                        break
                    frames = sock.recv_multipart()
                    received += 1
                    framing.write(out, frames)
                    progress.advance()
                    if a.type == "REP":
                        sock.send_multipart(frames if reply is None else reply)
            sock.close()
            finish(ctx, stop)
    except Interrupted:
        note(f"interrupted after {received} of {a.count} messages")
        return EXIT_INTERRUPTED
    finally:
        if out is not sys.stdout.buffer:
            out.close()
    return 0
