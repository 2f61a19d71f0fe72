"""What every ``purezmq`` command shares: socket set-up from the command line,
durations, clean stopping on signals, and the one-line error.

The CLI is one of the library's first users: it reaches purezmq through its
public API only (``import purezmq as zmq``), exactly as a pyzmq program would,
so anything it needs that the API lacks is a gap in the API, not a reason to
import a private module (tests/unit/test_layering.py checks this).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

import purezmq as zmq

#: The socket types the CLI offers: libzmq's stable ones (drafts are not
#: implemented), by the names the ZeroMQ guide uses.
SOCKET_TYPES = (
    "PAIR", "PUB", "SUB", "REQ", "REP", "DEALER", "ROUTER",
    "PULL", "PUSH", "XPUB", "XSUB", "STREAM",
)  # fmt: skip

#: Types that can send on their own initiative (REP only answers).
SENDERS = frozenset({"PAIR", "PUB", "REQ", "DEALER", "ROUTER", "PUSH", "XPUB", "XSUB", "STREAM"})
#: Types that can receive on their own initiative (REQ only gets replies).
RECEIVERS = frozenset({"PAIR", "SUB", "REP", "DEALER", "ROUTER", "PULL", "XPUB", "XSUB", "STREAM"})

#: Exit statuses: 1 for a failure at run time (one line on stderr), 2 for a
#: usage error (argparse's), 130 when a bounded job was interrupted (the
#: shell's convention for SIGINT).
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: How often a waiting command looks at its stop flag (a signal sets it): the
#: most a Ctrl-C waits to take effect, never a delay on traffic (a poll
#: returns as soon as a socket is ready).
TICK_MS = 100


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, wrapping descriptions and epilogs paragraph by
    paragraph and keeping indented lines (examples) as they are written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for block in text.split("\n\n"):
            lines = block.splitlines()
            if any(line.startswith("  ") for line in lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(super()._fill_text(block, width, indent))
        return "\n\n".join(out)


class CLIError(Exception):
    """A failure the user can act on: printed as one line, exit status 1."""


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived while a bounded job was unfinished."""


def fail(message: str) -> NoReturn:
    raise CLIError(message)


_DURATION = re.compile(r"\s*(-?\d+(?:\.\d*)?|-?\.\d+)\s*(ms|s|m|h)?\s*", re.IGNORECASE)
_SCALE = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration(text: str) -> float:
    """'5' or '5s' -> 5.0 seconds; '250ms', '2m', '1h' also; 'inf' waits forever.

    Seconds are the CLI's one unit of time; the suffixes are for convenience,
    so that an option never needs its unit guessed from its name."""
    if text.strip().lower() in ("inf", "forever", "-1"):
        return float("inf")
    m = _DURATION.fullmatch(text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 5, 2.5s, 250ms, 2m)")
    value = float(m.group(1)) * _SCALE[(m.group(2) or "s").lower()]
    if value < 0:
        raise argparse.ArgumentTypeError(f"a duration cannot be negative: {text!r}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {text!r}")
    return value


def socket_type(text: str) -> str:
    name = text.upper()
    if name not in SOCKET_TYPES:
        raise argparse.ArgumentTypeError(
            f"unknown socket type {text!r} (one of {', '.join(SOCKET_TYPES)})"
        )
    return name


#: Why a command refuses a type, and what to use instead.
_WRONG_WAY = {
    "SUB": "a SUB socket only receives: use 'purezmq sub' or 'recv -t SUB'",
    "PULL": "a PULL socket only receives: use 'purezmq recv'",
    "REP": "a REP socket answers requests: use 'purezmq recv -t REP' (it replies)",
    "PUB": "a PUB socket only sends: use 'purezmq pub' or 'send -t PUB'",
    "PUSH": "a PUSH socket only sends: use 'purezmq send'",
    "REQ": "a REQ socket asks first: use 'purezmq send -t REQ' (it prints the replies)",
}


def socket_type_among(allowed: frozenset[str]) -> Callable[[str], str]:
    """An argparse type: a socket type name from `allowed`, saying why not."""

    def parse(text: str) -> str:
        name = socket_type(text)
        if name not in allowed:
            why = _WRONG_WAY.get(name, f"not here: one of {', '.join(sorted(allowed))}")
            raise argparse.ArgumentTypeError(why)
        return name

    return parse


