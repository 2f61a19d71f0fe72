"""Generate the feature tables of docs/compatibility.md from the code.

``python -m tests.dropin.features`` rewrites the ``features`` section; the
drop-in run (``python -m tests.dropin``) does too. Nothing here is typed by
hand except the rules below:

- socket types: each type of `constants.SocketType` is created and
  exchanges a message with its usual peer (STREAM with a plain TCP client,
  the draft types through their draft API: routing ids, groups, udp for
  DGRAM);
- transports: each scheme is bound (and tcp/ipc/inproc carry a message);
- options: each `SocketOption` is looked up in purezmq's option table
  (`purezmq._core.options.OPTIONS`): refused -> not yet; a pattern option is
  supported if its socket types accept it switched on; options that select
  the security mechanism or act on other options are supported; any other
  option is supported if the runtime code (the core, the I/O driver, the
  protocol layer) reads it, and partial ("accepted and stored, no effect") if
  only the table knows it;
- API names: every public name of pyzmq 27.3.0 (the installed pyzmq, a test
  dependency, is the reference: modules, their ``__all__`` or public
  attributes, and the attributes of its classes - with tornado installed,
  those of a ZMQStream and of a zmq.eventloop.future Socket too) is looked
  up in purezmq.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import socket
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import purezmq as zmq
from purezmq import constants as C

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "purezmq"
DOC = ROOT / "docs" / "compatibility.md"

SUPPORTED, PARTIAL, NOT_YET = "supported", "partial", "not yet"

#: The twelve socket types of libzmq's stable API, with the peer used to check them.
PEERS: dict[str, str] = {
    "PAIR": "PAIR",
    "PUB": "SUB",
    "SUB": "PUB",
    "XPUB": "XSUB",
    "XSUB": "XPUB",
    "REQ": "REP",
    "REP": "REQ",
    "DEALER": "ROUTER",
    "ROUTER": "DEALER",
    "PUSH": "PULL",
    "PULL": "PUSH",
    "STREAM": "(raw TCP client)",
}


# ===========================================================================
# socket types
# ===========================================================================
def _exchange(ctx: zmq.Context, kind: str, peer: str) -> bool:
    """Does a `kind` socket exchange a message with a `peer` socket over inproc?"""
    a = ctx.socket(getattr(zmq, kind))
    b = ctx.socket(getattr(zmq, peer))
    try:
        for s in (a, b):
            s.linger = 0
            s.rcvtimeo = 2000
            s.sndtimeo = 2000
        ep = f"inproc://features-{kind}-{id(a)}"
        a.bind(ep)
        b.connect(ep)
        if kind in ("SUB", "XSUB"):
            pub, sub = b, a
        elif peer in ("SUB", "XSUB"):
            pub, sub = a, b
        else:
            pub = sub = None
        if pub is not None and sub is not None:
            if sub.socket_type == zmq.SUB:
                sub.subscribe(b"")
            else:
                sub.send(b"\x01")
            if pub.socket_type == zmq.XPUB:
                pub.recv()  # the subscription
            for _ in range(40):  # until the subscription has reached the publisher
                pub.send(b"hello")
                if sub.poll(50):
                    return bool(sub.recv() == b"hello")
            return False
        # `a` (the type under test) sends first unless it is a receiving type.
        sender, receiver = (a, b) if kind in ("REQ", "DEALER", "PUSH", "PAIR") else (b, a)
        sender.send(b"hello")
        got = receiver.recv_multipart()
        return got[-1] == b"hello"
    except zmq.ZMQError:
        return False
    finally:
        a.close(0)
        b.close(0)


def _stream_exchange(ctx: zmq.Context) -> bool:
    """A STREAM socket echoes to a plain TCP client."""
    s = ctx.socket(zmq.STREAM)
    try:
        s.linger = 0
        s.rcvtimeo = 2000
        port = s.bind_to_random_port("tcp://127.0.0.1")
        with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
            raw.sendall(b"hello")
            while True:
                rid, data = s.recv_multipart()
                if data:
                    break
            s.send_multipart([rid, b"world"])
            return raw.recv(5) == b"world" and data == b"hello"
    except (zmq.ZMQError, OSError, ValueError):
        return False
    finally:
        s.close(0)


#: Sockets made by the draft exchanges, closed after each row.
_made: list[zmq.Socket] = []


def _sock(ctx: zmq.Context, kind: int) -> zmq.Socket:
    s = ctx.socket(kind)
    _made.append(s)
    s.linger = 0
    s.rcvtimeo = s.sndtimeo = 2000
    return s


def _pair(ctx: zmq.Context, kinds: tuple[int, int]) -> list[zmq.Socket]:
    """Two sockets, the first bound on inproc, the second connected to it."""
    a, b = _sock(ctx, kinds[0]), _sock(ctx, kinds[1])
    a.bind(f"inproc://features-draft-{id(a)}")
    b.connect(a.last_endpoint)
    return [a, b]


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _client_server(ctx: zmq.Context) -> bool:
    server, client = _pair(ctx, (zmq.SERVER, zmq.CLIENT))
    client.send(b"hello")
    frame = server.recv(copy=False)
    server.send(b"world", routing_id=frame.routing_id)
    return bool(client.recv() == b"world")


def _radio_dish(ctx: zmq.Context) -> bool:
    radio, dish = _pair(ctx, (zmq.RADIO, zmq.DISH))
    dish.join("g")
    for _ in range(40):  # until the JOIN has reached the RADIO
        radio.send(b"hello", group="g")
        if dish.poll(50):
            frame = dish.recv(copy=False)
            return bool(frame.bytes == b"hello" and frame.group == "g")
    return False


def _one_way(kinds: tuple[int, int]) -> Callable[[zmq.Context], bool]:
    def exchange(ctx: zmq.Context) -> bool:
        sender, receiver = _pair(ctx, kinds)
        sender.send(b"hello")
        return bool(receiver.recv() == b"hello")

    return exchange


def _peer(ctx: zmq.Context) -> bool:
    a, b = _sock(ctx, zmq.PEER), _sock(ctx, zmq.PEER)
    a.bind(f"inproc://features-peer-{id(a)}")
    b.send(b"hello", routing_id=b.connect_peer(a.last_endpoint))
    return bool(a.recv() == b"hello")


def _dgram(ctx: zmq.Context) -> bool:
    a, b = _sock(ctx, zmq.DGRAM), _sock(ctx, zmq.DGRAM)
    port = _free_udp_port()
    a.bind(f"udp://127.0.0.1:{port}")
    b.bind(f"udp://127.0.0.1:{_free_udp_port()}")
    for _ in range(40):  # until a's endpoint is listening
        b.send_multipart([b"127.0.0.1:%d" % port, b"hello"])
        if a.poll(50):
            return bool(a.recv_multipart()[1] == b"hello")
    return False


#: The draft types, exchanged through the draft API (over inproc; DGRAM over udp).
DRAFT_EXCHANGES: dict[str, tuple[Callable[[zmq.Context], bool], str]] = {
    "SERVER": (_client_server, "request and reply by routing id with CLIENT"),
    "CLIENT": (_client_server, "request and reply by routing id with SERVER"),
    "RADIO": (_radio_dish, "message of a joined group to DISH"),
    "DISH": (_radio_dish, "message of a joined group from RADIO"),
    "SCATTER": (_one_way((zmq.SCATTER, zmq.GATHER)), "message exchanged with GATHER"),
    "GATHER": (_one_way((zmq.SCATTER, zmq.GATHER)), "message exchanged with SCATTER"),
    "CHANNEL": (_one_way((zmq.CHANNEL, zmq.CHANNEL)), "message exchanged with CHANNEL"),
    "PEER": (_peer, "message to the routing id connect_peer returned"),
    "DGRAM": (_dgram, "datagram exchanged with DGRAM over udp"),
}


def _draft_row(ctx: zmq.Context, name: str) -> tuple[str, str, str]:
    exchange, how = DRAFT_EXCHANGES[name]
    try:
        ok = exchange(ctx)
    except zmq.ZMQError:
        ok = False
    finally:
        while _made:
            _made.pop().close(0)
    return (name, SUPPORTED if ok else PARTIAL, how if ok else f"FAILED: {how}")


def socket_type_rows() -> list[tuple[str, str, str]]:
    rows = []
    with zmq.Context() as ctx:
        for st in C.SocketType:
            name = st.name
            try:
                ctx.socket(st).close(0)
            except zmq.ZMQError as e:
                rows.append((name, NOT_YET, f"draft socket type: `socket()` raises {e.errno}"))
                continue
            if name in DRAFT_EXCHANGES:
                rows.append(_draft_row(ctx, name))
                continue
            if name == "STREAM":
                ok = _stream_exchange(ctx)
                how = "echo with a plain TCP client"
            elif name in PEERS:
                ok = _exchange(ctx, name, PEERS[name])
                how = f"message exchanged with {PEERS[name]}"
            else:
                rows.append((name, PARTIAL, "created, but not exercised here"))
                continue
            rows.append((name, SUPPORTED if ok else PARTIAL, how if ok else f"FAILED: {how}"))
    return rows


# ===========================================================================
# transports
# ===========================================================================
TRANSPORTS = ("tcp", "ipc", "inproc", "pgm", "epgm", "tipc", "vmci", "udp", "ws", "wss", "norm")


def transport_rows() -> list[tuple[str, str, str]]:
    rows = []
    tmp = tempfile.mkdtemp(prefix="pzf-", dir="/tmp")
    endpoints = {
        "tcp": "tcp://127.0.0.1:*",
        "ipc": f"ipc://{tmp}/s",
        "inproc": "inproc://features-transport",
        "pgm": "pgm://127.0.0.1;239.192.1.1:5555",
        "epgm": "epgm://127.0.0.1;239.192.1.1:5555",
        "tipc": "tipc://{5560,0,0}",
        "vmci": "vmci://1:5555",
        "udp": "udp://127.0.0.1:5555",
        "ws": "ws://127.0.0.1:5555",
        "wss": "wss://127.0.0.1:5555",
        "norm": "norm://127.0.0.1:5555",
    }
    try:
        with zmq.Context() as ctx:
            for name in TRANSPORTS:
                if name in ("pgm", "epgm"):
                    rows.append(_multicast_row(ctx, name, endpoints[name]))
                    continue
                a = ctx.socket(zmq.PAIR)
                b = ctx.socket(zmq.PAIR)
                a.linger = b.linger = 0
                b.rcvtimeo = 2000
                try:
                    if name == "udp":  # datagrams: RADIO/DISH and DGRAM only
                        ok = _dgram(ctx)
                        rows.append(
                            (name, SUPPORTED if ok else PARTIAL, "DGRAM datagram exchanged")
                        )
                        continue
                    a.bind(endpoints[name])
                    b.connect(a.last_endpoint)
                    a.send(b"ping")
                    ok = b.recv() == b"ping"
                    rows.append((name, SUPPORTED if ok else PARTIAL, "PAIR message exchanged"))
                except zmq.ZMQError as e:
                    rows.append((name, NOT_YET, f"bind raises {C.Errno(e.errno).name}"))
                finally:
                    a.close(0)
                    b.close(0)
                    while _made:
                        _made.pop().close(0)
    finally:
        with contextlib.suppress(OSError):
            for f in os.listdir(tmp):
                os.unlink(os.path.join(tmp, f))
            os.rmdir(tmp)
    return rows


# ===========================================================================
# options
# ===========================================================================
#: Where options are described rather than used: their names there say nothing.
_OPTION_TABLE_FILES = frozenset(
    {"constants.py", "_core/options.py", "_core/option_table.py", "_core/option_specs.py"}
)


def _runtime_sources() -> str:
    """The code that acts on options: everything but the option table itself."""
    parts = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in _OPTION_TABLE_FILES or rel.startswith(("sugar/", "perf/")):
            continue
        parts.append(path.read_text(encoding="utf-8"))
    return "\n".join(parts)


def option_rows() -> list[tuple[str, str, str]]:
    from purezmq._core import options as opts

    code = _runtime_sources()
    features = opts.DEFAULT_FEATURES
    mechanism_options = {int(n) for n in (*opts._SERVER_OPTIONS, *opts._MECHANISM_OF)}
    rows = []
    with zmq.Context() as ctx:
        for o in C.SocketOption:
            spec = opts.OPTIONS.get(int(o))
            name = o.name
            if spec is None:
                rows.append((name, NOT_YET, "unknown to purezmq"))
                continue
            if spec.hint:
                rows.append((name, SUPPORTED, f"refused as in libzmq 4: {spec.hint}"))
                continue
            missing = sorted(spec.requires - features)
            if missing:
                why = f"needs {', '.join(missing)} (EINVAL, as libzmq without it)"
                rows.append((name, NOT_YET, why))
                continue
            if not spec.settable:
                rows.append((name, SUPPORTED, "read-only, reported by the socket"))
                continue
            if spec.pattern_name is not None:
                rows.append(_pattern_row(ctx, name, spec))
                continue
            if int(o) in mechanism_options:
                rows.append((name, SUPPORTED, "selects the security mechanism"))
                continue
            if spec.storage is opts.Storage.NONE:
                rows.append((name, SUPPORTED, "an action on the socket's options"))
                continue
            used = re.search(rf"\b\w+\.{name}\b", code) is not None
            if used:
                rows.append((name, SUPPORTED, "applied"))
            else:
                rows.append((name, PARTIAL, "accepted and stored; no effect in purezmq"))
    return rows


def _multicast_row(ctx: zmq.Context, name: str, endpoint: str) -> tuple[str, str, str]:
    """PGM is PUB/SUB only (ENOCOMPATPROTO for the rest, as libzmq) and needs a
    multicast route: opening the endpoint is probed here, delivery is tested
    between network namespaces against libzmq + OpenPGM (tests/multicast)."""
    kind = zmq.SUB if name == "pgm" else zmq.PUB  # pgm needs root (a raw socket)
    s = ctx.socket(kind)
    s.linger = 0
    try:
        s.connect(endpoint)
        return (name, SUPPORTED, "PUB/XPUB/SUB/XSUB; delivery and repair: tests/multicast")
    except zmq.ZMQError as e:
        return (name, NOT_YET, f"connect raises {C.Errno(e.errno).name}")
    finally:
        s.close(0)


def _pattern_row(ctx: zmq.Context, name: str, spec: Any) -> tuple[str, str, str]:
    types = sorted(spec.socket_types or (), key=int)
    ok, bad = [], []
    for st in types:
        s = ctx.socket(st)
        try:
            value: Any = b"x" if spec.kind.name in ("BINARY", "STRING") else 1
            if name in ("SUBSCRIBE", "UNSUBSCRIBE") and st != zmq.SUB:
                s.set(zmq.XPUB_MANUAL, 1)
            s.set(getattr(zmq, name), value)
            ok.append(C.SocketType(st).name)
        except zmq.ZMQError:
            bad.append(C.SocketType(st).name)
        finally:
            s.close(0)
    if not bad:
        return (name, SUPPORTED, "pattern option: " + ", ".join(ok))
    if ok:
        return (name, PARTIAL, f"pattern option: {', '.join(ok)}; not yet: {', '.join(bad)}")
    return (name, NOT_YET, "pattern option refused when switched on: " + ", ".join(bad))


# ===========================================================================
# API names (pyzmq 27.3.0 is the reference)
# ===========================================================================
#: pyzmq modules and why one may not be importable as a reference here.
API_MODULES = (
    "zmq",
    "zmq.constants",
    "zmq.error",
    "zmq.backend",
    "zmq.sugar",
    "zmq.sugar.context",
    "zmq.sugar.socket",
    "zmq.sugar.frame",
    "zmq.sugar.poll",
    "zmq.sugar.tracker",
    "zmq.sugar.version",
    "zmq.sugar.stopwatch",
    "zmq.sugar.attrsettr",
    "zmq.devices",
    "zmq.devices.basedevice",
    "zmq.devices.proxydevice",
    "zmq.devices.proxysteerabledevice",
    "zmq.devices.monitoredqueue",
    "zmq.devices.monitoredqueuedevice",
    "zmq.decorators",
    "zmq.log.handlers",
    "zmq.utils.monitor",
    "zmq.utils.jsonapi",
    "zmq.utils.strtypes",
    "zmq.utils.z85",
    "zmq.utils.win32",
    "zmq.utils.garbage",
    "zmq.utils.interop",
    "zmq.asyncio",
    "zmq.auth",
    "zmq.auth.base",
    "zmq.auth.thread",
    "zmq.auth.asyncio",
    "zmq.auth.ioloop",
    "zmq.auth.certs",
    "zmq.curve_keygen",
    "zmq.eventloop.ioloop",
    "zmq.eventloop.zmqstream",
    "zmq.eventloop.future",
    "zmq.green",
    "zmq.ssh.tunnel",
)


@contextlib.contextmanager
def _real_pyzmq() -> Iterator[Any]:
    """Import the installed pyzmq (even if a shim is on the path)."""
    saved = {k: v for k, v in sys.modules.items() if k == "zmq" or k.startswith("zmq.")}
    for k in saved:
        del sys.modules[k]
    try:
        yield importlib.import_module("zmq")
    finally:
        for k in [k for k in sys.modules if k == "zmq" or k.startswith("zmq.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _public(mod: Any) -> list[str]:
    """A module's ``__all__``, or else the classes, functions and objects it defines."""
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(mod).items()
            if not n.startswith("_")
            and not isinstance(v, type(sys))
            and getattr(v, "__module__", None) == mod.__name__
        ]
    return sorted(set(names))


