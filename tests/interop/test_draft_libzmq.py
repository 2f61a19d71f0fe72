"""The draft socket types against a draft-enabled libzmq (see draft_libzmq.py
for where it comes from), both directions, over tcp and ipc - and udp for
RADIO/DISH and DGRAM. libzmq runs in this process through ctypes; its calls
release the GIL, so both libraries' I/O threads run side by side."""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import purezmq

from . import draft_libzmq
from .draft_libzmq import Lib, LzSocket

IO_TIMEOUT_MS = 5000
_n = itertools.count()

#: The first test may build libzmq (about a minute on two busy cores).
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def libzmq_path() -> Path:
    return draft_libzmq.library_path()


@pytest.fixture
def lz(libzmq_path: Path) -> Iterator[Lib]:
    lib = Lib(libzmq_path)
    yield lib
    lib.close()


@pytest.fixture
def pz(ctx: purezmq.Context) -> Callable[[str], purezmq.Socket]:
    def make(type_name: str) -> purezmq.Socket:
        s = ctx.socket(getattr(purezmq, type_name))
        s.linger = 0
        s.rcvtimeo = s.sndtimeo = IO_TIMEOUT_MS
        return s

    return make


def udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(params=["tcp", "ipc"])
def endpoint(request: pytest.FixtureRequest, ipc_dir: str) -> str:
    if request.param == "tcp":
        return f"tcp://127.0.0.1:{tcp_port()}"
    return f"ipc://{ipc_dir}/draft-{next(_n)}"


def test_libzmq_is_draft_enabled(lz: Lib) -> None:
    lz.socket("SERVER").close()  # EINVAL without the draft API


@pytest.mark.parametrize("server_side", ["pz", "lz"])
def test_client_server(lz: Lib, pz, endpoint: str, server_side: str) -> None:
    if server_side == "pz":
        server = pz("SERVER")
        server.bind(endpoint)
        client = lz.socket("CLIENT")
        client.connect(endpoint)
        client.send(b"request")
        frame = server.recv(copy=False)
        assert frame.bytes == b"request" and frame.routing_id
        server.send(b"reply", routing_id=frame.routing_id)
        assert client.recv()[0] == b"reply"
    else:
        lserver = lz.socket("SERVER")
        lserver.bind(endpoint)
        pclient = pz("CLIENT")
        pclient.connect(endpoint)
        pclient.send(b"request")
        data, rid, _, more = lserver.recv()
        assert (data, more) == (b"request", False) and rid
        lserver.send(b"reply", routing_id=rid)
        assert pclient.recv() == b"reply"


def _until(send: Callable[[], None], poll: Callable[[], bool]) -> None:
    """Send until the receiver has something: JOIN and udp start travel
    asynchronously, as subscriptions do."""
    for _ in range(100):
        send()
        if poll():
            return
    pytest.fail("nothing arrived")


def _lz_poll(sock: LzSocket) -> Callable[[], bool]:
    def poll() -> bool:
        sock.set_int(draft_libzmq.ZMQ_RCVTIMEO, 50)
        try:
            sock.pending = sock.recv()  # type: ignore[attr-defined]
            return True
        except OSError as e:
            if e.errno != draft_libzmq.EAGAIN:
                raise
            return False
        finally:
            sock.set_int(draft_libzmq.ZMQ_RCVTIMEO, IO_TIMEOUT_MS)

    return poll


@pytest.mark.parametrize("transport", ["tcp", "ipc", "udp"])
def test_radio_pz_to_dish_lz(lz: Lib, pz, ipc_dir: str, transport: str) -> None:
    ep = {
        "tcp": f"tcp://127.0.0.1:{tcp_port()}",
        "ipc": f"ipc://{ipc_dir}/rd-{next(_n)}",
        "udp": f"udp://127.0.0.1:{udp_port()}",
    }[transport]
    dish = lz.socket("DISH")
    dish.bind(ep)
    dish.join("weather")
    radio = pz("RADIO")
    radio.connect(ep)
    _until(lambda: radio.send(b"probe", group="weather"), _lz_poll(dish))
    assert dish.pending[:3] == (b"probe", 0, "weather")  # type: ignore[attr-defined]
    radio.send(b"snow", group="sport")
    radio.send(b"rain", group="weather")
    while True:
        data, _, group, _ = dish.recv()
        if data != b"probe":
            break
    assert (data, group) == (b"rain", "weather")


