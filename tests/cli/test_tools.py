"""monitor, proxy, keygen, bench and journal, driven as a user would."""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from .helpers import Command, one_error_line, purezmq

Start = Callable[..., Command]
ANY = "tcp://127.0.0.1:*"


# ------------------------------------------------------------------ monitor
def test_monitor_narrates_a_handshake(start: Start) -> None:
    router = start("recv", "-t", "ROUTER", "-b", ANY)
    ep = router.endpoint()
    got = purezmq("monitor", "-t", "DEALER", "-c", ep, "--until", "HANDSHAKE_SUCCEEDED",
                  "--timeout", "20")  # fmt: skip
    assert got.status == 0, got
    events = [line.split()[2] for line in got.lines]
    assert events[-1] == "HANDSHAKE_SUCCEEDED"
    assert "CONNECTED" in events
    assert f"  {ep}  CONNECTED  connected (fd " in got.stdout.decode()


def test_monitor_says_why_a_handshake_fails(start: Start) -> None:
    """A DEALER cannot talk to a PULL: the probe says so, in words and as JSON."""
    pull = start("recv", "-b", ANY)
    got = purezmq("monitor", "-t", "DEALER", "-c", pull.endpoint(), "--json",
                  "--until", "HANDSHAKE_FAILED_PROTOCOL", "--timeout", "20")  # fmt: skip
    assert got.status == 0, got
    last = json.loads(got.lines[-1])
    assert last["event"] == "HANDSHAKE_FAILED_PROTOCOL"
    assert last["text"].startswith("handshake failed: protocol error (ZMTP_")


def test_monitor_sees_a_bind_and_runs_until_stopped(start: Start) -> None:
    mon = start("monitor", "-t", "PULL", "-b", ANY)
    mon.endpoint()
    assert mon.proc.stdout is not None
    assert b"LISTENING" in mon.proc.stdout.readline()
    mon.signal(signal.SIGTERM)
    assert mon.finish().status == 0


def test_verbose_prints_events_on_stderr_and_data_on_stdout(start: Start) -> None:
    recv = start("recv", "-v", "-t", "REP", "-b", ANY, "-n", "1")
    sent = purezmq("send", "-v", "-t", "REQ", "-c", recv.endpoint(), "-m", "x")
    assert sent.status == 0, sent
    assert sent.stdout == b"x\n"  # the reply: data only
    assert "CONNECTED  connected (fd" in sent.stderr
    assert "HANDSHAKE_SUCCEEDED" in sent.stderr
    got = recv.finish()
    assert got.lines == ["x"]
    timed = [line.split() for line in got.stderr.splitlines()]
    events = [w[3] for w in timed if re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3}", w[1])]
    assert events[:1] == ["LISTENING"]
    assert {"ACCEPTED", "HANDSHAKE_SUCCEEDED", "MONITOR_STOPPED"} <= set(events)


# -------------------------------------------------------------------- proxy
def test_streamer_forwards_and_reports_on_sigterm(start: Start) -> None:
    proxy = start("proxy", "streamer", "--frontend", ANY, "--backend", ANY)
    front, back = proxy.endpoint("PULL"), proxy.endpoint("PUSH")
    assert purezmq("send", "-c", front, "-m", "a", "-m", "bc").status == 0
    assert purezmq("recv", "-c", back, "-n", "2").lines == ["a", "bc"]
    proxy.signal(signal.SIGTERM)
    got = proxy.finish()
    assert got.status == 0, got
    assert "forwarded 2 frames (3 bytes) from the frontend" in got.stderr


def test_queue_carries_requests_and_replies(start: Start) -> None:
    proxy = start("proxy", "queue", "--frontend", ANY, "--backend", ANY)
    front, back = proxy.endpoint("ROUTER"), proxy.endpoint("DEALER")
    worker = start("recv", "-t", "REP", "-c", back, "-n", "2", "--reply", "done")
    got = purezmq("send", "-t", "REQ", "-c", front, "-m", "job1", "-m", "job2")
    assert got.lines == ["done", "done"], got
    assert worker.finish().lines == ["job1", "job2"]


