"""Fuzzing the receive path as the network drives it: any bytes go through
the parser; what parses goes through a Receiver (and a Source, for upstream
packets) and the APDU reader, with time moving on. Only PgmError may leave
the parser, and nothing may leave the state machines."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purezmq._pgm import packets as P
from purezmq._pgm.framing import PeerReader
from purezmq._pgm.receiver import Options, Receiver
from purezmq._pgm.sender import Source

GSI = b"fuzz!!"
GROUP = "239.1.2.3"


def _seeds() -> list[bytes]:
    apdu = b"\x00\x00\x06\x01topic\x06\x00hello"
    return [
        P.encode_data(GSI, 7, 5555, 0, 0, apdu),
        P.encode_data(GSI, 7, 5555, 1, 0, apdu[:10], P.Fragment(1, 0, 20)),
        P.encode_data(GSI, 7, 5555, 2, 0, apdu[:10], P.Fragment(1, 10, 20), repair=True),
        P.encode_spm(GSI, 7, 5555, 3, 0, 9, "10.0.0.1"),
        P.encode_nak(GSI, 7, 5555, [4, 5, 6], "10.0.0.1", GROUP, kind=P.NCF),
        P.encode_nak(GSI, 5555, 7, [0, 1], "10.0.0.1", GROUP),
        P.encode_spmr(GSI, 5555, 7),
    ]


@st.composite
def packets(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    buf = bytearray(draw(st.sampled_from(_seeds())))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(buf) - 1))
        buf[at] = draw(st.integers(0, 255))
    if draw(st.booleans()):  # keep the checksum right, so the body is examined
        buf[6:8] = b"\0\0"
        buf[6:8] = P.checksum(buf).to_bytes(2, "big")
    return bytes(buf)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(packets(), st.floats(0, 1)), max_size=40), st.integers(0, 2**16))
def test_receive_path_survives_anything(stream: list[tuple[bytes, float]], seed: int) -> None:
    rng = random.Random(seed)
    receiver = Receiver(5555, GROUP, Options(sqns=64), random=rng.random)
    source = Source(GSI, 7, 5555, nla="10.0.0.1", group=GROUP, rate_bytes=10**6, window=16)
    for i in range(4):
        source.send_apdu(b"x%d" % i, 0.0)
    readers: dict[tuple[bytes, int], PeerReader] = {}
    now = 0.0
    for data, dt in stream:
        now += dt
        try:
            packet = P.parse(data)
        except P.PgmError:
            continue
        receiver.receive(packet, now)
        source.receive(packet, now)
        receiver.on_timer(now)
        receiver.upstream()
        source.data_to_send(now)
        for delivery in receiver.deliveries():
            reader = readers.setdefault(delivery.tsi, PeerReader(max_msg_size=1 << 16))
            if delivery.apdu is None:
                reader.loss()
            else:
                for msg in reader.feed(delivery.apdu):
                    assert all(isinstance(f, bytes) for f in msg)
    receiver.on_timer(now + 1000.0)
    assert receiver.next_deadline() is None or receiver.next_deadline() >= 0
