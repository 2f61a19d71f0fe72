"""pgm:// and epgm:// between two network namespaces: purezmq against
Debian's libzmq 4.3.4 + OpenPGM both ways, and against itself.

Each subscriber prints the index and a digest of every message; the test
checks that the messages it expects arrived whole, once and in order.
"""

from __future__ import annotations

import errno
import itertools
import shlex
import subprocess
import sys

import pytest

from .netns import GROUP, Peer, Star, VethPair
from .peer import digest, payload

_ports = itertools.count(5600)


def _expected(index: int, topic: str, size: int) -> str:
    frames = [topic.encode(), payload(index, size)]
    return f"{index} {topic} {digest(frames)} {size}"


def _run(
    pair: VethPair,
    scheme: str,
    pub_impl: str,
    sub_impl: str,
    *,
    count: int,
    size: int,
    topics: str = "A",
    subscribe: str = "",
    interval: float = 0.002,
    rate: int = 20000,
    loss: int = 0,
    pub_args: tuple[str, ...] = (),
    sub_args: tuple[str, ...] = (),
    pub_lines: list[str] | None = None,
) -> list[str]:
    port = next(_ports)
    sub = Peer(
        pair.b, sub_impl, "sub", pair.endpoint(pair.b, scheme, port),
        "--count", str(count), "--subscribe", subscribe, "--timeout", "10",
        "--rate", str(rate), *sub_args,
    )  # fmt: skip
    pub = None
    try:
        sub.wait_ready()
        pub = Peer(
            pair.a, pub_impl, "pub", pair.endpoint(pair.a, scheme, port),
            "--count", str(count * len(topics.split(","))), "--size", str(size),
            "--topics", topics, "--interval", str(interval), "--rate", str(rate),
            "--linger", "4", *pub_args,
        )  # fmt: skip
        if loss:
            # Loss from the first message on: what a receiver misses before
            # it has joined the session is not its to repair (late join).
            sub.wait_line("0 ")
            pair.set_loss(pair.a, loss)
            pair.set_loss(pair.b, loss)
        lines = sub.finish(timeout=90)
        if pub_lines is not None:
            pub_lines.extend(pub.finish(timeout=30))
        assert "timeout" not in lines, f"{len(lines) - 1} of {count} before the timeout"
        return lines
    finally:
        sub.kill()
        if pub is not None:
            pub.kill()


DIRECTIONS = [("purezmq", "libzmq"), ("libzmq", "purezmq")]


@pytest.mark.parametrize("scheme", ["epgm", "pgm"])
@pytest.mark.parametrize(("pub_impl", "sub_impl"), DIRECTIONS)
def test_interop_100_bytes(netns_pair: VethPair, scheme: str, pub_impl: str, sub_impl: str) -> None:
    lines = _run(netns_pair, scheme, pub_impl, sub_impl, count=300, size=100)
    assert lines == [_expected(i, "A", 100) for i in range(300)]


@pytest.mark.parametrize("scheme", ["epgm", "pgm"])
@pytest.mark.parametrize(("pub_impl", "sub_impl"), DIRECTIONS)
def test_interop_60_kilobytes(
    netns_pair: VethPair, scheme: str, pub_impl: str, sub_impl: str
) -> None:
    lines = _run(
        netns_pair, scheme, pub_impl, sub_impl, count=40, size=60000, interval=0.02, rate=50000
    )
    assert lines == [_expected(i, "A", 60000) for i in range(40)]


@pytest.mark.parametrize(("pub_impl", "sub_impl"), [*DIRECTIONS, ("purezmq", "purezmq")])
def test_topic_filtering(netns_pair: VethPair, pub_impl: str, sub_impl: str) -> None:
    lines = _run(
        netns_pair, "epgm", pub_impl, sub_impl, count=100, size=50, topics="A,B", subscribe="B"
    )
    assert lines == [_expected(i, "B", 50) for i in range(1, 200, 2)]


def test_purezmq_to_purezmq_pgm(netns_pair: VethPair) -> None:
    lines = _run(netns_pair, "pgm", "purezmq", "purezmq", count=200, size=3000)
    assert lines == [_expected(i, "A", 3000) for i in range(200)]