def to_ms(seconds: float) -> int:
    """A duration as the milliseconds libzmq's options take (-1: forever)."""
    return -1 if seconds == float("inf") else round(seconds * 1000)


# --------------------------------------------------------------- arguments
def add_socket_arguments(
    p: argparse.ArgumentParser, default_type: str | None, allowed: frozenset[str] | None = None
) -> None:
    """--type, --bind, --connect, --option and --linger: a socket's set-up."""
    g = p.add_argument_group("socket")
    choices = [t for t in SOCKET_TYPES if allowed is None or t in allowed]
    g.add_argument(
        "-t", "--type", type=socket_type_among(frozenset(choices)), metavar="TYPE",
        default=default_type, required=default_type is None,
        help=f"socket type: {', '.join(choices)} (any case)"
        + (f"; default {default_type}" if default_type else ""),
    )  # fmt: skip
    g.add_argument(
        "-b", "--bind", action="append", default=[], metavar="ENDPOINT",
        help="bind to ENDPOINT (tcp://*:5555, tcp://127.0.0.1:*, ipc:///tmp/x, ipc://@name); "
        "repeatable; a wildcard port's real endpoint is printed on stderr",
    )  # fmt: skip
    g.add_argument(
        "-c", "--connect", action="append", default=[], metavar="ENDPOINT",
        help="connect to ENDPOINT (tcp://host:5555, ipc:///tmp/x); repeatable; "
        "the peer need not be there yet: purezmq reconnects",
    )  # fmt: skip
    g.add_argument(
        "-o", "--option", action="append", default=[], metavar="NAME=VALUE",
        help="set a socket option by its libzmq name, without ZMQ_ "
        "(SNDHWM=1000, ROUTING_ID=me, CURVE_SERVERKEY=<z85>); numbers are taken as "
        "integers; repeatable; applied before binding and connecting",
    )  # fmt: skip
    g.add_argument(
        "--linger", type=duration, default=None, metavar="SECONDS",
        help="on exit, how long queued messages may take to go out before they are "
        "dropped (default: libzmq's for the socket type: until they are delivered, "
        "and 0 for SUB and XSUB, whose queue is subscriptions; 0 drops them at once)",
    )  # fmt: skip
    g.add_argument(
        "-v", "--verbose", action="store_true",
        help="print the socket's connection events on stderr (as 'purezmq monitor' does)",
    )  # fmt: skip


