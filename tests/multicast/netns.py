"""Two network namespaces joined by a veth pair, made by the tests, so that
multicast never leaves the machine: what worked here for OpenPGM (issue 18).

Each namespace has one end of the pair with multicast on and a route for
224.0.0.0/4; endpoints name the interface by its address. Loss is injected
with nftables (``numgen random mod 100 < N drop``): this kernel has no netem.

Prerequisites: root (namespaces, raw sockets for pgm://), ``ip``, ``nft``,
and Debian's python3-zmq (libzmq 4.3.4 built with OpenPGM) under
/usr/bin/python3. Without them the tests skip and say why - except under
CI, where they fail (scripts/_pgm.sh installs them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

PEER = str(Path(__file__).with_name("peer.py"))
SYSTEM_PYTHON = "/usr/bin/python3"
GROUP = "239.192.7.1"


def unavailable() -> str | None:
    """Why the namespace tests cannot run here, or None."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces and raw sockets need root"
    for tool in ("ip", "nft", "capsh"):
        if shutil.which(tool) is None:
            return f"{tool!r} is missing (apt-get install iproute2 nftables libcap2-bin)"
    name = f"pzprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if made.returncode:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    probe = [SYSTEM_PYTHON, "-c", "import zmq, sys; sys.exit(0 if zmq.has('pgm') else 1)"]
    try:
        if subprocess.run(probe, capture_output=True, timeout=30).returncode:
            return "Debian's python3-zmq with OpenPGM is missing (apt-get install python3-zmq)"
    except (OSError, subprocess.TimeoutExpired):
        return f"{SYSTEM_PYTHON} is missing"
    return None


def require() -> None:
    """Skip without the prerequisites; fail under CI, where they must be there."""
    why = unavailable()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"multicast tests cannot run: {why}")
    pytest.skip(why)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class VethPair:
    """Namespaces `a` (10.N.0.1) and `b` (10.N.0.2) with a veth between them."""

    def __init__(self, tag: str) -> None:
        self.a, self.b = f"pz{tag}a", f"pz{tag}b"
        net = 100 + os.getpid() % 100
        self.addr = {self.a: f"10.{net}.0.1", self.b: f"10.{net}.0.2"}
        self._dev = {self.a: f"pzv{tag}a", self.b: f"pzv{tag}b"}
        self.close()
        _ip("netns", "add", self.a)
        _ip("netns", "add", self.b)
        _ip("link", "add", self._dev[self.a], "type", "veth", "peer", "name", self._dev[self.b])
        for ns in (self.a, self.b):
            dev = self._dev[ns]
            _ip("link", "set", dev, "netns", ns)
            _ip("-n", ns, "addr", "add", f"{self.addr[ns]}/24", "dev", dev)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", dev, "up", "multicast", "on")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", dev)

    def device(self, ns: str) -> str:
        """The name of `ns`'s end of the veth pair."""
        return self._dev[ns]

    def endpoint(self, ns: str, scheme: str, port: int) -> str:
        return f"{scheme}://{self.addr[ns]};{GROUP}:{port}"

    def set_loss(self, ns: str, percent: int) -> None:
        """Drop `percent`% of the packets `ns` receives (0: none)."""
        subprocess.run(
            ["ip", "netns", "exec", ns, "nft", "delete", "table", "inet", "pzloss"],
            capture_output=True,
            timeout=30,
        )
        if not percent:
            return
        rules = (
            "table inet pzloss {\n chain input {\n  type filter hook input priority 0;\n"
            f"  numgen random mod 100 < {percent} counter drop\n }}\n}}\n"
        )
        subprocess.run(
            ["ip", "netns", "exec", ns, "nft", "-f", "-"],
            input=rules.encode(),
            check=True,
            capture_output=True,
            timeout=30,
        )

    def dropped(self, ns: str) -> int:
        """Packets the loss rule of `ns` dropped so far."""
        out = subprocess.run(
            ["ip", "netns", "exec", ns, "nft", "list", "table", "inet", "pzloss"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
        words = out.split()
        return int(words[words.index("packets") + 1])

    def close(self) -> None:
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


class Star(VethPair):
    """Namespaces `a`, `b` and `c` on one bridge (in a fourth, the hub), so one
    publisher reaches subscribers in two other namespaces - each its own host.
    (OpenPGM binds its UDP port without SO_REUSEADDR: two subscribers of one
    group and port cannot share a namespace.)"""

    def __init__(self, tag: str) -> None:  # not VethPair.__init__: no veth pair here
        self.a, self.b, self.c, self.hub = (f"pz{tag}{x}" for x in "abch")
        net = 100 + (os.getpid() + 37) % 100
        names = (self.a, self.b, self.c)
        self.addr = {ns: f"10.{net}.1.{i + 1}" for i, ns in enumerate(names)}
        self._dev = {ns: f"pzs{tag}{ns[-1]}" for ns in names}
        self.close()
        _ip("netns", "add", self.hub)
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", self.hub, "link", "set", "br0", "up")
        for ns in names:
            dev, port = self._dev[ns], self._dev[ns] + "h"
            _ip("netns", "add", ns)
            _ip("link", "add", dev, "type", "veth", "peer", "name", port)
            _ip("link", "set", dev, "netns", ns)
            _ip("link", "set", port, "netns", self.hub)
            _ip("-n", self.hub, "link", "set", port, "master", "br0", "up")
            _ip("-n", ns, "addr", "add", f"{self.addr[ns]}/24", "dev", dev)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", dev, "up", "multicast", "on")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", dev)

    def close(self) -> None:
        for ns in (self.a, self.b, self.c, self.hub):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


class Peer:
    """peer.py in a namespace: libzmq (system Python) or purezmq (ours)."""

    def __init__(self, ns: str, impl: str, *args: str) -> None:
        if impl == "libzmq":
            cmd = [SYSTEM_PYTHON, PEER]
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        else:
            cmd = [sys.executable, PEER, "--purezmq"]
            env = dict(os.environ)
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *cmd, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.strip()
            if line == "ready":
                self._ready.set()
            else:
                self.lines.append(line)
        self._ready.set()

    def wait_ready(self, timeout: float = 20.0) -> None:
        assert self._ready.wait(timeout), "peer did not start"
        assert self.proc.poll() is None, self.stderr()

    def wait_line(self, prefix: str, timeout: float = 30.0) -> None:
        """Wait until the peer printed a line starting with `prefix`."""
        deadline = time.monotonic() + timeout
        while not any(line.startswith(prefix) for line in list(self.lines)):
            assert time.monotonic() < deadline and self.proc.poll() is None, (
                f"no {prefix!r} from the peer"
            )
            self._ready.wait(0.05)

    def finish(self, timeout: float = 60.0) -> list[str]:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)
        return self.lines

    def stderr(self) -> str:
        return self.proc.stderr.read() if self.proc.stderr and self.proc.poll() is not None else ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def netns_star() -> Iterator[Star]:
    require()
    star = Star(f"{os.getpid() % 10000}s")  # names apart from the pair's
    try:
        yield star
    finally:
        star.close()


@pytest.fixture(scope="module")
def netns_pair() -> Iterator[VethPair]:
    require()
    pair = VethPair(str(os.getpid() % 10000))
    try:
        yield pair
    finally:
        pair.close()
