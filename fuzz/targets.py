"""Fuzz targets for every decoder a peer (or a damaged file) can reach.

Each target takes arbitrary bytes and checks one invariant: the code under
test either handles them or raises the one exception type its callers
expect - ProtocolError for the ZMTP layer (greeting, frames, commands,
NULL/PLAIN/CURVE handshakes, ZAP replies), ValueError for Z85 text,
CorruptSegmentError for a journal segment. Anything else escaping is a bug
(it would reach the I/O loop or the application: issue 12).

The targets have libFuzzer's shape (``target(data: bytes) -> None``), so
the same functions run under atheris (coverage-guided, where it installs:
``python fuzz/run.py --atheris``), under hypothesis in the test suite
(tests/unit/test_fuzz_targets.py, a short run in CI), and under
fuzz/run.py's mutation loop, seeded with each target's valid inputs
(`SEEDS`), for long runs.
"""

from __future__ import annotations

import struct
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from purezmq._zmtp import NullMechanism, ProtocolError, ZMTPConnection
from purezmq._zmtp import commands as zcommands
from purezmq._zmtp.decoder import FrameDecoder
from purezmq._zmtp.greeting import parse_greeting, peer_revision, signature_complete
from purezmq._zmtp.mechanisms.base import Mechanism
from purezmq._zmtp.mechanisms.plain import PlainClient, PlainServer
from purezmq._zmtp.mechanisms.zap import parse_zap_reply
from purezmq._zmtp.metadata import parse_properties
from purezmq.utils import z85

SOCKET_TYPES = ("DEALER", "ROUTER", "PUB", "XPUB", "SUB", "XSUB", "PUSH", "PULL", "PAIR")


def greeting(mechanism: bytes = b"NULL", as_server: int = 0, minor: int = 1) -> bytes:
    return (
        b"\xff"
        + bytes(8)
        + b"\x7f\x03"
        + bytes((minor,))
        + mechanism.ljust(20, b"\0")
        + bytes((as_server,))
        + bytes(31)
    )


def frame(body: bytes, flags: int) -> bytes:
    if len(body) < 256:
        return bytes((flags, len(body))) + body
    return bytes((flags | 2,)) + struct.pack(">Q", len(body)) + body


def _feed(conn: ZMTPConnection, data: bytes, step: int) -> None:
    """Deliver `data` in chunks of `step` bytes, pulling and ticking as a driver would."""
    for start in range(0, len(data), step):
        piece = data[start : start + step]
        pos = 0
        while pos < len(piece):
            view = conn.get_buffer(len(piece) - pos)
            n = min(len(view), len(piece) - pos)
            view[:n] = piece[pos : pos + n]
            conn.buffer_updated(n, 0.0)
            pos += n
        conn.pull(64)
        conn.data_to_send()
    conn.on_timer(1e9)


# -------------------------------------------------------------- the targets
def fuzz_greeting(data: bytes) -> None:
    head = data[:64].ljust(64, b"\0")
    signature_complete(head[:10])
    peer_revision(head[:11])
    try:
        parse_greeting(head, b"NULL")
    except ProtocolError:
        pass


def fuzz_frames(data: bytes) -> None:
    if not data:
        return
    limit = (-1, 0, 100, 10_000)[data[0] & 3]
    step = 1 + data[0] // 4
    dec = FrameDecoder(max_msg_size=limit)
    dec.start_framing()
    body = data[1:]
    try:
        for start in range(0, len(body), step):
            piece = body[start : start + step]
            pos = 0
            while pos < len(piece):
                view = dec.get_buffer(len(piece) - pos)
                n = min(len(view), len(piece) - pos)
                view[:n] = piece[pos : pos + n]
                dec.buffer_updated(n)
                pos += n
            out: list[list[bytes]] = []
            while dec.decode(out, 16) is not None or len(out) >= 16:
                out.clear()
    except ProtocolError:
        pass


def fuzz_commands(data: bytes) -> None:
    try:
        _name, rest = zcommands.split_command(data)
    except ProtocolError:
        return
    for parse in (zcommands.parse_ping, zcommands.parse_error, parse_properties):
        try:
            parse(rest)
        except ProtocolError:
            pass