def check_endpoints(a: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    if not a.bind and not a.connect:
        parser.error("give at least one --bind or --connect ENDPOINT")


def _option_value(raw: str) -> int | bytes:
    try:
        return int(raw, 0)
    except ValueError:
        return raw.encode()


def set_option(sock: Any, spec: str) -> None:
    """Apply one ``NAME=VALUE`` from ``--option``.

    The value is tried as an integer when it looks like one, and as bytes
    when the option wants bytes (a numeric ROUTING_ID or SUBSCRIBE prefix),
    so that no option's type needs to be known here."""
    name, sep, raw = spec.partition("=")
    key = name.strip().upper().removeprefix("ZMQ_")
    if not sep or not key:
        fail(f"--option {spec!r}: expected NAME=VALUE, e.g. SNDHWM=1000")
    try:
        option = zmq.SocketOption[key]
    except KeyError:
        fail(f"--option {spec!r}: no socket option named {key}")
    value = _option_value(raw)
    try:
        try:
            sock.set(option, value)
        except TypeError:
            if not isinstance(value, int):
                raise
            sock.set(option, raw.encode())
    except (TypeError, ValueError, zmq.ZMQError) as exc:
        fail(f"--option {spec!r}: {exc}")


def open_socket(ctx: Any, a: argparse.Namespace, type_name: str | None = None) -> Any:
    """A socket of ``a.type`` (or `type_name`) set up as `a` says: `new_socket`
    then `attach`."""
    sock = new_socket(ctx, a, type_name)
    attach(sock, a, type_name)
    return sock


def new_socket(ctx: Any, a: argparse.Namespace, type_name: str | None = None) -> Any:
    """A socket with the options of `a` (and its events on stderr with
    --verbose), not yet bound or connected."""
    sock = ctx.socket(getattr(zmq, type_name or a.type))
    if a.linger is not None:  # else the type's own default (SUB: 0, as libzmq)
        sock.linger = to_ms(a.linger)
    for spec in a.option:
        set_option(sock, spec)
    if getattr(a, "verbose", False):
        from .monitor import EventPrinter

        EventPrinter.watch(sock, sys.stderr)
    return sock


def attach(sock: Any, a: argparse.Namespace, type_name: str | None = None) -> None:
    """Bind and connect `sock` as `a` says; wildcard binds are reported on
    stderr with the port the system chose (a script reads it from there)."""
    kind = type_name or a.type
    for ep in a.bind:
        try:
            sock.bind(ep)
        except zmq.ZMQError as exc:
            fail(f"cannot bind {kind} to {ep}: {exc}")
        if "*" in ep or ep.rstrip("/").endswith(":0"):
            note(f"{kind} bound to {sock.last_endpoint.decode()}")
    for ep in a.connect:
        try:
            sock.connect(ep)
        except zmq.ZMQError as exc:
            fail(f"cannot connect {kind} to {ep}: {exc}")


def note(message: str) -> None:
    """An informational line on stderr (stdout carries only data)."""
    # One write per line: the --verbose printer thread writes to stderr too.
    sys.stderr.write(f"purezmq: {message}\n")
    sys.stderr.flush()


# --------------------------------------------------------------- stopping
class StopFlag:
    """Set by SIGINT or SIGTERM; waiting loops look at it every TICK_MS.

    A handler that raised instead could interrupt a multipart send between
    two frames; a flag lets every message finish or not start."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.signal: int | None = None

    def set(self, signum: int | None = None) -> None:
        self.signal = signum
        self._event.set()

    def __bool__(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        return self._event.wait(seconds)


@contextmanager
def stop_on_signals() -> Iterator[StopFlag]:
    """A StopFlag that SIGINT and SIGTERM set, for the duration of the block."""
    flag = StopFlag()

    def handler(signum: int, _frame: FrameType | None) -> None:
        flag.set(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextmanager
def running() -> Iterator[tuple[Any, StopFlag]]:
    """A Context and a StopFlag for one command.

    On an exception (an error, Interrupted) the context is destroyed without
    lingering: nothing more will be sent, so nothing is worth waiting for. A
    command that ends normally calls `finish` itself, to let queued messages
    go out first."""
    ctx = zmq.Context()
    with stop_on_signals() as stop:
        try:
            yield ctx, stop
        finally:
            if not ctx.closed:
                ctx.destroy(linger=0)


def finish(ctx: Any, stop: StopFlag) -> None:
    """Close the context after the queued messages went out (each socket's
    --linger bounds the wait); a signal meanwhile abandons them. Every
    socket of `ctx` must be closed already."""
    from .monitor import EventPrinter

    EventPrinter.drain_all()
    if not terminate(ctx, stop):
        abandon("interrupted: messages still queued were not delivered", EXIT_INTERRUPTED)


def wait_for(sock: Any, event: int, stop: StopFlag, timeout: float) -> bool:
    """Wait until `sock` is ready for `event` (POLLIN/POLLOUT): True when it
    is, False after `timeout` seconds; raises Interrupted when `stop` is set."""
    deadline = time.monotonic() + timeout
    poller = zmq.Poller()
    poller.register(sock, event)
    while True:
        if stop:
            raise Interrupted
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if poller.poll(TICK_MS if left * 1000 > TICK_MS else max(1, int(left * 1000))):
            return True


def terminate(ctx: Any, stop: StopFlag) -> bool:
    """``ctx.term()``, which waits up to each socket's linger for queued
    messages to go out, cut short by SIGINT/SIGTERM: False when it was.

    term() runs on a helper thread so that the main thread keeps watching the
    stop flag; once it is set the caller exits the process at once
    (`abandon`), which is what a second Ctrl-C means to a user."""
    done = threading.Event()

    def term() -> None:
        ctx.term()
        done.set()

    threading.Thread(target=term, name="purezmq-cli-term", daemon=True).start()
    while not done.wait(TICK_MS / 1000):
        if stop:
            return False
    return True


def abandon(message: str, status: int) -> NoReturn:
    """Exit now, leaving queued messages undelivered (after a signal)."""
    note(message)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
