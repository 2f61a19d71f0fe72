"""StreamWriter: dense seqs, sealing rules, single writer, crash leftovers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from purezmq.journal import Journal, JournalError, SegmentInfo, StreamLockedError

from .conftest import fill


def test_seqs_are_dense_and_segments_sealed_by_count(journal: Journal) -> None:
    sealed: list[SegmentInfo] = []
    with journal.writer(
        "s", seal_count=4, seal_age_s=3600, on_seal=lambda _, g: sealed.append(g)
    ) as w:
        seqs = [w.append([b"m%d" % i]) for i in range(10)]
        assert w.sealed_end == 8 and w.pending == 2
    assert seqs == list(range(10))
    assert [(g.first, g.end) for g in sealed] == [(0, 4), (4, 8), (8, 10)]
    assert [(g.first, g.end) for g in journal.segments("s")] == [(0, 4), (4, 8), (8, 10)]
    assert all(g.size > 0 for g in journal.segments("s"))


def test_sealing_by_size(journal: Journal) -> None:
    with journal.writer("s", seal_bytes=10_000, seal_age_s=3600) as w:
        for _ in range(30):
            w.append([b"x" * 1000])
        assert w.sealed_end > 0  # a size-triggered seal happened while appending
    counts = [g.count for g in journal.segments("s")]
    assert sum(counts) == 30 and max(counts) <= 10


def test_sealing_by_age(journal: Journal) -> None:
    w = journal.writer("s", seal_age_s=0.05)
    w.append([b"a"])
    assert not w.due()
    deadline = w.deadline()
    assert deadline is not None
    # The clock is a parameter: no sleeping until the age passes.
    assert not w.due(deadline - 0.001)
    assert w.due(deadline + 1e-6)
    seg = w.seal()
    assert seg is not None and (seg.first, seg.end) == (0, 1)
    assert w.seal() is None and w.deadline() is None
    w.close()


def test_numbering_resumes_after_reopen(journal: Journal) -> None:
    fill(journal, "s", 25, per_segment=10)
    with journal.writer("s") as w:
        assert w.next_seq == 25
        assert w.append([b"next"]) == 25
    assert journal.bounds("s") == (0, 26)


def test_unsealed_messages_are_not_visible(journal: Journal) -> None:
    w = journal.writer("s", seal_age_s=3600)
    w.append([b"pending"])
    assert journal.segments("s") == [] and journal.bounds("s") == (0, 0)
    w.close()
    assert journal.count("s") == 1


def test_one_writer_per_stream(journal: Journal) -> None:
    with journal.writer("s"):
        with pytest.raises(StreamLockedError, match="one writer"):
            journal.writer("s")
        journal.writer("other").close()  # other streams are independent
    journal.writer("s").close()  # released on close


def test_leftover_temp_files_are_ignored_then_cleaned(journal: Journal, tmp_path: Path) -> None:
    fill(journal, "s", 5)
    d = journal.partition_path("s")
    junk = os.path.join(d, ".tmp-deadbeef")
    with open(junk, "wb") as f:
        f.write(b"half a segment")
    assert journal.count("s") == 5  # readers never see it
    assert [m.seq for m in journal.messages("s")] == list(range(5))
    journal.writer("s").close()  # the next writer removes it
    assert not os.path.exists(junk)


def test_bad_input_is_refused(journal: Journal) -> None:
    with pytest.raises(ValueError, match="positive"):
        journal.writer("s", seal_bytes=0)
    w = journal.writer("s")
    with pytest.raises(ValueError, match="at least one frame"):
        w.append([])
    w.close()
    with pytest.raises(JournalError, match="closed"):
        w.append([b"late"])
    with pytest.raises(JournalError, match="invalid stream name"):
        journal.writer("../escape")


def test_topic_timestamp_and_frames_are_kept(journal: Journal) -> None:
    with journal.writer("s") as w:
        w.append([b"tick", b"", b"42"], topic=b"tick", timestamp_us=1_700_000_000_000_001)
        w.append([b"solo"])
    a, b = list(journal.messages("s"))
    assert (a.topic, a.frames, a.value, a.timestamp_us) == (
        b"tick", [b"tick", b"", b"42"], b"42", 1_700_000_000_000_001,
    )  # fmt: skip
    assert (b.topic, b.frames, b.value) == (None, [b"solo"], b"solo")
    assert abs(b.timestamp_us / 1e6 - time.time()) < 60


def test_append_many_seals_where_single_appends_would(journal: Journal) -> None:
    sealed: list[SegmentInfo] = []
    with journal.writer("s", seal_count=4, seal_age_s=3600,
                        on_seal=lambda _, g: sealed.append(g)) as w:  # fmt: skip
        assert w.append([b"a"]) == 0
        assert w.append_many([[b"m%d" % i] for i in range(9)]) == 1
        assert w.append_many([]) == 10 and w.pending == 2
    assert [(g.first, g.end) for g in sealed] == [(0, 4), (4, 8), (8, 10)]
    with journal.writer("b", seal_bytes=10_000, seal_age_s=3600) as w:
        w.append_many([[b"x" * 1000] for _ in range(30)], timestamp_us=1_700_000_000_000_000)
    # 1,032 bytes counted per message: the 10th reaches 10,000 and ends the segment.
    assert [g.count for g in journal.segments("b")] == [10, 10, 10]
    msgs = list(journal.messages("b"))
    assert {m.timestamp_us for m in msgs} == {1_700_000_000_000_000}
    assert [m.seq for m in msgs] == list(range(30)) and msgs[5].frames == [b"x" * 1000]


def test_append_many_keeps_frames_topics_and_mixed_topic_modes(journal: Journal) -> None:
    with journal.writer("s", seal_age_s=3600) as w:
        w.append_many([[b"t1", b"a"], [b"t2"], [b"t3", b"b", b"c"]], topic_is_frame0=True)
        w.append([b"solo"])  # no topic: the segment needs a topic column now
        w.append([b"k", b"v"], topic=b"other")
        w.append_many([[b"t4", b"d"]], topic_is_frame0=True)
    got = [(m.topic, m.frames) for m in journal.messages("s")]
    assert got == [
        (b"t1", [b"t1", b"a"]), (b"t2", [b"t2"]), (b"t3", [b"t3", b"b", b"c"]),
        (None, [b"solo"]), (b"other", [b"k", b"v"]), (b"t4", [b"t4", b"d"]),
    ]  # fmt: skip
    with pytest.raises(ValueError, match="at least one frame"):
        journal.writer("e").append_many([[b"x"], []])


def test_sealing_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas the first time pa.array gets a Python list: a
    quarter of a second or more, in the middle of a capture. Segments are built
    from buffers instead."""
    code = (
        "import sys\n"
        "from purezmq.journal import Journal\n"
        f"j = Journal.create({str(tmp_path / 'j')!r})\n"
        "with j.writer('s') as w:\n"
        "    w.append_many([[b'a', b'b'], [b'c']], topic_is_frame0=True)\n"
        "    w.append([b'd'])\n"
        "assert j.count('s') == 3\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
