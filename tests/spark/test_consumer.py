"""BatchAssembler: exactly-once batches out of retries, resends and replays."""

from __future__ import annotations

from purezmq.spark.consumer import BatchAssembler
from purezmq.spark.protocol import HeaderPrefix, Marker, PartCommit, encode_marker


def data(q: str, batch: int, part: int, token: str, n: int, attempt: int = 0,
         first: int = 0) -> list[list[bytes]]:  # fmt: skip
    hp = HeaderPrefix(q, batch, part, attempt, token)
    return [[hp.encode(i), b"%s/%d/%d" % (token.encode(), part, i)] for i in range(first, n)]


def commit(q: str, batch: int, *parts: tuple[int, str, int]) -> list[bytes]:
    return [encode_marker(Marker("commit", q, batch, tuple(PartCommit(*p) for p in parts)))]


def feed_all(a: BatchAssembler, msgs: list[list[bytes]]) -> list[tuple[int, list[bytes]]]:
    out = []
    for m in msgs:
        out += [(b.batch, [d.value for d in b]) for b in a.feed(m)]
    return out


def test_a_batch_commits_once_with_its_messages_in_order() -> None:
    a = BatchAssembler()
    got = feed_all(a, data("q", 0, 1, "t1", 2) + data("q", 0, 0, "t0", 3))
    assert got == []
    got = feed_all(a, [commit("q", 0, (0, "t0", 3), (1, "t1", 2))])
    assert got == [(0, [b"t0/0/0", b"t0/0/1", b"t0/0/2", b"t1/1/0", b"t1/1/1"])]
    assert a.last_committed == {"q": 0}
    assert a.stats.committed_messages == 5


def test_marker_before_data_waits_for_all_messages() -> None:
    a = BatchAssembler()
    msgs = data("q", 0, 0, "t", 3)
    assert feed_all(a, [commit("q", 0, (0, "t", 3)), *msgs[:2]]) == []
    assert a.incomplete() == [("q", 0, 1)]
    assert feed_all(a, msgs[2:]) == [(0, [b"t/0/0", b"t/0/1", b"t/0/2"])]
    assert a.incomplete() == []


def test_failed_attempt_and_resends_are_dropped() -> None:
    a = BatchAssembler()
    first_try = data("q", 4, 0, "old", 10)[:6]  # attempt 0 died after 6 messages
    retry = data("q", 4, 0, "new", 10, attempt=1)
    resent = retry[3:5]  # acknowledgements were lost: resent by the sink
    got = feed_all(a, first_try + retry + resent + [commit("q", 4, (0, "new", 10))])
    assert got == [(4, [b"new/0/%d" % i for i in range(10)])]
    assert a.stats.duplicates == 2 and a.stats.discarded_attempts == 1


def test_replayed_batch_after_commit_is_ignored() -> None:
    a = BatchAssembler()
    feed_all(a, [*data("q", 7, 0, "t", 2), commit("q", 7, (0, "t", 2))])
    # The query restarts and replays batch 7 (new token), then goes on with 8.
    again = [*data("q", 7, 0, "t2", 2), commit("q", 7, (0, "t2", 2))]
    assert feed_all(a, again) == []
    assert a.stats.replays == 2 and a.stats.repeated_markers == 1
    assert feed_all(a, [*data("q", 8, 0, "u", 1), commit("q", 8, (0, "u", 1))]) == [(8, [b"u/0/0"])]


def test_batches_commit_in_order_even_if_markers_complete_out_of_order() -> None:
    a = BatchAssembler()
    b0 = data("q", 0, 0, "a", 2)
    b1 = data("q", 1, 0, "b", 1)
    got = feed_all(a, [*b0[:1], commit("q", 0, (0, "a", 2)), *b1, commit("q", 1, (0, "b", 1))])
    assert got == []  # batch 1 is complete but batch 0 is not yet
    got = feed_all(a, b0[1:])
    assert [b for b, _ in got] == [0, 1]


def test_abort_drops_the_batch_and_queries_are_independent() -> None:
    a = BatchAssembler()
    feed_all(a, data("q", 3, 0, "t", 2))
    a.feed([encode_marker(Marker("abort", "q", 3))])
    assert a.stats.aborted == 1 and a.incomplete() == []
    got = feed_all(a, [*data("other", 3, 0, "x", 1), commit("other", 3, (0, "x", 1))])
    assert got == [(3, [b"x/0/0"])] and "q" not in a.last_committed


def test_empty_partitions_and_unframed_messages() -> None:
    a = BatchAssembler()
    assert feed_all(a, [commit("q", 0, (0, "t", 0), (1, "u", 0))]) == [(0, [])]
    a.feed([b"no header here"])
    assert a.stats.unframed == 1


def test_pub_topic_frame() -> None:
    a = BatchAssembler(topic_frame=True)
    hp = HeaderPrefix("q", 0, 0, 0, "t")
    a.feed([b"topic", hp.encode(0), b"v"])
    (batch,) = a.feed([b"topic", *commit("q", 0, (0, "t", 1))])
    assert [(d.topic, d.value, d.header.index) for d in batch] == [(b"topic", b"v", 0)]