@pytest.mark.parametrize("transport", ["tcp", "ipc", "udp"])
def test_radio_lz_to_dish_pz(lz: Lib, pz, ipc_dir: str, transport: str) -> None:
    ep = {
        "tcp": f"tcp://127.0.0.1:{tcp_port()}",
        "ipc": f"ipc://{ipc_dir}/rd-{next(_n)}",
        "udp": f"udp://127.0.0.1:{udp_port()}",
    }[transport]
    dish = pz("DISH")
    dish.bind(ep)
    dish.join("weather")
    radio = lz.socket("RADIO")
    radio.connect(ep)
    _until(lambda: radio.send(b"probe", group="weather"), lambda: bool(dish.poll(50)))
    radio.send(b"snow", group="sport")
    radio.send(b"rain", group="weather")
    while True:
        frame = dish.recv(copy=False)
        if frame.bytes != b"probe":
            break
    assert (frame.bytes, frame.group) == (b"rain", "weather")
    dish.leave("weather")  # a LEAVE libzmq's RADIO applies
    dish.join("sport")
    _until(lambda: radio.send(b"goal", group="sport"), lambda: bool(dish.poll(50)))
    assert dish.recv() == b"goal"


@pytest.mark.parametrize("direction", ["pz->lz", "lz->pz"])
def test_scatter_gather(lz: Lib, pz, endpoint: str, direction: str) -> None:
    if direction == "pz->lz":
        gather = lz.socket("GATHER")
        gather.bind(endpoint)
        scatter = pz("SCATTER")
        scatter.connect(endpoint)
        scatter.send(b"work")
        assert gather.recv()[0] == b"work"
    else:
        pgather = pz("GATHER")
        pgather.bind(endpoint)
        lscatter = lz.socket("SCATTER")
        lscatter.connect(endpoint)
        lscatter.send(b"work")
        assert pgather.recv() == b"work"


@pytest.mark.parametrize("direction", ["pz->lz", "lz->pz"])
def test_peer_connect_peer(lz: Lib, pz, endpoint: str, direction: str) -> None:
    if direction == "pz->lz":
        bound = lz.socket("PEER")
        bound.bind(endpoint)
        peer = pz("PEER")
        peer.send(b"hi", routing_id=peer.connect_peer(endpoint))
        data, rid, _, _ = bound.recv()
        assert data == b"hi"
        bound.send(b"back", routing_id=rid)
        assert peer.recv() == b"back"
    else:
        pbound = pz("PEER")
        pbound.bind(endpoint)
        lpeer = lz.socket("PEER")
        lpeer.send(b"hi", routing_id=lpeer.connect_peer(endpoint))
        frame = pbound.recv(copy=False)
        assert frame.bytes == b"hi"
        pbound.send(b"back", routing_id=frame.routing_id)
        assert lpeer.recv()[0] == b"back"


@pytest.mark.parametrize("direction", ["pz->lz", "lz->pz"])
def test_channel(lz: Lib, pz, endpoint: str, direction: str) -> None:
    lchan = lz.socket("CHANNEL")
    pchan = pz("CHANNEL")
    if direction == "pz->lz":
        lchan.bind(endpoint)
        pchan.connect(endpoint)
    else:
        pchan.bind(endpoint)
        lchan.connect(endpoint)
    pchan.send(b"ping")
    assert lchan.recv()[0] == b"ping"
    lchan.send(b"pong")
    assert pchan.recv() == b"pong"


def test_dgram_both_ways(lz: Lib, pz) -> None:
    lport, pport = udp_port(), udp_port()
    ldgram = lz.socket("DGRAM")
    ldgram.bind(f"udp://127.0.0.1:{lport}")
    pdgram = pz("DGRAM")
    pdgram.bind(f"udp://127.0.0.1:{pport}")

    def send() -> None:
        pdgram.send_multipart([b"127.0.0.1:%d" % lport, b"hello"])

    _until(send, _lz_poll(ldgram))
    addr, _, _, more = ldgram.pending  # type: ignore[attr-defined]
    assert (addr, more) == (b"127.0.0.1:%d\0" % pport, True)  # both put the NUL
    assert ldgram.recv()[0] == b"hello"
    ldgram.send(addr, more=True)
    ldgram.send(b"world")
    assert pdgram.recv_multipart() == [b"127.0.0.1:%d\0" % lport, b"world"]