def _attrs(obj: Any) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _instances(z: Any) -> Iterator[tuple[str, Any]]:
    """One instance of each class of `API_CLASSES` (attributes set in __init__ count)."""
    ctx = z.Context()
    sock = ctx.socket(z.PUSH)
    try:
        yield "Context", ctx
        yield "Socket", sock
        yield "Frame", z.Frame(b"x")
        yield "Poller", z.Poller()
        yield "MessageTracker", z.MessageTracker()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # pyzmq deprecates it
            yield "Stopwatch", z.Stopwatch()
        yield "ZMQError", z.ZMQError(1)
    finally:
        sock.close(0)
        ctx.term()


def _eventloop_instances(z: Any) -> Iterator[tuple[str, Any]]:
    """A ZMQStream and a future Socket of `z` (pyzmq or purezmq) on an IOLoop of
    their own; nothing when tornado is missing (their modules need it)."""
    try:
        from tornado.ioloop import IOLoop
    except ImportError:
        return
    zmqstream = importlib.import_module(f"{z.__name__}.eventloop.zmqstream")
    future = importlib.import_module(f"{z.__name__}.eventloop.future")
    loop = IOLoop(make_current=False)
    ctx, fctx = z.Context(), future.Context()
    sock, fsock = ctx.socket(z.PULL), fctx.socket(z.PULL)
    try:
        yield "eventloop.zmqstream.ZMQStream", zmqstream.ZMQStream(sock, io_loop=loop)
        yield "eventloop.future.Socket", fsock
    finally:
        sock.close(0)
        fsock.close(0)
        ctx.term()
        fctx.term()
        loop.close()


