"""Fixtures for the interop suite: purezmq against libzmq 4.3 (the pyzmq wheel).

pyzmq is a test-only peer here. Every socket made through `peers` has LINGER 0
and send/receive timeouts, and is closed before both contexts are destroyed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
import zmq

import purezmq

from . import jeromq
from .helpers import IO_TIMEOUT_MS, bind


@pytest.fixture
def zctx() -> Iterator[zmq.Context[Any]]:
    """A pyzmq (libzmq) Context, destroyed with linger 0 at teardown."""
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


class Peers:
    """Makes purezmq ("pz") and libzmq ("lz") sockets and endpoints for one test."""

    def __init__(self, pz_ctx: purezmq.Context, lz_ctx: zmq.Context[Any], ipc_dir: str) -> None:
        self.contexts: dict[str, Any] = {"pz": pz_ctx, "lz": lz_ctx}
        self.modules = {"pz": purezmq, "lz": zmq}
        self.ipc_dir = ipc_dir
        self._sockets: list[Any] = []
        self._n = itertools.count()

    def socket(self, impl: str, type_name: str, **options: Any) -> Any:
        """A socket of `type_name` ("DEALER"...) with LINGER 0 and IO timeouts.

        `options` are attribute-style options (routing_id=b"x", heartbeat_ivl=50)."""
        mod = self.modules[impl]
        sock = self.contexts[impl].socket(getattr(mod, type_name))
        self._sockets.append(sock)
        sock.setsockopt(mod.LINGER, 0)
        sock.setsockopt(mod.RCVTIMEO, IO_TIMEOUT_MS)
        sock.setsockopt(mod.SNDTIMEO, IO_TIMEOUT_MS)
        for name, value in options.items():
            sock.setsockopt(getattr(mod, name.upper()), value)
        return sock

    def pz(self, type_name: str, **options: Any) -> Any:
        return self.socket("pz", type_name, **options)

    def lz(self, type_name: str, **options: Any) -> Any:
        return self.socket("lz", type_name, **options)

    def endpoint(self, transport: str) -> str:
        """A fresh bindable endpoint: tcp on 127.0.0.1 (port 0) or ipc in ipc_dir."""
        if transport == "tcp":
            return "tcp://127.0.0.1:*"
        if transport == "ipc":
            return f"ipc://{self.ipc_dir}/e{next(self._n)}"
        raise ValueError(transport)

    def link(self, binder: Any, connecter: Any, transport: str) -> str:
        """Bind `binder` on a fresh endpoint, connect `connecter` to it."""
        ep = bind(binder, self.endpoint(transport))
        connecter.connect(ep)
        return ep

    def close_all(self) -> None:
        for sock in reversed(self._sockets):
            if not sock.closed:
                sock.close(linger=0)
        self._sockets.clear()


@pytest.fixture
def peers(ctx: purezmq.Context, zctx: zmq.Context[Any], ipc_dir: str) -> Iterator[Peers]:
    p = Peers(ctx, zctx, ipc_dir)
    yield p
    p.close_all()


@pytest.fixture(scope="session")
def jeromq_classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """JeroPeer.java compiled once per session (skips without a JDK and
    JeroMQ, except under CI; see jeromq.py)."""
    jeromq.require()
    return jeromq.compile_peer(tmp_path_factory.mktemp("jeromq"))


@pytest.fixture(scope="module")
def jero(jeromq_classpath: str) -> Iterator[jeromq.JeroProcess]:
    """One JeroMQ process for a test module (a JVM takes a moment to start)."""
    proc = jeromq.JeroProcess(jeromq_classpath)
    yield proc
    proc.close()