def _handshake_target(
    make: Callable[[], Mechanism], peer_greeting: bytes
) -> Callable[[bytes], None]:
    def target(data: bytes) -> None:
        if not data:
            return
        socket_type = SOCKET_TYPES[data[0] % len(SOCKET_TYPES)]
        conn = ZMTPConnection(socket_type=socket_type, mechanism=make(), now=0.0)
        try:
            _feed(conn, peer_greeting + data[1:], 1 + data[0] // 16)
        except ProtocolError:
            pass

    return target


fuzz_null = _handshake_target(NullMechanism, greeting())
fuzz_plain_server = _handshake_target(PlainServer, greeting(b"PLAIN"))
fuzz_plain_client = _handshake_target(
    lambda: PlainClient(username=b"admin", password=b"secret"), greeting(b"PLAIN", as_server=1)
)


ZAP_SEEDS = [b"1.0|1|200|OK|user|", b"1.0|1|200|OK|u|\x03F\0\0\0\x01x"]


def fuzz_zap_reply(data: bytes) -> None:
    frames = data.split(b"|")  # one separator byte: easy for a fuzzer to find
    try:
        parse_zap_reply(frames)
    except ProtocolError:
        pass


def fuzz_z85(data: bytes) -> None:
    try:
        raw = z85.decode(data)
    except ValueError:
        return
    assert z85.decode(z85.encode(raw)) == raw


# --------------------------------------------------------------------- PGM
def fuzz_pgm(data: bytes) -> None:
    """PGM packets as a receiver and a source take them (docs/multicast.md):
    `data` is split into packets at 0xFE 0xFE; a packet whose first byte is
    odd gets its checksum made right, so the body checks are reached. Only
    PgmError may leave the parser; nothing may leave the state machines or
    the APDU reader."""
    import random

    from purezmq._pgm import packets as pgm
    from purezmq._pgm.framing import PeerReader
    from purezmq._pgm.receiver import Options, Receiver
    from purezmq._pgm.sender import Source

    receiver = Receiver(5555, "239.1.2.3", Options(sqns=64), random=random.Random(0).random)
    source = Source(b"source", 7, 5555, nla="10.0.0.1", group="239.1.2.3", window=8)
    source.send_apdu(b"x" * 3000, 0.0)
    reader = PeerReader(max_msg_size=1 << 16)
    now = 0.0
    for piece in data.split(b"\xfe\xfe"):
        buf = bytearray(piece[1:])
        if piece and piece[0] & 1 and len(buf) >= 8:
            buf[6:8] = b"\0\0"
            buf[6:8] = pgm.checksum(buf).to_bytes(2, "big")
        now += 0.05
        try:
            packet = pgm.parse(bytes(buf))
        except pgm.PgmError:
            continue
        receiver.receive(packet, now)
        source.receive(packet, now)
        receiver.on_timer(now)
        receiver.upstream()
        source.data_to_send(now)
        for delivery in receiver.deliveries():
            if delivery.apdu is None:
                reader.loss()
            else:
                reader.feed(delivery.apdu)


def _pgm_seeds() -> list[bytes]:
    from purezmq._pgm import packets as pgm

    gsi, apdu = b"source", b"\x00\x00\x06\x01topic\x06\x00hello"
    packets = [
        pgm.encode_spm(gsi, 7, 5555, 1, 0, 2, "10.0.0.1"),
        pgm.encode_data(gsi, 7, 5555, 0, 0, apdu),
        pgm.encode_data(gsi, 7, 5555, 2, 0, apdu[:9], pgm.Fragment(2, 0, 18)),
        pgm.encode_data(gsi, 7, 5555, 3, 0, apdu[9:], pgm.Fragment(2, 9, 18), repair=True),
        pgm.encode_nak(gsi, 7, 5555, [1, 4], "10.0.0.1", "239.1.2.3", kind=pgm.NCF),
        pgm.encode_nak(gsi, 5555, 7, [0, 1, 2], "10.0.0.1", "239.1.2.3"),
        pgm.encode_spmr(gsi, 5555, 7),
    ]
    return [b"\xfe\xfe".join(b"\x00" + p for p in packets)]


# ------------------------------------------------------------------- CURVE
def _curve_targets() -> tuple[Callable[[bytes], None], Callable[[bytes], None], list[bytes]]:
    """Server and client targets with fixed keys, and a valid HELLO as seed."""
    from purezmq import _crypto
    from purezmq._zmtp.mechanisms.curve import CurveClient, CurveServer

    crypto = _crypto.require()
    server_public, server_secret = crypto.keypair()
    client_public, client_secret = crypto.keypair()

    def server() -> Mechanism:
        return CurveServer(crypto=crypto, secret_key=server_secret, public_key=server_public)

    def client() -> Mechanism:
        return CurveClient(
            crypto=crypto,
            public_key=client_public,
            secret_key=client_secret,
            server_key=server_public,
        )

    # A real HELLO (after our greeting's 64 bytes) seeds the server target.
    probe = ZMTPConnection(socket_type="DEALER", mechanism=client(), now=0.0)
    probe.receive_data(greeting(b"CURVE", as_server=1), 0.0)
    hello = b"".join(bytes(c) for c in probe.data_to_send())
    return (
        _handshake_target(server, greeting(b"CURVE")),
        _handshake_target(client, greeting(b"CURVE", as_server=1)),
        [b"\x00" + hello[64:]],
    )


# ----------------------------------------------------------------- journal
def _journal_target() -> tuple[Callable[[bytes], None], list[bytes]]:
    """read_segment on a damaged segment file: only CorruptSegmentError.
    The file is named without a checksum (a version-1 segment), so the
    bytes reach the Arrow reader and the content checks, not only CRC32C."""
    from purezmq.journal import Journal
    from purezmq.journal.errors import CorruptSegmentError
    from purezmq.journal.fs import open_fs
    from purezmq.journal.layout import SegmentInfo
    from purezmq.journal.reader import read_segment

    root = Path(tempfile.mkdtemp(prefix="purezmq-fuzz-journal-"))
    journal = Journal.create(str(root / "j"))
    with journal.writer("s", seal_count=4, seal_age_s=3600) as w:
        for i in range(4):
            w.append([b"message-%d" % i, b"x" * i])
    sealed = sorted((root / "j").rglob("seg-*.arrow"))
    seed = sealed[0].read_bytes()
    work = root / "fuzzed"
    work.mkdir()
    fs, base = open_fs(str(work))
    info = SegmentInfo(first=0, end=4, name="seg-00000000000000000000-00000000000000000004.arrow")

    def target(data: bytes) -> None:
        (work / info.name).write_bytes(data)
        try:
            read_segment(fs, base, info)
        except CorruptSegmentError:
            pass

    return target, [seed]


@dataclass
class Target:
    name: str
    run: Callable[[bytes], None]
    seeds: list[bytes]


def all_targets() -> dict[str, Target]:
    """Every target whose dependencies are installed (CURVE needs PyNaCl,
    the journal pyarrow)."""
    targets = [
        Target("greeting", fuzz_greeting, [greeting(), greeting(b"CURVE", 1, 0)]),
        Target("frames", fuzz_frames, [b"\x00" + frame(b"hello", 0) + frame(b"\x04PING\0\0", 4)]),
        Target("commands", fuzz_commands, [b"\x04PING\x00\x0aabc", b"\x05READY\x03Foo\0\0\0\x01x"]),
        Target("null", fuzz_null, [b"\x00" + frame(b"\x05READY", 4) + frame(b"m", 0)]),
        Target("plain-server", fuzz_plain_server, [b"\x00" + frame(b"\x05HELLO\x01a\x01b", 4)]),
        Target("plain-client", fuzz_plain_client, [b"\x00" + frame(b"\x07WELCOME", 4)]),
        Target("zap-reply", fuzz_zap_reply, ZAP_SEEDS),
        Target("z85", fuzz_z85, [b"HelloWorld", b"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"]),
        Target("pgm", fuzz_pgm, _pgm_seeds()),
    ]
    try:
        curve_server, curve_client, hello = _curve_targets()
    except ImportError:
        pass
    else:
        targets.append(Target("curve-server", curve_server, hello))
        targets.append(Target("curve-client", curve_client, [b"\x00"]))
    try:
        journal, seeds = _journal_target()
    except ImportError:
        pass
    else:
        targets.append(Target("journal-segment", journal, seeds))
    return {t.name: t for t in targets}
