"""``purezmq stats`` and ``purezmq top``: what a socket is doing, from its
own counters (``Socket.get_stats()``, which libzmq does not have).

Statistics belong to a socket of this process, so both commands open one
(any type, bound or connected) and watch it while it works: a receiving type
takes messages and throws them away (a sink that measures), REP answers with
an echo, a sending type only keeps its connections. ``stats`` prints a JSON
snapshot every --interval (and a last one at exit); ``top`` draws a table
that refreshes in place, per connection, with rates (rich when installed,
plain text otherwise).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import purezmq as zmq

from .common import (
    RECEIVERS,
    HelpFormatter,
    Interrupted,
    StopFlag,
    add_socket_arguments,
    check_endpoints,
    duration,
    fail,
    finish,
    open_socket,
    positive_int,
    running,
    wait_for,
)
from .table import render_table


def _common(p: argparse.ArgumentParser) -> None:
    add_socket_arguments(p, None)
    g = p.add_argument_group("watching")
    g.add_argument(
        "-i", "--interval", type=duration, default=1.0, metavar="SECONDS",
        help="time between snapshots (default: 1)",
    )  # fmt: skip
    g.add_argument(
        "-n", "--count", type=positive_int, default=None, metavar="N",
        help="exit after receiving N messages (default: run until interrupted)",
    )  # fmt: skip
    g.add_argument(
        "--iterations", type=positive_int, default=None, metavar="N",
        help="exit after N snapshots (default: run until interrupted)",
    )  # fmt: skip
    g.add_argument(
        "--duration", type=duration, default=float("inf"), metavar="SECONDS",
        help="exit after SECONDS (default: run until interrupted)",
    )  # fmt: skip
    g.add_argument(
        "--prometheus", type=listen_address, default=None, metavar="[HOST:]PORT",
        help="also serve the statistics as Prometheus metrics at http://HOST:PORT/metrics, "
        "updated every --interval (HOST defaults to all interfaces; needs the prometheus "
        "extra; metric names in docs/statistics.md)",
    )  # fmt: skip
    g.add_argument(
        "--name", default=None, metavar="NAME",
        help="the socket's name in the Prometheus 'socket' label (default: its type, lower case)",
    )  # fmt: skip


def listen_address(text: str) -> tuple[str, int]:
    """'9100' or 'HOST:9100' -> (host, port); host '' means every interface."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not [HOST:]PORT with PORT in 1-65535")
    return host.strip("[]"), int(port)


