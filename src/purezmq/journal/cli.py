"""python -m purezmq.journal (also purezmq journal): create, capture into, inspect, replay
and trim journals.

    init PATH [--format arrow|parquet]
    capture PATH STREAM --type SUB|PULL|ROUTER (--bind EP | --connect EP)... [--topic T]...
            [--partitions N [--key-frame K]]   N processes, one per stream partition
    ls PATH                    streams, seq ranges, segments, bytes
    cat PATH STREAM [--from N] [--to N] [--json]
    replay PATH STREAM --type PUSH|PUB (--bind EP | --connect EP)... [--from N] [--to N]
    retain PATH [--max-age 7d] [--max-bytes 10G]
    verify PATH                read every segment, check its CRC32C, rows and density

The parser's help is the reference (docs/cli.md prints it): every option
says its unit, and the description is plain text, not reStructuredText.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from purezmq.cli.progress import Progress, add_progress_argument

from .errors import JournalError, NotAJournalError
from .journal import Journal
from .layout import SegmentInfo, contiguous_runs
from .writer import DEFAULT_SEAL_AGE_S, DEFAULT_SEAL_BYTES

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_AGES = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_size(text: str) -> int:
    """'512', '64k', '16M', '10G' -> bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", text.lower())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 512, 64k, 16M, 10G)")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def parse_age(text: str) -> float:
    """'30', '30s', '15m', '12h', '7d' -> seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text.lower())
    if not m:
        raise argparse.ArgumentTypeError(f"not an age: {text!r} (e.g. 30s, 15m, 12h, 7d)")
    return float(m.group(1)) * _AGES[m.group(2)]


def _emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, sort_keys=True), flush=True)


def _endpoints(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bind", action="append", default=[], metavar="EP",
                   help="bind the socket to this endpoint (tcp://*:5555, ipc:///tmp/x); repeatable")
    p.add_argument("--connect", action="append", default=[], metavar="EP",
                   help="connect the socket to this endpoint (tcp://host:5555); "
                   "repeatable")  # fmt: skip


_PATH = "the journal: a directory, or a URI (file://, s3://, s3a://, or any fsspec scheme)"
_SIZE = "SIZE in bytes: 512, 64k, 16M, 10G"
_AGE = "AGE: seconds, or 30s, 15m, 12h, 7d"
_DESCRIPTION = (
    "Create, capture into, inspect, replay and trim durable journals: streams of ZeroMQ "
    "messages stored as checksummed Arrow or Parquet segments (see docs/pipeline.md)."
)
_EPILOG = """\
capture --events prints one JSON line per event (ready, sealed, stats every --stats-ms,
stopped) on stdout, for scripts that drive a capture process. SIGTERM and SIGINT make a
capture seal what it holds and exit 0. Errors are one line on stderr with exit status 1.
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and --help)."""
    ap = argparse.ArgumentParser(
        prog="python -m purezmq.journal", description=_DESCRIPTION, epilog=_EPILOG
    )
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("init", help="create a journal (keeps an existing one)")
    p.add_argument("path", help=_PATH)
    p.add_argument("--format", choices=["arrow", "parquet"], default="arrow",
                   help="how segments are stored (default: arrow)")  # fmt: skip

    p = sub.add_parser("capture", help="capture a live socket into a stream")
    p.add_argument("path", help=_PATH + "; created if missing")
    p.add_argument("stream", help="the stream to append to (a name: letters, digits, . _ -)")
    p.add_argument("--type", required=True, type=str.upper, choices=["SUB", "PULL", "ROUTER"],
                   help="the capturing socket: SUB (from PUB), PULL (from PUSH) or ROUTER "
                   "(from DEALER/REQ, with --ack)")  # fmt: skip
    _endpoints(p)
    p.add_argument("--topic", action="append", default=[],
                   help="SUB: capture messages starting with this prefix (repeatable; "
                   "default: everything)")  # fmt: skip
    p.add_argument("--ack", action="store_true",
                   help="ROUTER: answer each message once its segment is sealed (durable)")
    p.add_argument("--format", choices=["arrow", "parquet"], default=None,
                   help="segment format of a journal this creates (default: arrow; an existing "
                   "journal keeps its own)")  # fmt: skip
    p.add_argument("--seal-bytes", type=parse_size, default=DEFAULT_SEAL_BYTES, metavar="SIZE",
                   help=f"seal the open segment once it holds this much ({_SIZE}; "
                   "default: %(default)s bytes)")  # fmt: skip
    p.add_argument("--seal-ms", type=float, default=DEFAULT_SEAL_AGE_S * 1000, metavar="MS",
                   help="seal the open segment once its first message is this old, in "
                   "milliseconds (default: %(default)s)")  # fmt: skip
    p.add_argument("--seal-count", type=int, default=None, metavar="N",
                   help="seal the open segment once it holds N messages (default: no limit)")
    p.add_argument("--retention-age", type=parse_age, default=None, metavar="AGE",
                   help=f"while capturing, delete sealed segments older than this ({_AGE}) "
                   "once every registered reader has read them (default: keep)")  # fmt: skip
    p.add_argument("--retention-bytes", type=parse_size, default=None, metavar="SIZE",
                   help=f"while capturing, delete the oldest segments beyond this total ({_SIZE}) "
                   "once every registered reader has read them (default: keep)")  # fmt: skip
    p.add_argument("--retention-hard-age", type=parse_age, default=None, metavar="AGE",
                   help=f"delete past this age ({_AGE}) even if a reader has not read it")
    p.add_argument("--retention-hard-bytes", type=parse_size, default=None, metavar="SIZE",
                   help=f"delete beyond this total ({_SIZE}) even if a reader has not read it")
    p.add_argument("--max-messages", type=int, default=None, metavar="N",
                   help="stop after N messages (default: run until SIGTERM or SIGINT)")
    p.add_argument("--events", action="store_true",
                   help="print JSON lines on stdout: ready, sealed, stats, stopped")
    p.add_argument("--stats-ms", type=int, default=0, metavar="MS",
                   help="with --events: a stats line every MS milliseconds (default: 0, none)")
    p.add_argument("--partitions", type=int, default=1,
                   help="the stream's partition count: run N capture processes (one writer each)")
    p.add_argument("--partition", type=int, default=None,
                   help="run only the worker of this partition (of --partitions)")
    p.add_argument("--key-frame", type=int, default=None,
                   help="SUB with partitions: the frame whose hash picks the partition (0)")
    p.add_argument("--headers", action="store_true",
                   help="record each message's connection properties as headers: "
                   "Socket-Type, Peer-Address, and for ROUTER Identity and Routing-Id "
                   "(default: none)")  # fmt: skip
    p.add_argument("--header", action="append", default=[], metavar="NAME",
                   help="record this property too, e.g. X-Tenant (repeatable; implies --headers)")
    add_progress_argument(p)

    p = sub.add_parser("ls", help="list streams and their seq ranges")
    p.add_argument("path", help=_PATH)
    p.add_argument("--segments", action="store_true", help="list every segment too")

    p = sub.add_parser("cat", help="print messages of a stream")
    p.add_argument("path", help=_PATH)
    p.add_argument("stream", help="the stream to print (ls lists them)")
    p.add_argument("--partition", type=int, default=0, metavar="N",
                   help="the partition to read (default: 0)")
    p.add_argument("--from", dest="start", type=int, default=None, metavar="SEQ",
                   help="first sequence number to print (default: the oldest kept)")
    p.add_argument("--to", dest="end", type=int, default=None, metavar="SEQ",
                   help="sequence number to stop before (exclusive; default: the newest sealed)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per message (seq, timestamp_us, topic and frames in "
                   "base64) instead of text")  # fmt: skip

    p = sub.add_parser("replay", help="send a range of a stream to PUSH/PUB peers")
    p.add_argument("path", help=_PATH)
    p.add_argument("stream", help="the stream to replay (ls lists them)")
    p.add_argument("--type", type=str.upper, choices=["PUSH", "PUB"], default="PUSH",
                   help="the sending socket (default: PUSH)")
    p.add_argument("--partition", type=int, default=0, metavar="N",
                   help="the partition to replay (default: 0)")
    _endpoints(p)
    p.add_argument("--from", dest="start", type=int, default=None, metavar="SEQ",
                   help="first sequence number to send (default: the oldest kept)")
    p.add_argument("--to", dest="end", type=int, default=None, metavar="SEQ",
                   help="sequence number to stop before (exclusive; default: the newest sealed)")
    p.add_argument("--with-seq", action="store_true",
                   help="add a last frame '<stream>:<seq>' to each message")
    p.add_argument("--rate", type=float, default=None, metavar="MSG_PER_S",
                   help="send at most this many messages per second (default: no limit)")
    p.add_argument("--send-timeout-ms", type=int, default=30_000, metavar="MS",
                   help="fail if a message cannot be sent within MS milliseconds "
                   "(default: %(default)s)")  # fmt: skip
    p.add_argument("--wait-subscribers", type=int, default=1, metavar="N",
                   help="PUB: wait for N subscribers before sending (default: %(default)s)")
    add_progress_argument(p)

    p = sub.add_parser("retain", help="delete segments beyond an age or size")
    p.add_argument("path", help=_PATH)
    p.add_argument("--max-age", type=parse_age, default=None, metavar="AGE",
                   help=f"delete segments older than this ({_AGE}) once every registered "
                   "reader has read them")  # fmt: skip
    p.add_argument("--max-bytes", type=parse_size, default=None, metavar="SIZE",
                   help=f"delete the oldest segments beyond this total ({_SIZE}) once every "
                   "registered reader has read them")  # fmt: skip
    p.add_argument("--hard-max-age", type=parse_age, default=None, metavar="AGE",
                   help=f"delete segments older than this ({_AGE}), read or not")
    p.add_argument("--hard-max-bytes", type=parse_size, default=None, metavar="SIZE",
                   help=f"delete the oldest segments beyond this total ({_SIZE}), read or not")

    p = sub.add_parser("verify", help="check every segment's CRC32C, rows and density")
    p.add_argument("path", help=_PATH)
    return ap


def _cmd_capture(a: argparse.Namespace) -> int:
    from .capture import Capture, CaptureSource

    j = _open_or_create(a.path, a.format)
    if a.partitions < 1:
        raise JournalError("--partitions must be >= 1")
    if a.partitions > 1 and a.partition is None:
        from .workers import run_workers

        j.upgrade()  # once, before the workers start
        with Progress(a.progress, "captured", a.max_messages) as bar:
            return run_workers(a, j.journal_id, bar)
    src = CaptureSource(
        a.stream, a.type, connect=a.connect, bind=a.bind,
        topics=[t.encode() for t in a.topic], ack=a.ack, partition=a.partition or 0,
        partitions=a.partitions, key_frame=a.key_frame, headers=_headers(a),
    )  # fmt: skip

    def sealed(stream: str, seg: SegmentInfo) -> None:
        if a.events:
            _emit({"event": "sealed", "stream": stream, "first": seg.first, "end": seg.end,
                   "bytes": seg.size, "partition": seg.partition})  # fmt: skip

    cap = Capture(
        j, [src], seal_bytes=a.seal_bytes, seal_age_s=a.seal_ms / 1000, seal_count=a.seal_count,
        retention_age_s=a.retention_age, retention_bytes=a.retention_bytes, on_seal=sealed,
        retention_hard_age_s=a.retention_hard_age, retention_hard_bytes=a.retention_hard_bytes,
    )  # fmt: skip
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: cap.stop())
    if a.events:
        import threading

        def ready() -> None:
            if not cap.wait_ready(30):
                return
            _emit({"event": "ready", "endpoints": cap.endpoints, "journalId": j.journal_id,
                   "partition": src.partition})  # fmt: skip
            while a.stats_ms > 0 and not stopped.wait(a.stats_ms / 1000):
                _emit({"event": "stats", "stats": {k: asdict(v) for k, v in cap.stats.items()}})

        stopped = threading.Event()
        threading.Thread(target=ready, daemon=True).start()
    with Progress(a.progress, "captured", a.max_messages) as bar:
        stop_counting = _count_captured(cap, bar)
        try:
            stats = cap.run(max_messages=a.max_messages)
        finally:
            stop_counting()
    if a.events:
        stopped.set()
    _emit({"event": "stopped", "stats": {k: asdict(v) for k, v in stats.items()}})
    return 0


def _count_captured(cap: Any, bar: Progress) -> Callable[[], None]:
    """Advance `bar` with what `cap` received, from a thread; returns the
    function that stops it after a last count (nothing runs when progress
    is off)."""
    import threading

    done = threading.Event()
    if bar.kind == "off":
        return done.set

    def count() -> None:
        while True:
            finished = done.wait(0.2)
            got = sum(st.received for st in cap.stats.values())
            bar.advance(got - bar.count)
            if finished:
                return

    thread = threading.Thread(target=count, daemon=True)
    thread.start()

    def stop() -> None:
        done.set()
        thread.join()  # the last count is in before the bar closes

    return stop


def _headers(a: argparse.Namespace) -> bool | list[str]:
    """CaptureSource's headers: the defaults with --headers, plus each --header."""
    if not a.header:
        return bool(a.headers)
    from .headers import default_headers

    defaults = default_headers(a.type)
    return [*defaults, *(h for h in a.header if h not in defaults)]