def api_rows() -> list[tuple[str, str, str]]:
    reference: dict[str, list[str] | str] = {}
    classes: dict[str, list[str]] = {}
    constants: list[tuple[str, int]] = []
    with _real_pyzmq() as pyzmq:
        for modname in API_MODULES:
            try:
                mod = importlib.import_module(modname)
            except Exception as e:
                reference[modname] = f"(reference not importable here: {type(e).__name__})"
                continue
            reference[modname] = _public(mod)
        for cname, obj in _instances(pyzmq):
            classes[cname] = _attrs(obj)
        for cname, obj in _eventloop_instances(pyzmq):
            classes[cname] = _attrs(obj)
        constants = [
            (n, int(getattr(pyzmq.constants, n)))
            for n in pyzmq.constants.__all__
            if isinstance(getattr(pyzmq.constants, n), int)
        ]
    rows = []
    for modname, names in reference.items():
        ours = "purezmq" + modname[len("zmq") :]
        try:
            mod = importlib.import_module(ours)
        except ImportError as e:
            rows.append((f"`{modname}`", NOT_YET, f"no module ({e.name or e})"))
            continue
        except Exception as e:
            rows.append((f"`{modname}`", NOT_YET, f"import fails: {type(e).__name__}: {e}"))
            continue
        if isinstance(names, str):
            rows.append((f"`{modname}`", SUPPORTED, f"importable {names}"))
            continue
        missing = [n for n in names if not hasattr(mod, n)]
        rows.append(_count_row(f"`{modname}`", names, missing))
    for instances in (_instances(zmq), _eventloop_instances(zmq)):
        for cname, obj in instances:
            names = classes[cname]
            listed = set(dir(obj))
            missing = [n for n in names if n not in listed and not hasattr(obj, n)]
            rows.append(_count_row(f"`zmq.{cname}` attributes", names, missing))
    wrong = [n for n, v in constants if getattr(C, n, None) != v]
    rows.append(_count_row("constants (`zmq.constants.__all__`, by value)", constants, wrong))
    return rows


