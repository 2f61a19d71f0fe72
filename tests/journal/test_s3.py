"""A journal on s3:// against a real S3-compatible server (moto's, started by the tests)."""

from __future__ import annotations

import pyarrow.fs as pafs
import pytest

from purezmq.journal import CorruptSegmentError, Journal, read_segments
from purezmq.journal.cli import main

from .conftest import fill
from .s3server import new_bucket


def _objects(j: Journal) -> list[str]:
    fs = j.fs.fs  # type: ignore[attr-defined]
    sel = pafs.FileSelector(j.root, recursive=True)
    return sorted(i.path for i in fs.get_file_info(sel) if i.type == pafs.FileType.File)


def test_write_list_read_verify_retain_on_s3(s3_endpoint: str) -> None:
    uri = new_bucket(s3_endpoint)
    j = Journal.create(uri)
    assert j.fs.object_store  # type: ignore[attr-defined]
    fill(j, "s", 25, per_segment=10)
    with j.writer("s", partition=1, seal_count=5, seal_age_s=3600) as w:
        for i in range(7):
            w.append([b"p1-%d" % i])
    again = Journal.open(uri)
    assert again.journal_id == j.journal_id and again.partitions("s") == [0, 1]
    assert [m.value for m in again.messages("s", 8, 12)] == [b"s-8", b"s-9", b"s-10", b"s-11"]
    assert again.count("s") == 32
    # One PUT per segment: no temporary objects, no copy+delete left behind.
    names = _objects(j)
    assert not [n for n in names if "/.tmp-" in n]
    assert sum("/seg-" in n for n in names) == 5
    planned = again.segments("s", 1)
    rows = read_segments(uri, "s", planned, 0, 7)
    values = [v for b in rows for v in b.column("value").to_pylist()]
    assert values == [b"p1-%d" % i for i in range(7)]
    assert main(["verify", uri]) == 0
    assert [g.first for _, g in again.apply_retention(max_bytes=0)] == [0, 10, 0]


def test_s3a_is_s3_and_damage_is_caught(
    s3_endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    uri = new_bucket(s3_endpoint, scheme="s3a")  # Hadoop's spelling, as Spark users write it
    j = Journal.create(uri)
    fill(j, "s", 10, per_segment=10)
    (seg,) = j.segments("s")
    fs = j.fs.fs  # type: ignore[attr-defined]
    path = j.segment_path("s", seg)
    with fs.open_input_stream(path) as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0x20
    with fs.open_output_stream(path) as out:  # the store handing back a damaged object
        out.write(bytes(data))
    with pytest.raises(CorruptSegmentError, match="checksum mismatch"):
        list(Journal.open(uri).read("s"))
    assert main(["verify", uri]) == 1
    assert "BAD s/0" in capsys.readouterr().out


class _NoRename:
    """An S3 filesystem whose move() fails: on an object store a rename is a
    copy then a delete, not atomic; sealing must not need it."""

    def __init__(self, fs: pafs.FileSystem) -> None:
        self._fs = fs
        self.type_name = fs.type_name

    def __getattr__(self, name: str) -> object:
        return getattr(self._fs, name)

    def move(self, src: str, dest: str) -> None:
        raise AssertionError(f"rename {src} -> {dest} on an object store")


def test_sealing_on_an_object_store_is_one_put_not_a_rename(s3_endpoint: str) -> None:
    uri = new_bucket(s3_endpoint)
    fs, inner = pafs.FileSystem.from_uri(uri)
    j = Journal.create(inner, filesystem=_NoRename(fs))
    fill(j, "s", 12, per_segment=5)
    assert [g.count for g in j.segments("s")] == [5, 5, 2]
    assert [m.seq for m in Journal.open(uri).messages("s")] == list(range(12))