def _open_or_create(path: str, fmt: str | None) -> Journal:
    """An existing journal (whose format must match `fmt` if given), or a new one."""
    try:
        j = Journal.open(path)
    except NotAJournalError:
        return Journal.create(path, segment_format=fmt or "arrow")
    if fmt is not None and fmt != j.segment_format:
        raise JournalError(f"journal {path} stores {j.segment_format} segments, not {fmt}")
    return j


def _cmd_ls(a: argparse.Namespace) -> int:
    j = Journal.open(a.path)
    print(f"journal {j.uri}  id={j.journal_id}  format={j.segment_format}")
    for s in j.streams():
        for p, segs in j.listing(s).items():
            first, end = (segs[0].first, segs[-1].end) if segs else (0, 0)
            size = sum(x.size for x in segs)
            print(f"  {s}/{p}: seqs [{first}, {end})  {len(segs)} segments  {size} bytes")
            if a.segments:
                for x in segs:
                    print(f"    {x.name}  {x.count} msgs  {x.size} bytes")
    for name, pos in j.consumers().items():
        print(f"  reader {name}: " + ", ".join(f"{s}/{p}@{q}" for (s, p), q in pos.items()))
    return 0


def _check_stream(j: Journal, stream: str, partition: int) -> None:
    """A missing stream or partition is an error, not an empty range."""
    streams = j.streams()
    if stream not in streams:
        known = f"streams: {', '.join(streams)}" if streams else "it has no streams yet"
        raise JournalError(f"no stream {stream!r} in journal {j.uri} ({known})")
    partitions = sorted(j.listing(stream))
    if partition not in partitions:
        known = ", ".join(map(str, partitions))
        raise JournalError(f"stream {stream!r} has no partition {partition} (partitions: {known})")


