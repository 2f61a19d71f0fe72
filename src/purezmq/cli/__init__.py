"""The ``purezmq`` command line (also ``python -m purezmq``).

In the spirit of zmqc and zmq-cat: sockets of any type from the shell, for
trying a topology, feeding a pipeline from a file, watching a feed or
checking at 3 a.m. that a peer is reachable and speaks the same protocol.

    send / recv        messages between stdin/stdout (or files) and a socket
    pub / sub          the same, with topics, for publish/subscribe
    proxy              a queue, forwarder or streamer device
    monitor            a socket's connection events, live
    stats / top        a socket's statistics (JSON lines, or a live table)
    bench              throughput and latency, purezmq and pyzmq side by side
    keygen             CURVE key pairs and certificates
    journal            the durable journal (python -m purezmq.journal)

Conventions every command keeps: data on stdout, everything else on stderr;
durations in seconds (``250ms``, ``2m`` also accepted); errors are one line
``purezmq: error: ...`` with exit status 1, usage errors exit 2, a bounded
job cut short by SIGINT/SIGTERM exits 130, and a job that runs until stopped
(an endless recv, a proxy, monitor, top) exits 0 when stopped. The reference
is docs/cli.md, generated from these parsers (scripts/gen_cli_docs.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import purezmq as zmq

from . import bench, journal, keygen, monitor, proxy, stats, transfer
from .common import EXIT_ERROR, CLIError, HelpFormatter
from .framing import FramingError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (also read by scripts/gen_cli_docs.py)."""
    ap = argparse.ArgumentParser(
        prog="purezmq",
        description="ZeroMQ from the shell: sockets of any type, devices, monitoring, "
        "statistics, benchmarks, keys and the durable journal. "
        "'purezmq COMMAND --help' for each command.",
        epilog="examples:\n"
        "  purezmq recv -b 'tcp://*:5555' &  seq 3 | purezmq send -c tcp://localhost:5555\n"
        "  purezmq sub -c tcp://localhost:5556 --topic weather\n"
        "  purezmq monitor -t DEALER -c tcp://10.0.0.5:5555\n"
        "\n"
        "exit status: 0 done (or stopped, for commands that run until stopped), 1 an error "
        "(one line on stderr), 2 a usage error, 130 interrupted before the job was done.",
        formatter_class=HelpFormatter,
    )  # fmt: skip
    build = "compiled" if zmq.COMPILED else "pure Python"
    ap.add_argument(
        "-V", "--version", action="version",
        version=f"purezmq {zmq.__version__} ({build} build, libzmq {zmq.zmq_version()} "
        f"protocol, Python {sys.version.split()[0]})",
    )  # fmt: skip
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    transfer.add_parsers(sub)
    proxy.add_parser(sub)
    monitor.add_parser(sub)
    stats.add_parsers(sub)
    bench.add_parser(sub)
    keygen.add_parser(sub)
    journal.add_parser(sub)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except (CLIError, FramingError, zmq.ZMQError) as exc:
        print(f"purezmq: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (| head -1): stop as quietly as cat does, and
        # keep the interpreter from failing to flush into the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # a Ctrl-C outside the commands' own handling
        print("purezmq: interrupted", file=sys.stderr)
        return 130
    return status