def _exporter(a: argparse.Namespace) -> Any:
    """The StatsCollector serving --prometheus, or None."""
    if a.prometheus is None:
        return None
    try:
        from prometheus_client import start_http_server

        from purezmq.utils.prometheus import StatsCollector
    except ImportError:
        fail("--prometheus needs prometheus_client: pip install 'purezmq[prometheus]'")
    host, port = a.prometheus
    try:
        start_http_server(port, addr=host or "0.0.0.0")
    except OSError as e:
        fail(f"--prometheus {host}:{port}: {e.strerror or e}")
    return StatsCollector()


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "stats", help="print a socket's statistics as JSON lines",
        description="Open a socket, let it work (receiving types take and discard messages, "
        "REP echoes) and print Socket.get_stats() as one JSON object per --interval, and "
        "once more at exit: messages and bytes in and out, drops at the high-water mark, "
        "queue depths, reconnects and handshake failures, in total and per connection.",
        epilog="example:\n  purezmq stats -t PULL -b 'tcp://*:5555' --interval 5 | jq .msgs_in\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    _common(p)
    p.set_defaults(run=run_stats, parser=p)

    p = sub.add_parser(
        "top", help="a live table of a socket's connections and rates",
        description="Like 'stats', drawn as a table that refreshes in place: the socket's "
        "totals, then one row per connection, with message rates over the last interval.",
        epilog="example:\n  purezmq top -t SUB -c tcp://feed:5556 -o SUBSCRIBE=\n",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    _common(p)
    p.add_argument(
        "--plain", action="store_true",
        help="plain text even when rich is installed; each snapshot below the last one when "
        "stdout is not a terminal",
    )  # fmt: skip
    p.set_defaults(run=run_top, parser=p)


class _Watch:
    """The socket being watched, and the loop that keeps it working."""

    def __init__(self, sock: Any, a: argparse.Namespace, stop: StopFlag) -> None:
        self.sock = sock
        self.a = a
        self.stop = stop
        self.received = 0
        self.started = time.monotonic()
        self.exporter = _exporter(a)
        self.name: str = a.name or a.type.lower()
        if self.exporter is not None:
            self.snapshot()  # a scrape before the first interval sees the socket

    def snapshot(self) -> dict[str, Any]:
        """The socket's statistics now (and the exporter's, when serving)."""
        if self.exporter is not None:
            result: dict[str, Any] = self.exporter.observe(self.sock, self.name)
            return result
        return self.sock.get_stats()  # type: ignore[no-any-return]

    def done(self) -> bool:
        count: int | None = self.a.count
        limit: float = self.a.duration
        return (count is not None and self.received >= count) or (
            time.monotonic() - self.started >= limit
        )

    def work_until(self, deadline: float) -> None:
        """Receive (and drop) messages until `deadline` or the end."""
        receives = self.a.type in RECEIVERS
        while not self.done():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if not receives:
                if self.stop.wait(left):
                    raise Interrupted
                continue
            if wait_for(self.sock, zmq.POLLIN, self.stop, left):
                frames = self.sock.recv_multipart()
                self.received += 1
                if self.a.type == "REP":
                    self.sock.send_multipart(frames)

    def snapshots(self) -> Any:
        """Yield a snapshot every interval until done (or interrupted)."""
        n = 0
        try:
            while not self.done() and (self.a.iterations is None or n < self.a.iterations):
                self.work_until(time.monotonic() + self.a.interval)
                n += 1
                yield self.snapshot()
        except Interrupted:
            pass


def _watch(a: argparse.Namespace, show: Any, last: Any) -> int:
    check_endpoints(a, a.parser)
    with running() as (ctx, stop):
        sock = open_socket(ctx, a)
        if a.type == "SUB" and not any(o.upper().startswith("SUBSCRIBE") for o in a.option):
            sock.setsockopt(zmq.SUBSCRIBE, b"")  # everything, unless told otherwise
        watch = _Watch(sock, a, stop)
        snapshot = None
        for snapshot in watch.snapshots():
            show(snapshot)
        last(watch.snapshot(), snapshot)
        sock.close(linger=0)
        finish(ctx, stop)
    return 0


def run_stats(a: argparse.Namespace) -> int:
    def show(s: dict[str, Any]) -> None:
        print(json.dumps(s, sort_keys=True), flush=True)

    def last(s: dict[str, Any], shown: dict[str, Any] | None) -> None:
        if s != shown:
            show(s)

    return _watch(a, show, last)


def run_top(a: argparse.Namespace) -> int:
    view = _TopView(a)

    def last(s: dict[str, Any], shown: dict[str, Any] | None) -> None:
        if s != shown:  # no second table of the same counters at exit
            view.show(s, final=True)

    try:
        return _watch(a, view.show, last)
    finally:
        view.close()


class _TopView:
    """Draws successive snapshots: rich Live, an ANSI-redrawn text table on a
    terminal, or successive tables on a pipe."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.interval = a.interval
        self.previous: dict[str, Any] | None = None
        self.at = time.monotonic()
        self.tty = sys.stdout.isatty()
        self.live: Any = None
        if not a.plain and self.tty:
            try:
                from rich.live import Live
            except ImportError:
                pass
            else:
                self.live = Live(auto_refresh=False)
                self.live.start()

    def show(self, snapshot: dict[str, Any], final: bool = False) -> None:
        now = time.monotonic()
        elapsed, self.at = now - self.at, now
        title, header, rows = render_table(snapshot, self.previous, elapsed)
        self.previous = snapshot
        if self.live is not None:
            from .table import rich_table

            self.live.update(rich_table(title, header, rows), refresh=True)
            return
        text = _text_table(title, header, rows)
        if self.tty and not final:
            sys.stdout.write("\x1b[H\x1b[2J" + text)  # home and clear: redraw in place
        else:
            sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()


def _text_table(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"