def _cmd_cat(a: argparse.Namespace) -> int:
    j = Journal.open(a.path)
    _check_stream(j, a.stream, a.partition)
    for m in j.messages(a.stream, a.start, a.end, partition=a.partition):
        if a.json:
            _emit({"seq": m.seq, "timestamp_us": m.timestamp_us,
                   "topic": None if m.topic is None else base64.b64encode(m.topic).decode(),
                   "frames": [base64.b64encode(f).decode() for f in m.frames],
                   **({} if m.headers is None else {"headers": [
                       [k, base64.b64encode(v).decode()] for k, v in m.headers]})})  # fmt: skip
        else:
            print(m.seq, " | ".join(repr(f) for f in m.frames), flush=True)
    return 0


def _cmd_replay(a: argparse.Namespace) -> int:
    import purezmq as zmq

    from .replay import ReplayTarget, replay

    target = ReplayTarget(
        a.type, connect=a.connect, bind=a.bind, send_timeout_ms=a.send_timeout_ms,
        wait_subscribers=a.wait_subscribers,
    )  # fmt: skip
    journal = Journal.open(a.path)
    _check_stream(journal, a.stream, a.partition)
    ctx = zmq.Context()
    try:
        with Progress(a.progress, "replayed") as bar:

            def advance(sent: int, total: int) -> None:
                bar.total = total
                bar.advance(sent - bar.count)

            n = replay(journal, a.stream, target, a.start, a.end,
                       with_seq=a.with_seq, rate=a.rate, context=ctx,
                       partition=a.partition, progress=advance)  # fmt: skip
    finally:
        ctx.term()  # waits for LINGER: what was queued goes out before we exit
    print(f"replayed {n} messages of {a.stream!r}", file=sys.stderr)
    return 0


