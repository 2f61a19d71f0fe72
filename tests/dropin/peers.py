"""Generate the "peers" table of docs/compatibility.md: the ZeroMQ
implementations purezmq was checked against on the wire, with their versions.

``python -m tests.dropin.peers`` (and ``python -m tests.dropin``, through
features.write_docs) rewrites the section. Each row is probed, never typed:
the peer's version is read from the peer itself (libzmq's from pyzmq,
JeroMQ's from its jar's manifest) and a message goes each way between it and
purezmq over tcp, in the protocol that peer speaks. The full suites behind
each row are named in it. When a peer cannot run here (no JDK, no JeroMQ),
the section is left as it was and the reason printed.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq as pyzmq

import purezmq as zmq
from tests.interop import jeromq
from tests.interop.zmtp10_bridge import Bridge

DOC = Path(__file__).resolve().parents[2] / "docs" / "compatibility.md"
TIMEOUT_MS = 5000


def _setup(sock: Any, mod: Any) -> Any:
    sock.setsockopt(mod.LINGER, 0)
    sock.setsockopt(mod.RCVTIMEO, TIMEOUT_MS)
    return sock


def _push_pull(pz: zmq.Context, lz: pyzmq.Context[Any], pz_sends: bool) -> tuple[Any, Any]:
    """A PUSH and a PULL socket, purezmq's the PUSH when `pz_sends`."""
    if pz_sends:
        return _setup(pz.socket(zmq.PUSH), zmq), _setup(lz.socket(pyzmq.PULL), pyzmq)
    return _setup(lz.socket(pyzmq.PUSH), pyzmq), _setup(pz.socket(zmq.PULL), zmq)


def _both_ways(make_pair: Callable[[bool], tuple[Any, Any]]) -> bool:
    """make_pair(pz_sends) -> (sender, receiver), linked: one message each way."""
    try:
        for pz_sends in (True, False):
            sender, receiver = make_pair(pz_sends)
            sender.send_multipart([b"probe", b"x" * 300])
            if receiver.recv_multipart() != [b"probe", b"x" * 300]:
                return False
    except (zmq.ZMQError, pyzmq.ZMQError, AssertionError, OSError):
        return False  # the row says "not yet"; the interop suites say why
    return True


def _libzmq_zmtp3(pz: zmq.Context, lz: pyzmq.Context[Any]) -> bool:
    def pair(pz_sends: bool) -> tuple[Any, Any]:
        push, pull = _push_pull(pz, lz, pz_sends)
        port = pull.bind_to_random_port("tcp://127.0.0.1")
        push.connect(f"tcp://127.0.0.1:{port}")
        return push, pull

    return _both_ways(pair)


def _libzmq_zmtp10(pz: zmq.Context, lz: pyzmq.Context[Any]) -> bool:
    bridges: list[Bridge] = []

    def pair(pz_sends: bool) -> tuple[Any, Any]:
        push, pull = _push_pull(pz, lz, pz_sends)
        ports = [s.bind_to_random_port("tcp://127.0.0.1") for s in (push, pull)]
        bridges.append(Bridge(*ports))
        return push, pull

    try:
        return _both_ways(pair)
    finally:
        for bridge in bridges:
            bridge.close()


def _jeromq_version() -> str:
    with zipfile.ZipFile(jeromq.JEROMQ_JAR) as jar:
        manifest = jar.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    for line in manifest.splitlines():
        if line.startswith("Bundle-Version:"):
            return line.split(":", 1)[1].strip()
    return "?"


def _jeromq_zmtp20(pz: zmq.Context, proc: jeromq.JeroProcess) -> bool:
    def pair(pz_sends: bool) -> tuple[Any, Any]:
        theirs = proc.socket("PULL" if pz_sends else "PUSH")
        ours = _setup(pz.socket(zmq.PUSH if pz_sends else zmq.PULL), zmq)
        ours.connect(theirs.bind())
        return (ours, theirs) if pz_sends else (theirs, ours)

    return _both_ways(pair)


def rows() -> list[tuple[str, str, str, str]] | str:
    """(peer with its version, protocol, status, how) rows, or why they cannot be made."""
    why = jeromq.unavailable()
    if why is not None:
        return why
    pz, lz = zmq.Context(), pyzmq.Context()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            proc = jeromq.JeroProcess(jeromq.compile_peer(Path(tmp)))
            try:
                jero_ok = _jeromq_zmtp20(pz, proc)
            finally:
                proc.close()
        z3, z1 = _libzmq_zmtp3(pz, lz), _libzmq_zmtp10(pz, lz)
    finally:
        pz.destroy(linger=0)
        lz.destroy(linger=0)
    libzmq = f"libzmq {pyzmq.zmq_version()} (pyzmq {pyzmq.__version__})"
    each_way = "a message each way over tcp"

    def status(ok: bool) -> str:
        return "supported" if ok else "not yet"

    return [
        (libzmq, "ZMTP 3.1", status(z3),
         f"{each_way}; suites: tests/interop (every pair, transport, mechanism; "
         "ZMTP 3.0 through raw peers)"),
        (f"JeroMQ {_jeromq_version()} (Debian libjeromq-java)", "ZMTP/2.0", status(jero_ok),
         f"{each_way}; suite: tests/interop/test_jeromq.py (every pair both ways, "
         "identities, subscriptions, restarts, 64 MB frames, refusals)"),
        (libzmq + ", answering a 1.0 peer", "ZMTP/1.0", status(z1),
         f"{each_way}, through a bridge that plays ZeroMQ 2.x to both sides; suites: "
         "tests/interop/test_zmtp10_libzmq.py, tests/wire/test_legacy_golden.py"),
    ]  # fmt: skip


def render(table: list[tuple[str, str, str, str]]) -> str:
    out = [
        "Generated by `python -m tests.dropin.peers`: each peer's version is read from the "
        "peer, and each row exchanged messages with purezmq when it was generated.",
        "",
        "| peer | protocol | status | how it was determined |",
        "|---|---|---|---|",
    ]
    out += [f"| {peer} | {proto} | {status} | {how} |" for peer, proto, status, how in table]
    return "\n".join(out)


def write_docs() -> bool:
    from .harness import update_section

    table = rows()
    if isinstance(table, str):
        print(f"{DOC}: peers table left as it was ({table})")
        return False
    return update_section(DOC, "peers", render(table))


if __name__ == "__main__":
    changed = write_docs()
    print(f"{DOC}: {'updated' if changed else 'unchanged'}")
