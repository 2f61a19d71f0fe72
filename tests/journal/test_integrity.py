"""Integrity: every segment's CRC32C is checked on every read and by verify.

A damaged segment - any byte flipped, or cut short - is a CorruptSegmentError
(or goes to the reader's on_corrupt), never rows silently wrong or missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from purezmq.journal import CorruptSegmentError, Journal, read_segments
from purezmq.journal.cli import main
from purezmq.journal.crc import _crc32c_py, crc32c

from .conftest import fill


def test_crc32c_is_castagnoli() -> None:
    # The standard check value of CRC-32C (RFC 3720, appendix B.4).
    assert crc32c(b"123456789") == 0xE3069283 == _crc32c_py(b"123456789")
    assert crc32c(b"") == 0 == _crc32c_py(b"")
    data = os.urandom(1000)
    assert crc32c(data) == _crc32c_py(data) == crc32c(memoryview(data))


@pytest.mark.parametrize("fmt", ["arrow", "parquet"])
def test_every_byte_flip_is_detected(tmp_path: Path, fmt: str) -> None:
    j = Journal.create(str(tmp_path / "j"), segment_format=fmt)
    with j.writer("s", seal_age_s=3600) as w:
        w.append([b"t", b"payload"], topic=b"t")
        w.append([b"x"])
    (seg,) = j.segments("s")
    path = j.segment_path("s", seg)
    good = Path(path).read_bytes()
    assert len(good) == seg.size > 300
    missed = []
    for i in range(len(good)):
        bad = bytearray(good)
        bad[i] ^= 0xFF if i % 2 else 0x01  # whole-byte and single-bit flips
        with open(path, "wb") as f:
            f.write(bad)
        try:
            list(j.read("s"))
        except CorruptSegmentError:
            continue
        missed.append(i)
    assert missed == []
    with open(path, "wb") as f:
        f.write(good)
    assert [m.frames for m in j.messages("s")] == [[b"t", b"payload"], [b"x"]]


def test_truncated_segments_are_detected_at_any_length(journal: Journal) -> None:
    fill(journal, "s", 10, per_segment=10)
    (seg,) = journal.segments("s")
    path = journal.segment_path("s", seg)
    good = Path(path).read_bytes()
    for n in (0, 1, 8, len(good) // 2, len(good) - 1):
        with open(path, "wb") as f:
            f.write(good[:n])
        with pytest.raises(CorruptSegmentError, match="checksum mismatch"):
            list(journal.read("s"))


def test_a_corrupt_segment_goes_to_on_corrupt_and_only_it_is_skipped(journal: Journal) -> None:
    fill(journal, "s", 30, per_segment=10)
    segs = journal.segments("s")
    path = journal.segment_path("s", segs[1])
    data = bytearray(Path(path).read_bytes())
    data[len(data) // 2] ^= 0x10
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(CorruptSegmentError, match=segs[1].name):
        list(read_segments(journal.uri, "s", segs, 0, 30))
    bad: list[CorruptSegmentError] = []
    got = read_segments(journal.uri, "s", segs, 5, 25, on_corrupt=bad.append)
    seqs = [x for b in got for x in b.column("seq").to_pylist()]
    assert seqs == [*range(5, 10), *range(20, 25)]
    assert len(bad) == 1 and "checksum mismatch" in str(bad[0])


def test_verify_checks_every_checksum(journal: Journal, capsys: pytest.CaptureFixture[str]) -> None:
    fill(journal, "s", 20, per_segment=10)
    assert main(["verify", journal.uri]) == 0
    assert "ok  s/0" in capsys.readouterr().out
    seg = journal.segments("s")[0]
    path = journal.segment_path("s", seg)
    data = bytearray(Path(path).read_bytes())
    data[100] ^= 0x01  # one bit, where the rows still parse
    with open(path, "wb") as f:
        f.write(data)
    assert main(["verify", journal.uri]) == 1
    out = capsys.readouterr().out
    assert "BAD s/0" in out and "checksum mismatch" in out and seg.name in out