@pytest.mark.parametrize("scheme", ["epgm", "pgm"])
@pytest.mark.parametrize(("pub_impl", "sub_impl"), [*DIRECTIONS, ("purezmq", "purezmq")])
def test_loss_is_repaired(netns_pair: VethPair, scheme: str, pub_impl: str, sub_impl: str) -> None:
    """5% of the packets each namespace receives are dropped (data one way,
    NAKs the other): every message still arrives, in order."""
    try:
        lines = _run(
            netns_pair, scheme, pub_impl, sub_impl, count=400, size=1000, interval=0.003, loss=5
        )
        dropped = netns_pair.dropped(netns_pair.a), netns_pair.dropped(netns_pair.b)
    finally:
        netns_pair.set_loss(netns_pair.a, 0)
        netns_pair.set_loss(netns_pair.b, 0)
    assert dropped[1] > 0, "no data was dropped: the test tested nothing"
    assert lines == [_expected(i, "A", 1000) for i in range(400)]


@pytest.mark.parametrize(("pub_impl", "sub_impl"), DIRECTIONS)
def test_subscriber_joins_mid_stream(netns_pair: VethPair, pub_impl: str, sub_impl: str) -> None:
    """A subscriber that starts while the publisher is sending begins at a
    message boundary: whole messages, consecutive, from some index on."""
    port = next(_ports)
    pair = netns_pair
    pub = Peer(
        pair.a, pub_impl, "pub", pair.endpoint(pair.a, "epgm", port),
        "--count", "0", "--duration", "6", "--size", "2500", "--interval", "0.005",
        "--rate", "20000", "--linger", "1", "--progress", "100",
    )  # fmt: skip
    sub = None
    try:
        pub.wait_ready()
        pub.wait_line("progress 200")  # well under way
        sub = Peer(
            pair.b, sub_impl, "sub", pair.endpoint(pair.b, "epgm", port),
            "--count", "100", "--timeout", "10",
        )  # fmt: skip
        lines = sub.finish(timeout=60)
    finally:
        pub.kill()
        if sub is not None:
            sub.kill()
    assert len(lines) == 100, lines[-3:]
    first = int(lines[0].split()[0])
    assert first > 0
    assert lines == [_expected(i, "A", 2500) for i in range(first, first + 100)]


@pytest.mark.parametrize(("pub_impl", "sub_impl"), DIRECTIONS)
def test_xpub_and_xsub(netns_pair: VethPair, pub_impl: str, sub_impl: str) -> None:
    """XPUB sends everything (the transport subscribed it to all, silently,
    as libzmq does: the XPUB reads no subscription); XSUB receives everything
    (it filters nothing)."""
    lines = _run(
        netns_pair, "epgm", pub_impl, sub_impl, count=100, size=200, topics="A,B",
        pub_args=("--x",), sub_args=("--x",), subscribe="B", pub_lines=(pub_lines := []),
    )  # fmt: skip
    assert not [line for line in pub_lines if line.startswith("subscription")]
    assert "sent 200" in pub_lines
    assert lines == [_expected(i, "AB"[i % 2], 200) for i in range(100)]


def test_asyncio_subscriber(netns_pair: VethPair) -> None:
    """A purezmq.asyncio SUB: the endpoint runs on the event loop."""
    lines = _run(
        netns_pair, "epgm", "libzmq", "purezmq", count=300, size=1000, sub_args=("--asyncio",)
    )
    assert lines == [_expected(i, "A", 1000) for i in range(300)]


