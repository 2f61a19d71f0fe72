"""Headers: the connection properties a capture records with each message, only when asked.

ZeroMQ messages have no headers, but every received message has the
properties of the connection it came from (libzmq's zmq_msg_gets: Socket-Type,
Identity, Peer-Address, User-Id under ZAP, application "X-..." metadata),
and a ROUTER capture strips a routing id. ``CaptureSource(headers=...)``
keeps them as Kafka-style (key, value) pairs; without it the journal stays
exactly as before (schema 2 segments, journal format 2).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest

import purezmq as zmq
from purezmq.auth.thread import ThreadAuthenticator
from purezmq.journal import DEFAULT_HEADERS, Capture, CaptureSource, Journal, default_headers
from purezmq.journal.cli import build_parser, main
from purezmq.journal.workers import _child_args
from tests.conftest import wait_until


@contextmanager
def capturing(journal: Journal, src: CaptureSource, ctx: zmq.Context) -> Iterator[Capture]:
    """Run a capture of `src` in a thread; stop it (sealing everything) on exit."""
    cap = Capture(journal, [src], seal_age_s=0.05, context=ctx)
    t = threading.Thread(target=cap.run, daemon=True)
    t.start()
    assert cap.wait_ready(10)
    try:
        yield cap
    finally:
        cap.stop()
        t.join(10)
        assert not t.is_alive()


def _version(journal: Journal) -> int:
    return int(json.loads(Path(journal.root, "journal.json").read_text())["version"])


def test_pull_capture_records_properties_and_application_metadata(
    journal: Journal, ctx: zmq.Context
) -> None:
    src = CaptureSource("in", "PULL", bind=["tcp://127.0.0.1:*"],
                        headers=[*DEFAULT_HEADERS, "X-Tenant"])  # fmt: skip
    with capturing(journal, src, ctx) as cap:
        tagged, plain = ctx.socket(zmq.PUSH), ctx.socket(zmq.PUSH)
        tagged.setsockopt(zmq.METADATA, b"X-Tenant:acme")
        for sock in (tagged, plain):
            sock.connect(cap.endpoints["in"][0])
        for i in range(50):
            tagged.send_multipart([b"t", b"%d" % i])
            plain.send(b"p%d" % i)
        wait_until(lambda: cap.stats["in"].received == 100)
        tagged.close()
        plain.close()
    msgs = list(journal.messages("in"))
    assert len(msgs) == 100
    by_first = {m.frames[0][:1]: m.headers for m in msgs}
    # Only what each connection has: no Identity from a PUSH; Routing-Id and User-Id
    # are not even asked of a PULL socket without ZAP.
    assert by_first[b"t"] == [("Socket-Type", b"PUSH"), ("Peer-Address", b"127.0.0.1"),
                              ("X-Tenant", b"acme")]  # fmt: skip
    assert by_first[b"p"] == [("Socket-Type", b"PUSH"), ("Peer-Address", b"127.0.0.1")]
    assert all(m.headers == by_first[m.frames[0][:1]] for m in msgs)
    assert [m.frames for m in msgs if m.frames[0] == b"t"] == [[b"t", b"%d" % i] for i in range(50)]
    assert _version(journal) == 3  # older purezmq refuses it rather than misread it


def test_a_message_without_any_of_the_properties_has_null_headers(
    journal: Journal, ctx: zmq.Context
) -> None:
    # As Kafka's source: a record without headers reads as null, not [].
    src = CaptureSource("in", "PULL", bind=["tcp://127.0.0.1:*"], headers=["X-Tenant"])
    with capturing(journal, src, ctx) as cap:
        tagged, plain = ctx.socket(zmq.PUSH), ctx.socket(zmq.PUSH)
        tagged.setsockopt(zmq.METADATA, b"X-Tenant:acme")
        for sock in (tagged, plain):
            sock.connect(cap.endpoints["in"][0])
        tagged.send(b"t")
        plain.send(b"p")
        wait_until(lambda: cap.stats["in"].received == 2)
        tagged.close()
        plain.close()
    got = {m.value: m.headers for m in journal.messages("in")}
    assert got == {b"t": [("X-Tenant", b"acme")], b"p": None}


def test_router_capture_records_the_routing_id(journal: Journal, ctx: zmq.Context) -> None:
    src = CaptureSource("in", "ROUTER", bind=["tcp://127.0.0.1:*"], headers=True, ack=True)
    with capturing(journal, src, ctx) as cap:
        dealer = ctx.socket(zmq.DEALER)
        dealer.setsockopt(zmq.ROUTING_ID, b"dealer-1")
        dealer.connect(cap.endpoints["in"][0])
        dealer.send_multipart([b"id-1", b"payload"])
        assert dealer.poll(5000), "no acknowledgement"
        assert dealer.recv_multipart() == [b"id-1"]
        dealer.close()
    (m,) = journal.messages("in")
    assert m.frames == [b"id-1", b"payload"]  # the routing id is not a frame...
    assert m.headers == [("Socket-Type", b"DEALER"), ("Identity", b"dealer-1"),
                         ("Routing-Id", b"dealer-1"), ("Peer-Address", b"127.0.0.1")]  # fmt: skip


def test_user_id_under_zap(journal: Journal, ctx: zmq.Context) -> None:
    auth = ThreadAuthenticator(ctx)
    auth.start()
    try:
        auth.configure_plain(domain="*", passwords={"alice": "secret"})
        src = CaptureSource("in", "PULL", bind=["tcp://127.0.0.1:*"], headers=["User-Id"],
                            socket_options={zmq.PLAIN_SERVER: 1})  # fmt: skip
        with capturing(journal, src, ctx) as cap:
            push = ctx.socket(zmq.PUSH)
            push.setsockopt(zmq.PLAIN_USERNAME, b"alice")
            push.setsockopt(zmq.PLAIN_PASSWORD, b"secret")
            push.connect(cap.endpoints["in"][0])
            push.send(b"signed")
            wait_until(lambda: cap.stats["in"].received == 1)
            push.close()
    finally:
        auth.stop()
    (m,) = journal.messages("in")
    assert m.headers == [("User-Id", b"alice")]


def test_without_headers_the_journal_is_unchanged(journal: Journal, ctx: zmq.Context) -> None:
    src = CaptureSource("in", "PULL", bind=["inproc://no-headers"])
    with capturing(journal, src, ctx) as cap:
        push = ctx.socket(zmq.PUSH)
        push.connect("inproc://no-headers")
        push.send(b"x")
        wait_until(lambda: cap.stats["in"].received == 1)
        push.close()
    (m,) = journal.messages("in")
    assert m.headers is None
    (seg,) = journal.segments("in")
    with pa.ipc.open_file(journal.segment_path("in", seg)) as f:
        stored = f.schema
    assert stored.names == ["seq", "timestamp", "frames"]
    assert stored.metadata[b"purezmq.journal.version"] == b"2"
    assert _version(journal) == 2  # still readable by purezmq that reads version 2


@pytest.mark.parametrize("fmt", ["arrow", "parquet"])
def test_headers_are_stored_once_per_distinct_list(tmp_path: Path, fmt: str) -> None:
    peers = [(("Socket-Type", b"PUSH"), ("Peer-Address", b"10.0.0.%d" % k)) for k in range(3)]
    sizes = {}
    for label, with_headers in (("plain", False), ("headers", True)):
        j = Journal.create(str(tmp_path / label), segment_format=fmt)
        with j.writer("s", seal_age_s=3600) as w:
            msgs = [[b"%06d" % i] for i in range(3000)]
            w.append_many(msgs, headers=[peers[i % 3] for i in range(3000)] if with_headers
                          else None, timestamp_us=1)  # fmt: skip
        (seg,) = j.segments("s")
        sizes[label] = seg.size
        if with_headers:
            got = list(j.messages("s"))
            assert [m.headers for m in got[:4]] == [list(peers[i % 3]) for i in range(4)]
    # One int32 per message at most (Arrow's dictionary; Parquet's own encoding is
    # smaller still), not the ~40 bytes of the pairs themselves.
    assert sizes["headers"] - sizes["plain"] < 3000 * 4 + 2000


def test_messages_with_and_without_headers_in_one_segment(
    journal: Journal, capsys: pytest.CaptureFixture[str]
) -> None:
    with journal.writer("s", seal_age_s=3600) as w:
        w.append([b"a"], headers=[("X-A", b"1")])
        w.append([b"b"])
        w.append_many([[b"c"], [b"d"]], headers=[None, (("X-A", b"1"),)])
    assert [m.headers for m in journal.messages("s")] == [[("X-A", b"1")], None, None,
                                                          [("X-A", b"1")]]  # fmt: skip
    assert main(["cat", journal.uri, "s", "--json", "--to", "2"]) == 0
    a, b = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert a["headers"] == [["X-A", "MQ=="]] and "headers" not in b  # base64, as frames


def test_capture_cli_passes_header_names_to_workers() -> None:
    a = build_parser().parse_args(["capture", "/j", "s", "--type", "PULL", "--connect",
                                   "tcp://h:1", "--partitions", "2",
                                   "--header", "X-Tenant"])  # fmt: skip
    child = _child_args(a, 1, [])
    assert child[child.index("--header") + 1] == "X-Tenant"
    b = build_parser().parse_args(child)
    from purezmq.journal.cli import _headers

    assert _headers(b) == [*default_headers("PULL"), "X-Tenant"]
    assert _headers(build_parser().parse_args(["capture", "/j", "s", "--type", "PULL"])) is False
    with pytest.raises(ValueError, match="property names"):
        CaptureSource("s", "PULL", bind=["inproc://x"], headers="X-Tenant")


def test_names_the_socket_rules_out_are_not_asked() -> None:
    from purezmq.journal.headers import ROUTING_ID, names_to_ask

    assert default_headers("pull") == ("Socket-Type", "Peer-Address", "User-Id")
    assert default_headers("ROUTER") == DEFAULT_HEADERS
    asked = names_to_ask(("routing-id", "User-Id", "X-A"), router=True, zap=False)
    assert asked == ("Routing-Id", "X-A") and asked[0] == ROUTING_ID
    assert names_to_ask(DEFAULT_HEADERS, router=False, zap=True) == (
        "Socket-Type", "Identity", "Peer-Address", "User-Id")  # fmt: skip
