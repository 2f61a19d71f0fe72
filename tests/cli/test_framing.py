"""The three framings, in process: what each reads and writes, and that what
one writes it reads back as the same message."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from purezmq.cli.common import duration
from purezmq.cli.framing import Framing, FramingError, delimiter


def _read(fmt: str, data: bytes, sep: bytes = b"\t") -> list[list[bytes]]:
    return list(Framing(fmt, sep).read(io.BytesIO(data)))


def test_line_reads_a_message_per_line_and_frames_per_delimiter() -> None:
    assert _read("line", b"a\nb\tc\n\nlast") == [[b"a"], [b"b", b"c"], [b""], [b"last"]]
    assert _read("line", b"a\tb\n", sep=b"") == [[b"a\tb"]]


def test_raw_reads_the_whole_input_as_one_frame() -> None:
    assert _read("raw", b"x\ny\0") == [[b"x\ny\0"]]
    assert Framing("raw").render([b"a", b"b"]) == b"ab"


def test_json_reads_arrays_values_and_base64() -> None:
    data = b'["a", {"base64": "AAE="}, 3]\n\n"text"\n{"k": 1}\n'
    assert _read("json", data) == [[b"a", b"\0\1", b"3"], [b"text"], [b'{"k":1}']]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"{nope", "line 1: not JSON"),
        (b"[]", "an empty array is no message"),
        (b'[{"base64": "!!"}]', "bad base64"),
    ],
)
def test_json_errors_say_where(line: bytes, says: str) -> None:
    with pytest.raises(FramingError, match=says):
        _read("json", line)


frames = st.lists(st.binary(max_size=40), min_size=1, max_size=5)


@given(frames)
def test_json_round_trips_any_message(message: list[bytes]) -> None:
    f = Framing("json")
    assert _read("json", f.render(message)) == [message]


@given(st.lists(st.binary(max_size=20).filter(lambda b: b"\n" not in b and b"\t" not in b),
                min_size=1, max_size=5))  # fmt: skip
def test_line_round_trips_messages_without_newlines_or_tabs(message: list[bytes]) -> None:
    assert _read("line", Framing("line").render(message)) == [message]


def test_delimiter_escapes() -> None:
    assert delimiter(r"\t") == b"\t"
    assert delimiter(r"\x1f") == b"\x1f"
    assert delimiter("|") == b"|"
    assert delimiter("") == b""


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("5", 5.0), ("2.5s", 2.5), ("250ms", 0.25), ("2m", 120.0), ("1h", 3600.0), ("0", 0.0),
     ("inf", float("inf"))],
)  # fmt: skip
def test_durations(text: str, seconds: float) -> None:
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["soon", "5 days", "-3", "1e3"])
def test_bad_durations(text: str) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        duration(text)


def test_progress_falls_back_to_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked for rich or tqdm where they are not installed, progress is still
    shown, as plain text; 'auto' shows nothing when stderr is not a terminal."""
    import importlib.util

    from purezmq.cli import progress

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name in ("rich", "tqdm") else real(name)
    )
    assert progress.backend("rich") == "plain"
    assert progress.backend("tqdm") == "plain"
    assert progress.backend("off") == "off"
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    assert progress.backend("auto") == "off"


def test_plain_progress_counts_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    from purezmq.cli.progress import Progress

    with Progress("plain", "sent", 3) as p:
        for _ in range(3):
            p.advance()
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith("\rsent: 3/3\n")


def test_top_rates_follow_each_connection() -> None:
    """Two peers on one host accepted on one endpoint look alike: each keeps
    its own rate (they are told apart by their order)."""
    from purezmq.cli.table import render_table

    def snap(a: int, b: int) -> dict[str, object]:
        conns = [{"endpoint": "tcp://h:1", "peer_address": "10.0.0.1", "connected": True,
                  "msgs_in": n} for n in (a, b)]  # fmt: skip
        return {"socket_type": "PULL", "msgs_in": a + b, "connections": conns}

    _, header, rows = render_table(snap(2000, 10), snap(0, 0), 1.0)
    rate = header.index("in/s")
    assert [r[rate] for r in rows] == ["2,010", "2,000", "10"]
    _, _, first = render_table(snap(1, 1), None, 1.0)
    assert {r[rate] for r in first} == {"-"}
