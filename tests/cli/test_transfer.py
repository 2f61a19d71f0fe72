"""send, recv, pub and sub against each other: both directions (the binding
side sending or receiving), the request-reply and publish-subscribe
patterns, multipart messages and the three framings."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path

from .helpers import Command, purezmq

Start = Callable[..., Command]
ANY = "tcp://127.0.0.1:*"


def test_push_to_a_bound_pull_keeps_lines_and_frames(start: Start) -> None:
    recv = start("recv", "-b", ANY, "-n", "3", "-f", "json")
    sent = purezmq("send", "-c", recv.endpoint("PULL"), stdin=b"a\nb\tc\n\n")
    assert sent.status == 0, sent
    got = recv.finish()
    assert got.status == 0, got
    assert [json.loads(line) for line in got.lines] == [["a"], ["b", "c"], [""]]


def test_bound_push_to_a_connecting_pull(start: Start) -> None:
    """The other direction: the sender binds and waits for its peer."""
    send = start("send", "-b", ANY, "-m", "one", "-m", "two\tparts")
    got = purezmq("recv", "-c", send.endpoint("PUSH"), "-n", "2")
    assert got.status == 0, got
    assert got.stdout == b"one\ntwo\tparts\n"
    assert send.finish().status == 0


def test_line_delimiter_can_change_or_be_off(start: Start) -> None:
    recv = start("recv", "-b", ANY, "-n", "2", "-f", "json")
    ep = recv.endpoint()
    assert purezmq("send", "-c", ep, "-d", ",", "-m", "x,y").status == 0
    assert purezmq("send", "-c", ep, "-d", "", "-m", "p\tq").status == 0
    got = recv.finish()
    assert [json.loads(line) for line in got.lines] == [["x", "y"], ["p\tq"]]


def test_raw_carries_binary_data_unchanged(start: Start, tmp_path: Path) -> None:
    payload = bytes(range(256)) * 40 + b"\n\0\t\n"
    source, target = tmp_path / "in.bin", tmp_path / "out.bin"
    source.write_bytes(payload)
    recv = start("recv", "-b", ANY, "-n", "1", "-f", "raw", "--output", str(target))
    assert purezmq("send", "-c", recv.endpoint(), "-f", "raw", str(source)).status == 0
    assert recv.finish().status == 0
    assert target.read_bytes() == payload


def test_json_frames_round_trip_bytes_and_text(start: Start) -> None:
    recv = start("recv", "-b", ANY, "-n", "2", "-f", "json")
    lines = b'["text", {"base64": "/wA="}]\n{"k": [1, 2]}\n'
    assert purezmq("send", "-c", recv.endpoint(), "-f", "json", stdin=lines).status == 0
    got = [json.loads(line) for line in recv.finish().lines]
    assert got == [["text", {"base64": "/wA="}], ['{"k":[1,2]}']]


def test_recv_pipes_into_send_with_multipart_intact(start: Start) -> None:
    """recv's output is send's input: a relay keeps every frame."""
    last = start("recv", "-b", ANY, "-n", "2", "-f", "json")
    first = start("recv", "-b", ANY, "-n", "2")
    assert purezmq("send", "-c", first.endpoint(), "-m", "a\tb", "-m", "c").status == 0
    relayed = first.finish()
    assert purezmq("send", "-c", last.endpoint(), stdin=relayed.stdout).status == 0
    assert [json.loads(line) for line in last.finish().lines] == [["a", "b"], ["c"]]


def test_req_prints_the_replies_of_a_rep(start: Start) -> None:
    rep = start("recv", "-t", "REP", "-b", ANY, "-n", "2", "--reply", "ok\tdone")
    req = purezmq("send", "-t", "REQ", "-c", rep.endpoint("REP"), "-m", "ping", "-m", "pong")
    assert req.status == 0, req
    assert req.lines == ["ok\tdone", "ok\tdone"]
    assert rep.finish().lines == ["ping", "pong"]


def test_rep_echoes_by_default(start: Start) -> None:
    rep = start("recv", "-t", "rep", "-b", ANY, "-n", "1")
    req = purezmq("send", "-t", "req", "-c", rep.endpoint(), "-m", "hello\tworld")
    assert req.lines == ["hello\tworld"]
    assert rep.finish().status == 0


def test_router_shows_the_dealer_identity(start: Start) -> None:
    router = start("recv", "-t", "ROUTER", "-b", ANY, "-n", "1", "-f", "json")
    dealer = purezmq(
        "send", "-t", "DEALER", "-c", router.endpoint(), "-o", "ROUTING_ID=client-7", "-m", "hi"
    )
    assert dealer.status == 0, dealer
    assert json.loads(router.finish().lines[0]) == ["client-7", "hi"]


def test_sub_gets_the_topics_it_asked_for(start: Start) -> None:
    pub = start(
        "pub", "-b", ANY, "--wait-subscribers", "1", "--timeout", "20",
        "-m", "weather\tsunny", "-m", "sports\tgoal", "-m", "weather\train",
    )  # fmt: skip
    sub = purezmq("sub", "-c", pub.endpoint(), "--topic", "weather", "-n", "2")
    assert sub.status == 0, sub
    assert sub.lines == ["weather\tsunny", "weather\train"]
    assert pub.finish().status == 0


def test_pub_topic_option_adds_a_frame(start: Start) -> None:
    sub = start("sub", "-b", ANY, "-n", "1", "-f", "json")
    pub = purezmq(
        "pub", "-c", sub.endpoint("SUB"), "--topic", "logs", "--wait-subscribers", "1",
        "--timeout", "20", "-m", "started",
    )  # fmt: skip
    assert pub.status == 0, pub
    assert json.loads(sub.finish().lines[0]) == ["logs", "started"]


def test_count_and_repeat_bound_what_is_sent(start: Start) -> None:
    recv = start("recv", "-b", ANY, "-n", "5")
    sent = purezmq("send", "-c", recv.endpoint(), "-m", "x", "-m", "y", "--repeat", "3", "-n", "5")
    assert sent.status == 0, sent
    assert recv.finish().lines == ["x", "y", "x", "y", "x"]


def test_ipc_endpoint(start: Start, tmp_path: Path) -> None:
    ep = f"ipc://{tmp_path}/cli.ipc"
    recv = start("recv", "-b", ep, "-n", "1")
    assert purezmq("send", "-c", ep, "-m", "over ipc").status == 0
    assert recv.finish().lines == ["over ipc"]


def test_endless_recv_stops_cleanly_on_sigterm(start: Start) -> None:
    """A recv without --count runs until stopped, and stopping is no failure."""
    recv = start("recv", "-b", ANY)
    assert purezmq("send", "-c", recv.endpoint(), "-m", "only").status == 0
    recv.signal(signal.SIGTERM)
    got = recv.finish()
    assert got.status == 0, got
    assert got.lines == ["only"]


def test_recv_with_a_count_interrupted_exits_130(start: Start) -> None:
    recv = start("recv", "-b", ANY, "-n", "5")
    assert purezmq("send", "-c", recv.endpoint(), "-m", "1", "-m", "2").status == 0
    recv.signal(signal.SIGINT)
    got = recv.finish()
    assert got.status == 130, got
    assert "interrupted after 2 of 5 messages" in got.stderr
    assert got.lines == ["1", "2"]


def test_recv_stops_quietly_when_its_reader_goes(start: Start) -> None:
    """recv | head -1: the closed pipe ends recv with status 0, no traceback."""
    recv = start("recv", "-b", ANY, "-n", "3")
    ep = recv.endpoint()
    assert recv.proc.stdout is not None
    assert purezmq("send", "-c", ep, "-m", "first").status == 0
    assert recv.proc.stdout.readline() == b"first\n"
    recv.proc.stdout.close()
    assert purezmq("send", "-c", ep, "-m", "second", "-m", "third").status == 0
    assert recv.proc.wait(30) == 0
    assert "Traceback" not in recv.stderr_after_exit()


def test_progress_goes_to_stderr_and_data_to_stdout(start: Start) -> None:
    rep = start("recv", "-t", "REP", "-b", ANY, "-n", "2", "--progress", "plain")
    req = purezmq("send", "-t", "REQ", "-c", rep.endpoint(), "-m", "a", "-m", "b",
                  "--progress", "plain")  # fmt: skip
    assert req.lines == ["a", "b"]
    assert "sent: 2" in req.stderr
    got = rep.finish()
    assert got.lines == ["a", "b"] and "received: 2/2" in got.stderr