def _count_row(label: str, names: list[Any], missing: list[str]) -> tuple[str, str, str]:
    total = len(names)
    have = total - len(missing)
    if not total:
        return (label, SUPPORTED, "importable (no public names of its own)")
    if not missing:
        return (label, SUPPORTED, f"{have}/{total} names")
    status = PARTIAL if have else NOT_YET
    shown = ", ".join(f"`{n}`" for n in missing[:12]) + (" ..." if len(missing) > 12 else "")
    return (label, status, f"{have}/{total} names; missing: {shown}")


# ===========================================================================
# render
# ===========================================================================
def _table(title: str, head: str, rows: list[tuple[str, str, str]]) -> list[str]:
    counts = {k: sum(1 for r in rows if r[1] == k) for k in (SUPPORTED, PARTIAL, NOT_YET)}
    summary = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
    out = [f"### {title} ({summary})", "", f"| {head} | status | how it was determined |"]
    out.append("|---|---|---|")
    out.extend(f"| {a} | {b} | {c.replace('|', '/')} |" for a, b, c in rows)
    out.append("")
    return out


def render() -> str:
    out = [
        "Generated by `python -m tests.dropin.features` from the code itself (see the "
        "module's docstring for the rules): nothing in these tables is typed by hand.",
        "",
    ]
    out += _table("Socket types", "type", socket_type_rows())
    out += _table("Transports", "transport", transport_rows())
    out += _table("Socket options", "option", option_rows())
    out += _table("API names (against pyzmq 27.3.0)", "pyzmq module or class", api_rows())
    return "\n".join(out)


def write_docs() -> bool:
    from . import peers
    from .harness import update_section

    changed = update_section(DOC, "features", render())
    return peers.write_docs() or changed


if __name__ == "__main__":
    changed = write_docs()
    print(f"{DOC}: {'updated' if changed else 'unchanged'}")
