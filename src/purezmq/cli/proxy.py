"""``purezmq proxy``: a queue, forwarder or streamer device between two endpoints.

The three devices of the ZeroMQ guide, run by ``zmq.proxy_steerable``:

- ``queue``: ROUTER frontend, DEALER backend - clients' requests shared among
  workers, replies routed back (the "extended request-reply" broker);
- ``forwarder``: XSUB frontend, XPUB backend - publishers to subscribers,
  subscriptions passed upstream;
- ``streamer``: PULL frontend, PUSH backend - a pipeline stage that fans in
  and fans out.

The proxy runs on a thread of its own; the main thread waits for SIGINT or
SIGTERM and then stops it through the steerable proxy's control socket
(TERMINATE), so the counters it kept can be printed as it ends.
"""

from __future__ import annotations

import argparse
import struct
import threading
from typing import Any

import purezmq as zmq

from .common import (
    HelpFormatter,
    duration,
    fail,
    note,
    running,
    to_ms,
)

#: device -> (frontend type, backend type)
KINDS = {"queue": ("ROUTER", "DEALER"), "forwarder": ("XSUB", "XPUB"), "streamer": ("PULL", "PUSH")}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "proxy", help="run a queue, forwarder or streamer between two endpoints",
        description="Forward messages between a frontend and a backend socket until "
        "interrupted: queue (ROUTER to DEALER, for REQ clients and REP workers), forwarder "
        "(XSUB to XPUB, for publishers and subscribers) or streamer (PULL to PUSH, for "
        "pipelines). On SIGINT or SIGTERM it stops and prints what it forwarded.",
        epilog="examples:\n"
        "  purezmq proxy queue --frontend 'tcp://*:5559' --backend 'tcp://*:5560'\n"
        "  purezmq proxy forwarder --frontend 'tcp://*:5557' --backend 'tcp://*:5558' "
        "--capture 'tcp://127.0.0.1:5599'\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    p.add_argument("kind", choices=sorted(KINDS), help="which device (see above)")
    g = p.add_argument_group("endpoints")
    for side in ("frontend", "backend"):
        front, back = "the clients or publishers", "the workers or subscribers"
        g.add_argument(
            f"--{side}", action="append", default=[], metavar="ENDPOINT",
            help=f"bind the {side} (facing {front if side == 'frontend' else back}) to "
            "ENDPOINT; repeatable; prefix with '>' to connect instead (CZMQ's convention)",
        )  # fmt: skip
    g.add_argument(
        "--capture", default=None, metavar="ENDPOINT",
        help="also publish a copy of every message on a PUB socket bound to ENDPOINT "
        "(watch it with 'purezmq sub -c ENDPOINT')",
    )  # fmt: skip
    g.add_argument(
        "--linger", type=duration, default=0.0, metavar="SECONDS",
        help="on exit, how long messages still queued may take to go out (default: 0)",
    )  # fmt: skip
    g.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print both sockets' connection events on stderr",
    )
    p.set_defaults(run=run, parser=p)


def _socket(ctx: Any, kind: str, endpoints: list[str], a: argparse.Namespace) -> Any:
    binds = [e for e in endpoints if not e.startswith(">")]
    connects = [e[1:] for e in endpoints if e.startswith(">")]
    spec = argparse.Namespace(
        type=kind, bind=[e.removeprefix("@") for e in binds], connect=connects, option=[],
        linger=a.linger, verbose=a.verbose,
    )  # fmt: skip
    from .common import open_socket

    return open_socket(ctx, spec)


def run(a: argparse.Namespace) -> int:
    if not a.frontend or not a.backend:
        a.parser.error("give both --frontend and --backend ENDPOINT")
    front_type, back_type = KINDS[a.kind]
    with running() as (ctx, stop):
        frontend = _socket(ctx, front_type, a.frontend, a)
        backend = _socket(ctx, back_type, a.backend, a)
        capture = None
        if a.capture:
            capture = _socket(ctx, "PUB", [a.capture], a)
        control_addr = f"inproc://purezmq-cli-proxy-{id(a):x}"
        control = ctx.socket(zmq.PAIR)
        control.bind(control_addr)
        failure: list[BaseException] = []

        def serve() -> None:
            peer = ctx.socket(zmq.PAIR)
            peer.connect(control_addr)
            try:
                zmq.proxy_steerable(frontend, backend, capture, peer)
            except BaseException as exc:  # reported by the main thread
                failure.append(exc)
            finally:
                peer.close(linger=0)

        thread = threading.Thread(target=serve, name="purezmq-cli-proxy", daemon=True)
        thread.start()
        route = f"{front_type} {', '.join(a.frontend)} -> {back_type} {', '.join(a.backend)}"
        note(f"{a.kind}: {route}" + (f", capture on {a.capture}" if a.capture else ""))
        while thread.is_alive() and not stop.wait(0.1):
            pass
        if failure:
            fail(f"proxy stopped: {failure[0]}")
        counts = _statistics(control)
        control.send(b"TERMINATE")
        thread.join(5)
        for s in (frontend, backend, capture, control):
            if s is not None:
                s.close(linger=to_ms(a.linger))
        if counts:
            note(
                f"forwarded {counts[0]} frames ({counts[1]} bytes) from the frontend, "
                f"{counts[4]} frames ({counts[5]} bytes) from the backend"
            )
        ctx.term()
    return 0


def _statistics(control: Any) -> list[int]:
    """The steerable proxy's eight counters (frames and bytes in and out on
    each side), or [] if it does not answer within a second."""
    control.send(b"STATISTICS")
    if not control.poll(1000):
        return []
    frames = control.recv_multipart()
    return [struct.unpack("=Q", f)[0] for f in frames]
