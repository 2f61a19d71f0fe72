"""``purezmq monitor``: a live, human-readable stream of a socket's connection
events, and the printer that ``--verbose`` on every other command uses.

A ZeroMQ monitor sees one socket of its own process, so ``monitor`` opens a
socket of the given type, binds or connects it, and narrates what happens:
listening, connecting, retries, handshakes (and why they fail),
disconnections. It answers the 3 a.m. question "can this box reach that
endpoint, and does the peer speak the same pattern and security?" without
writing a program. The probe takes part in the pattern like any peer (a PULL
probe takes its share of a PUSH's messages), so pick a type that takes
nothing from the real consumers: SUB, DEALER to a ROUTER, REQ to a REP.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import threading
import time
from typing import IO, Any, ClassVar

import purezmq as zmq
from purezmq.utils.monitor import recv_monitor_message

from .common import (
    EXIT_INTERRUPTED,
    HelpFormatter,
    Interrupted,
    add_socket_arguments,
    attach,
    check_endpoints,
    duration,
    fail,
    finish,
    new_socket,
    note,
    positive_int,
    running,
    wait_for,
)

#: What an event's value means, by event (libzmq's zmq_socket_monitor).
_FD_EVENTS = {"CONNECTED", "LISTENING", "ACCEPTED", "CLOSED", "DISCONNECTED"}
_ERRNO_EVENTS = {"BIND_FAILED", "ACCEPT_FAILED", "CLOSE_FAILED", "HANDSHAKE_FAILED_NO_DETAIL"}

_TEXT = {
    "CONNECTED": "connected",
    "CONNECT_DELAYED": "connecting (the peer has not answered yet)",
    "CONNECT_RETRIED": "connection failed; retrying",
    "LISTENING": "listening",
    "BIND_FAILED": "bind failed",
    "ACCEPTED": "accepted a connection",
    "ACCEPT_FAILED": "accept failed",
    "CLOSED": "closed",
    "CLOSE_FAILED": "close failed",
    "DISCONNECTED": "disconnected",
    "MONITOR_STOPPED": "monitor stopped",
    "HANDSHAKE_FAILED_NO_DETAIL": "handshake failed",
    "HANDSHAKE_SUCCEEDED": "handshake succeeded: the peer is ready for messages",
    "HANDSHAKE_FAILED_PROTOCOL": "handshake failed: protocol error",
    "HANDSHAKE_FAILED_AUTH": "handshake failed: authentication refused",
}


def event_name(event: int) -> str:
    try:
        name = zmq.Event(event).name
    except ValueError:
        name = None
    return name or f"EVENT_{event:#x}"


def describe(name: str, value: int) -> str:
    """One event as a sentence (the value read as the event defines it)."""
    text = _TEXT.get(name, name.lower())
    if name in _FD_EVENTS:
        return f"{text} (fd {value})"
    if name in _ERRNO_EVENTS:
        return f"{text}: {os.strerror(value)}" if value else text
    if name == "CONNECT_RETRIED":
        return f"{text} in {value} ms"
    if name == "HANDSHAKE_FAILED_PROTOCOL":
        try:
            code = zmq.Event(value).name or hex(value)
        except ValueError:
            code = hex(value)
        return f"{text} ({code.removeprefix('PROTOCOL_ERROR_')})"
    if name == "HANDSHAKE_FAILED_AUTH":
        return f"{text} (ZAP status {value})"
    return text


def render(event: dict[str, Any], as_json: bool) -> str:
    name = event_name(event["event"])
    endpoint = bytes(event["endpoint"]).decode("utf-8", "replace")
    when = datetime.datetime.now().astimezone()
    text = describe(name, event["value"])
    if as_json:
        record = {"time": when.isoformat(timespec="milliseconds"), "event": name,
                  "value": event["value"], "endpoint": endpoint, "text": text}  # fmt: skip
        return json.dumps(record)
    return f"{when.strftime('%H:%M:%S.%f')[:-3]}  {endpoint or '-'}  {name}  {text}"


class EventPrinter:
    """Prints a socket's events on a stream from a thread of its own (--verbose).

    The monitor socket is made on the calling thread (before the socket binds
    or connects, or the first events would be lost) and then used only by the
    printer thread, which ends at MONITOR_STOPPED, when the socket closes.
    `drain_all` waits for that before the context terminates (which would
    cut the printer off with events still queued). Events of the linger
    period after close are not shown: the monitor stops with the socket."""

    _threads: ClassVar[list[threading.Thread]] = []

    @classmethod
    def watch(cls, sock: Any, stream: IO[str]) -> None:
        mon = sock.get_monitor_socket()

        def pump() -> None:
            try:
                while True:
                    event = recv_monitor_message(mon)
                    stream.write(f"purezmq: {render(event, as_json=False)}\n")  # one write
                    stream.flush()
                    if event["event"] == zmq.EVENT_MONITOR_STOPPED:
                        return
            except zmq.ZMQError:  # ContextTerminated: the command ended early
                return
            finally:
                mon.close(linger=0)

        thread = threading.Thread(target=pump, name="purezmq-cli-monitor", daemon=True)
        thread.start()
        cls._threads.append(thread)

    @classmethod
    def drain_all(cls, timeout: float = 2.0) -> None:
        """Let every printer print what its (closed) socket reported."""
        deadline = time.monotonic() + timeout
        while cls._threads:
            cls._threads.pop().join(max(0.0, deadline - time.monotonic()))


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "monitor", help="print a socket's connection events as they happen",
        description="Open a socket, bind or connect it, and print its connection events "
        "(listening, connected, retries, handshakes and why they fail, disconnections), "
        "one line each. The probe is a real peer: choose a type that takes no messages "
        "from the real consumers (SUB; DEALER to a ROUTER; REQ to a REP).",
        epilog="examples:\n"
        "  purezmq monitor -t SUB -c tcp://broker:5556\n"
        "  purezmq monitor -t DEALER -c tcp://10.0.0.5:5555 --until HANDSHAKE_SUCCEEDED "
        "--timeout 5\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    add_socket_arguments(p, None)
    g = p.add_argument_group("monitoring")
    g.add_argument(
        "--until", type=str.upper, default=None, metavar="EVENT",
        help="exit 0 once this event is seen (e.g. HANDSHAKE_SUCCEEDED, LISTENING, "
        "DISCONNECTED); with --timeout, exit 1 if it is not seen in time",
    )  # fmt: skip
    g.add_argument(
        "-n", "--count", type=positive_int, default=None, metavar="N",
        help="exit after N events (default: run until interrupted)",
    )  # fmt: skip
    g.add_argument(
        "--timeout", type=duration, default=float("inf"), metavar="SECONDS",
        help="stop after SECONDS in all; an error if --until or --count was not reached by "
        "then (default: run until interrupted)",
    )  # fmt: skip
    g.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per event (time, event, value, endpoint, text)",
    )
    p.set_defaults(run=run, parser=p)


def run(a: argparse.Namespace) -> int:
    check_endpoints(a, a.parser)
    until = None if a.until is None else a.until.removeprefix("EVENT_")
    if until is not None and until not in zmq.Event.__members__:
        fail(f"--until {a.until}: not a monitor event (e.g. HANDSHAKE_SUCCEEDED, CONNECTED)")
    a.verbose = False  # the events go to stdout here
    bounded = until is not None or a.count is not None
    seen = 0
    with running() as (ctx, stop):
        sock = new_socket(ctx, a)
        mon = sock.get_monitor_socket()  # before binding: no event is missed
        attach(sock, a)
        deadline = time.monotonic() + a.timeout
        try:
            while a.count is None or seen < a.count:
                if not wait_for(mon, zmq.POLLIN, stop, deadline - time.monotonic()):
                    if bounded:
                        want = until or f"{a.count} events"
                        fail(f"no {want} within --timeout {a.timeout:g} s ({seen} events seen)")
                    break
                event = recv_monitor_message(mon)
                seen += 1
                print(render(event, a.json), flush=True)
                if until and event_name(event["event"]) == until:
                    break
        except Interrupted:
            if bounded:
                note(f"interrupted after {seen} events")
                return EXIT_INTERRUPTED
        mon.close(linger=0)
        sock.close(linger=0)
        finish(ctx, stop)
    return 0