def _cmd_verify(a: argparse.Namespace) -> int:
    from .errors import CorruptSegmentError
    from .reader import read_segment

    j = Journal.open(a.path)
    bad = 0
    for s in j.streams():
        for p, segs in j.listing(s).items():
            runs = contiguous_runs(segs)
            rows = unchecked = 0
            problems = [f"gap or overlap: runs {runs}"] if len(runs) > 1 else []
            for seg in segs:
                try:
                    rows += sum(b.num_rows for b in read_segment(j.fs, j.stream_path(s), seg))
                except (CorruptSegmentError, OSError) as exc:
                    problems.append(str(exc))
                    continue
                unchecked += seg.crc is None
            bad += bool(problems)
            note = f", {unchecked} without checksum (version 1)" if unchecked else ""
            print(f"{'BAD' if problems else 'ok '} {s}/{p}: runs {runs}, {len(segs)} segments, "
                  f"{rows} rows read and checked{note}")  # fmt: skip
            for problem in problems:
                print(f"    {problem}")
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (2 for bad usage, 1 for journal errors)."""
    a = build_parser().parse_args(argv)
    try:
        if a.cmd == "init":
            j = Journal.create(a.path, segment_format=a.format)
            print(f"journal {j.uri} id={j.journal_id} format={j.segment_format}")
            return 0
        if a.cmd == "retain":
            limits = (a.max_age, a.max_bytes, a.hard_max_age, a.hard_max_bytes)
            if all(x is None for x in limits):
                print("retain: give --max-age, --max-bytes or their --hard- forms", file=sys.stderr)
                return 2
            gone = Journal.open(a.path).apply_retention(
                max_age_s=a.max_age, max_bytes=a.max_bytes,
                hard_max_age_s=a.hard_max_age, hard_max_bytes=a.hard_max_bytes,
            )  # fmt: skip
            for stream, seg in gone:
                print(f"deleted {stream}/{seg.name}")
            return 0
        handler = {"capture": _cmd_capture, "ls": _cmd_ls, "cat": _cmd_cat,
                   "replay": _cmd_replay, "verify": _cmd_verify}[a.cmd]  # fmt: skip
        return handler(a)
    except (JournalError, ValueError, TimeoutError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