def test_pgm_without_cap_net_raw_is_eperm(netns_pair: VethPair) -> None:
    """pgm:// needs a raw socket: without CAP_NET_RAW connect() raises EPERM
    (libzmq 4.3.4 aborts on an assertion there)."""
    code = (
        "import purezmq as zmq\n"
        "c = zmq.Context(); s = c.socket(zmq.SUB)\n"
        "try:\n"
        f"    s.connect({netns_pair.endpoint(netns_pair.b, 'pgm', 5599)!r})\n"
        "except zmq.ZMQError as e:\n"
        "    print(e.errno)\n"
        "s.close(0); c.term()\n"
    )
    out = subprocess.run(
        ["ip", "netns", "exec", netns_pair.b, "capsh", "--drop=cap_net_raw", "--",
         "-c", f"exec {sys.executable} -c {shlex.quote(code)}"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.stdout.strip() == str(errno.EPERM), out.stderr


def test_interface_by_name(netns_pair: VethPair) -> None:
    """`pgm://IFNAME;group:port`: purezmq finds the interface's address itself
    (OpenPGM needs the name resolvable through nsswitch; libzmq by address here)."""
    port = next(_ports)
    pair = netns_pair
    sub = Peer(
        pair.b, "libzmq", "sub", pair.endpoint(pair.b, "epgm", port),
        "--count", "50", "--timeout", "10",
    )  # fmt: skip
    pub = None
    try:
        sub.wait_ready()
        pub = Peer(
            pair.a, "purezmq", "pub", f"epgm://{pair.device(pair.a)};{GROUP}:{port}",
            "--count", "50", "--interval", "0.002", "--linger", "2",
        )  # fmt: skip
        lines = sub.finish(timeout=60)
    finally:
        sub.kill()
        if pub is not None:
            pub.kill()
    assert lines == [_expected(i, "A", 100) for i in range(50)]


def test_hops_and_maxtpdu_on_the_wire(netns_pair: VethPair) -> None:
    """MULTICAST_HOPS is the packets' TTL and MULTICAST_MAXTPDU caps their IP
    length, as seen by a raw socket in the receiving namespace (pgm://)."""
    pair = netns_pair
    port = next(_ports)
    cap = Peer(
        pair.b, "libzmq", "capture", f"{GROUP},{pair.addr[pair.b]}",
        "--count", "1000", "--timeout", "3",
    )  # fmt: skip
    pub = None
    try:
        cap.wait_ready()
        pub = Peer(
            pair.a, "purezmq", "pub", pair.endpoint(pair.a, "pgm", port),
            "--count", "10", "--size", "5000", "--hops", "7", "--maxtpdu", "900",
            "--linger", "1",
        )  # fmt: skip
        lines = cap.finish(timeout=30)
    finally:
        cap.kill()
        if pub is not None:
            pub.kill()
    packets = [dict(field.split("=") for field in line.split()) for line in lines]
    odata = [p for p in packets if p["type"] == "4"]
    # 10 messages of 3 + 5,010 bytes (ZMTP/1.0) in APDUs of 900 - 20 (IP) - 16
    # (PGM) - 8 (ODATA) bytes, each with its 2-byte offset: 50,130 / 854.
    assert len(odata) == 59
    assert {p["ttl"] for p in packets} == {"7"}
    assert max(int(p["len"]) for p in packets) <= 900
    assert max(int(p["len"]) for p in odata) == 900  # full TPDUs while data queues


@pytest.mark.parametrize("pub_impl", ["purezmq", "libzmq"])
def test_two_subscribers_one_publisher(netns_star: Star, pub_impl: str) -> None:
    """Multicast proper: a libzmq and a purezmq subscriber, each in its own
    namespace, hear one publisher under 5% loss everywhere; each repairs what
    it lost (an NCF answers any NAK for all) and gets everything, in order."""
    star = netns_star
    port = next(_ports)
    subs = [
        Peer(star.b, "libzmq", "sub", star.endpoint(star.b, "epgm", port),
             "--count", "300", "--timeout", "10", "--rate", "20000"),
        Peer(star.c, "purezmq", "sub", star.endpoint(star.c, "epgm", port),
             "--count", "300", "--timeout", "10", "--rate", "20000"),
    ]  # fmt: skip
    pub = None
    try:
        for sub in subs:
            sub.wait_ready()
        pub = Peer(
            star.a, pub_impl, "pub", star.endpoint(star.a, "epgm", port),
            "--count", "300", "--size", "1000", "--interval", "0.003", "--rate", "20000",
            "--linger", "4",
        )  # fmt: skip
        for sub in subs:
            sub.wait_line("0 ")
        for ns in (star.a, star.b, star.c):
            star.set_loss(ns, 5)
        results = [sub.finish(timeout=90) for sub in subs]
        dropped = [star.dropped(ns) for ns in (star.b, star.c)]
    finally:
        for ns in (star.a, star.b, star.c):
            star.set_loss(ns, 0)
        for sub in subs:
            sub.kill()
        if pub is not None:
            pub.kill()
    assert all(dropped), dropped
    expected = [_expected(i, "A", 1000) for i in range(300)]
    for lines in results:
        assert lines == expected
