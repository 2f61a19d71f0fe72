"""What goes wrong, said as the CLI promises: one line on stderr that names
the problem, exit status 1 (2 for a malformed command line), no traceback."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .helpers import Command, one_error_line, purezmq

Start = Callable[..., Command]
ANY = "tcp://127.0.0.1:*"


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A TCP port something else is listening on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        yield s.getsockname()[1]


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on (bound then released: the kernel will not
    hand it out again at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_malformed_endpoint() -> None:
    one_error_line(purezmq("send", "-c", "tcp://nohost", "-m", "x"), "cannot connect PUSH")


def test_unknown_transport() -> None:
    one_error_line(purezmq("recv", "-b", "carrier-pigeon://coop"), "cannot bind PULL")


def test_address_in_use(taken_port: int) -> None:
    got = purezmq("recv", "-b", f"tcp://127.0.0.1:{taken_port}")
    one_error_line(got, "cannot bind PULL", "in use")


def test_unknown_socket_option() -> None:
    one_error_line(purezmq("recv", "-b", ANY, "-o", "NOPE=1"), "no socket option named NOPE")


def test_bad_socket_option_value() -> None:
    one_error_line(purezmq("recv", "-b", ANY, "-o", "LINGER=soon"), "LINGER=soon")


def test_option_without_a_value() -> None:
    one_error_line(purezmq("recv", "-b", ANY, "-o", "LINGER"), "expected NAME=VALUE")


def test_missing_input_file(tmp_path: Path) -> None:
    got = purezmq("send", "-c", "tcp://127.0.0.1:1", "--linger", "0", str(tmp_path / "nope"))
    one_error_line(got, "cannot read", "nope")


def test_bad_json_names_the_line_and_what_was_sent(start: Start) -> None:
    recv = start("recv", "-b", ANY, "-n", "1")
    got = purezmq("send", "-c", recv.endpoint(), "-f", "json", stdin=b'"fine"\n{oops\n')
    one_error_line(got, "line 2: not JSON", "after sending 1 messages")
    assert recv.finish().lines == ["fine"]  # what came before the bad line went out


def test_recv_count_not_reached_within_timeout() -> None:
    got = purezmq("recv", "-b", ANY, "-n", "2", "--timeout", "300ms")
    one_error_line(got, "received 0 of 2 messages within --timeout")


def test_recv_timeout_without_a_count_is_the_end_not_an_error() -> None:
    got = purezmq("recv", "-b", ANY, "--timeout", "0.2")
    assert got.status == 0, got


def test_send_with_no_peer_gives_up_at_the_timeout() -> None:
    got = purezmq("send", "-b", ANY, "-m", "x", "--timeout", "0.3")
    lines = got.stderr.strip().splitlines()
    assert got.status == 1, got
    assert lines[0].startswith("purezmq: PUSH bound to ")  # the wildcard's port, then the error
    assert lines[1:] == [
        "purezmq: error: could not send within --timeout 0.3 s: no peer takes messages "
        "(none connected yet, or all at their high-water mark)"
    ]


def test_req_without_a_reply(start: Start) -> None:
    # A ROUTER takes the request and never answers.
    router = start("recv", "-t", "ROUTER", "-b", ANY, "-n", "1")
    got = purezmq("send", "-t", "REQ", "-c", router.endpoint(), "-m", "hello?", "--timeout", "0.5")
    one_error_line(got, "no reply within --timeout 0.5 s")


def test_pub_waiting_for_subscribers_that_never_come() -> None:
    got = purezmq("pub", "-b", ANY, "--wait-subscribers", "2", "--timeout", "0.3", "-m", "x")
    assert got.status == 1, got
    assert got.stderr.strip().splitlines()[-1] == (
        "purezmq: error: only 0 of 2 subscriptions arrived within --timeout"
    )


def test_monitor_until_an_event_that_does_not_come(closed_port: int) -> None:
    got = purezmq(
        "monitor", "-t", "DEALER", "-c", f"tcp://127.0.0.1:{closed_port}",
        "--until", "HANDSHAKE_SUCCEEDED", "--timeout", "0.5",
    )  # fmt: skip
    one_error_line(got, "no HANDSHAKE_SUCCEEDED within --timeout 0.5 s")
    assert "CONNECT_RETRIED" in got.stdout.decode()  # and it said why, as it went


def test_monitor_until_an_unknown_event() -> None:
    got = purezmq("monitor", "-t", "SUB", "-c", "tcp://127.0.0.1:1", "--until", "PARTY")
    one_error_line(got, "--until PARTY: not a monitor event")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["send", "-t", "SUB", "-c", "tcp://h:1"], "a SUB socket only receives"),
        (["send", "-t", "REP", "-c", "tcp://h:1"], "a REP socket answers requests"),
        (["recv", "-t", "PUSH", "-b", "tcp://h:1"], "a PUSH socket only sends"),
        (["recv", "-t", "REQ", "-b", "tcp://h:1"], "a REQ socket asks first"),
        (["sub", "-t", "PULL", "-c", "tcp://h:1"], "a PULL socket only receives"),
        (["recv", "-t", "TOASTER", "-b", "tcp://h:1"], "unknown socket type 'TOASTER'"),
        (["recv"], "give at least one --bind or --connect"),
        (["send", "-m", "x"], "give at least one --bind or --connect"),
        (["recv", "-b", "tcp://h:1", "--timeout", "soon"], "not a duration: 'soon'"),
        (["recv", "-b", "tcp://h:1", "-n", "0"], "must be 1 or more"),
        (["monitor", "-c", "tcp://h:1"], "the following arguments are required: -t/--type"),
        (["proxy", "queue", "--frontend", "tcp://h:1"], "give both --frontend and --backend"),
        (["bench", "--transport", "carrier"], "comma-separated list of tcp, ipc, inproc"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_usage_errors_exit_2_and_say_what_is_wrong(args: list[str], says: str) -> None:
    got = purezmq(*args)
    assert got.status == 2, got
    assert says in got.stderr, got
    assert "Traceback" not in got.stderr


def test_reply_is_for_rep_only() -> None:
    one_error_line(purezmq("recv", "-b", ANY, "--reply", "x"), "--reply is for REP sockets")


def test_subscribe_is_for_sub_only() -> None:
    one_error_line(purezmq("recv", "-b", ANY, "--topic", "x"), "--subscribe is for SUB and XSUB")