def test_forwarder_with_a_capture_socket(start: Start) -> None:
    proxy = start("proxy", "forwarder", "--frontend", ANY, "--backend", ANY, "--capture", ANY)
    front, back = proxy.endpoint("XSUB"), proxy.endpoint("XPUB")
    capture = proxy.endpoint("PUB")
    # The capture socket is a PUB: the watcher must be connected before the
    # message passes (-v says when), and asks for the topic only (the capture
    # also copies the subscription itself, b"\x01t").
    watcher = start("sub", "-v", "-c", capture, "--topic", "t", "-n", "1")
    watcher.wait_stderr("HANDSHAKE_SUCCEEDED")
    subscriber = start("sub", "-c", back, "--topic", "t", "-n", "1")
    # The subscription travels subscriber -> XPUB -> XSUB -> publisher, which
    # waits for it; then one message crosses (and is copied to the capture).
    pub = purezmq("pub", "-c", front, "--wait-subscribers", "1", "--timeout", "20",
                  "-m", "t\tnews")  # fmt: skip
    assert pub.status == 0, pub
    assert subscriber.finish().lines == ["t\tnews"]
    assert watcher.finish().lines == ["t\tnews"]


# ------------------------------------------------------------------- keygen
def test_keygen_pairs_and_derives() -> None:
    pytest.importorskip("nacl")
    text = purezmq("keygen")
    assert text.status == 0, text
    public, secret = text.lines[1], text.lines[4]
    assert len(public) == len(secret) == 40
    pair = json.loads(purezmq("keygen", "--json").stdout)
    assert len(pair["public"]) == 40 and pair["public"] != public
    derived = json.loads(purezmq("keygen", "--json", "--secret", secret).stdout)
    assert derived == {"public": public, "secret": secret}


def test_keygen_writes_certificates_and_never_overwrites(tmp_path: Path) -> None:
    pytest.importorskip("nacl")
    certs = tmp_path / "certs"
    made = purezmq("keygen", "--cert-dir", str(certs), "--name", "server")
    assert made.status == 0, made
    assert made.lines == [str(certs / "server.key"), str(certs / "server.key_secret")]
    secret_before = (certs / "server.key_secret").read_bytes()
    again = purezmq("keygen", "--cert-dir", str(certs), "--name", "server")
    one_error_line(again, "server.key exists")
    assert (certs / "server.key_secret").read_bytes() == secret_before


def test_keygen_rejects_a_bad_secret() -> None:
    pytest.importorskip("nacl")
    one_error_line(purezmq("keygen", "--secret", "not-a-key"), "not a CURVE secret key")


# -------------------------------------------------------------------- bench
def test_bench_side_by_side_inproc_json() -> None:
    got = purezmq("bench", "--transport", "inproc", "--count", "2000", "--roundtrips", "200",
                  "--json", timeout=120)  # fmt: skip
    assert got.status == 0, got
    results = json.loads(got.stdout)
    impls = {r["impl"] for r in results}
    assert "purezmq" in impls
    assert {(r["kind"], r["transport"]) for r in results} == {("thr", "inproc"), ("lat", "inproc")}
    assert all(r["value"] > 0 for r in results)


def test_bench_tcp_table_against_pyzmq() -> None:
    pytest.importorskip("zmq")
    got = purezmq("bench", "--count", "2000", "--roundtrips", "200", timeout=180)
    assert got.status == 0, got
    text = got.stdout.decode()
    assert "purezmq/pyzmq" in text and "throughput [msg/s]" in text and "latency [us]" in text
    assert text.count("tcp") == 2


def test_bench_runs_one_perf_tool() -> None:
    got = purezmq("bench", "inproc_lat", "16", "100", "--json", "--warmup", "10")
    assert got.status == 0, got
    report = json.loads(got.lines[-1])
    assert report["tool"] == "inproc_lat" and report["count"] == 100


# ------------------------------------------------------------------ journal
def test_journal_commands_are_reachable(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    helped = purezmq("journal", "--help")
    assert helped.status == 0, helped
    for command in ("capture", "cat", "replay", "retain", "verify"):
        assert command in helped.stdout.decode()
    made = purezmq("journal", "init", str(tmp_path / "j"))
    assert made.status == 0, made
    listed = purezmq("journal", "ls", str(tmp_path / "j"))
    assert listed.status == 0 and listed.lines[0].startswith("journal "), listed


def test_journal_without_its_extra_says_how_to_get_it() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("pyarrow is installed: the journal works here")
    one_error_line(purezmq("journal", "ls", "somewhere"), "pip install 'purezmq[journal]'")


def test_journal_cat_of_a_missing_stream_fails_clearly(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    assert purezmq("journal", "init", str(tmp_path / "j")).status == 0
    got = purezmq("journal", "cat", str(tmp_path / "j"), "nosuch")
    assert got.status == 1, got
    assert got.stdout == b""
    (line,) = got.stderr.strip().splitlines()
    assert "nosuch" in line and "no stream" in line, line
