"""Hypothesis for the ZMTP/1.0 and 2.0 codecs: round trips through random
chunking, and random input with the invariant "only ProtocolError escapes"."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purezmq._zmtp import NullMechanism, ProtocolError, ZMTPConnection

from .helpers import out_bytes
from .test_roundtrip_fuzz import MESSAGE, build, deliver

SLOW = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])

#: What an old peer sends first: an anonymous ZMTP/1.0 identity frame, or a
#: ZMTP/2.0 greeting (signature, revision 1, socket type) and empty identity.
V1_PEER = b"\x01\x00"


def v2_peer(type_number: int) -> bytes:
    return b"\xff" + b"\x00" * 7 + b"\x01\x7f" + bytes((1, type_number)) + b"\x00\x00"


OLD_PEERS = {"zmtp10": (V1_PEER, V1_PEER), "zmtp20": (v2_peer(7), v2_peer(8))}  # PULL, PUSH


def downgraded(socket_type: str, peer_bytes: bytes) -> ZMTPConnection:
    conn = ZMTPConnection(socket_type=socket_type, mechanism=NullMechanism(), now=0.0)
    conn.receive_data(peer_bytes, 0.0)
    assert conn.handshake_done
    out_bytes(conn)
    return conn


@SLOW
@given(
    revision=st.sampled_from(sorted(OLD_PEERS)),
    msgs=st.lists(MESSAGE, min_size=1, max_size=10),
    cuts=st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=6),
    max_msgs=st.integers(min_value=1, max_value=20),
)
def test_round_trip_through_random_chunks(
    revision: str, msgs: list[list[tuple[str, int, int]]], cuts: list[int], max_msgs: int
) -> None:
    """Two connections that each take the other for an old peer: what one
    encodes in that revision's framing, the other decodes, however cut."""
    to_pull, to_push = OLD_PEERS[revision]
    push = downgraded("PUSH", to_pull)
    pull = downgraded("PULL", to_push)
    frames = [[build(f) for f in msg] for msg in msgs]
    push.send_messages(frames)
    deliver(push, pull, cuts)
    received: list[list[bytes]] = []
    while batch := pull.pull(max_msgs):
        assert len(batch) <= max_msgs
        received.extend(batch)
    assert received == [[bytes(f) for f in msg] for msg in frames]
    assert not pull.has_pending_input


@settings(deadline=None, max_examples=400)
@given(
    revision=st.sampled_from(sorted(OLD_PEERS)),
    data=st.binary(max_size=600),
    max_msgs=st.integers(1, 5),
    max_size=st.sampled_from([-1, 0, 100]),
)
def test_random_bytes_after_an_old_handshake(
    revision: str, data: bytes, max_msgs: int, max_size: int
) -> None:
    conn = ZMTPConnection(
        socket_type="PULL", mechanism=NullMechanism(), now=0.0, max_msg_size=max_size
    )
    conn.receive_data(OLD_PEERS[revision][1], 0.0)
    assert conn.handshake_done  # the fuzzing starts after a valid old handshake
    try:
        conn.receive_data(data, 0.0)
        for _ in range(len(data) + 2):
            if not conn.pull(max_msgs):
                break
        conn.on_timer(100.0)
    except ProtocolError as exc:
        assert conn.close_reason is exc or conn.state == "closed"
    conn.data_to_send()


@settings(deadline=None, max_examples=400)
@given(
    head=st.sampled_from([b"", b"\xff" + b"\x00" * 7 + b"\x01\x7f", b"\xff\x00"]),
    data=st.binary(max_size=300),
    socket_type=st.sampled_from(["PUB", "SUB", "ROUTER", "REQ"]),
    routing_id=st.sampled_from([b"", b"id", b"x" * 255]),
)
def test_random_greetings_of_every_revision(
    head: bytes, data: bytes, socket_type: str, routing_id: bytes
) -> None:
    """Random bytes from the first byte (any revision may be detected), fed
    one byte at a time: only ProtocolError, and no empty output chunk."""
    conn = ZMTPConnection(
        socket_type=socket_type, mechanism=NullMechanism(), now=0.0, routing_id=routing_id
    )
    try:
        for i in range(len(head + data)):
            conn.receive_data((head + data)[i : i + 1], 0.0)
            assert all(len(chunk) for chunk in conn.data_to_send())
        conn.pull(100)
        if conn.handshake_done:
            conn.send_messages([[b"\x01topic"], [b"a", b"b" * 300]])
            assert all(len(chunk) for chunk in conn.data_to_send())
    except ProtocolError:
        assert conn.state == "closed"
