"""Trie / MTrie: examples from libzmq's semantics, then a naive oracle."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from purezmq._routing import trie as trie_module
from purezmq._routing.pipe import Pipe, pipepair
from purezmq._routing.trie import MTrie, RmResult, Trie


def pipes(n: int) -> list[Pipe]:
    return [pipepair(None, None)[0] for _ in range(n)]


# ------------------------------------------------------------------ oracles
class TrieOracle:
    """Counted prefixes, matched by the definition."""

    def __init__(self) -> None:
        self.counts: Counter[bytes] = Counter()

    def add(self, p: bytes) -> bool:
        self.counts[p] += 1
        return self.counts[p] == 1

    def rm(self, p: bytes) -> bool:
        if self.counts[p] == 0:
            return False
        self.counts[p] -= 1
        if self.counts[p] == 0:
            del self.counts[p]
            return True
        return False

    def check(self, data: bytes) -> bool:
        return any(data.startswith(p) for p in self.counts)


class MTrieOracle:
    def __init__(self) -> None:
        self.subs: dict[bytes, set[int]] = {}

    def add(self, p: bytes, pipe: int) -> bool:
        first = p not in self.subs
        self.subs.setdefault(p, set()).add(pipe)
        return first

    def rm(self, p: bytes, pipe: int) -> RmResult:
        s = self.subs.get(p)
        if not s or pipe not in s:
            return RmResult.NOT_FOUND
        s.discard(pipe)
        if not s:
            del self.subs[p]
            return RmResult.LAST_VALUE_REMOVED
        return RmResult.VALUES_REMAIN

    def rm_pipe(self, pipe: int, uniq: bool) -> list[bytes]:
        called = []
        for p in sorted(self.subs):
            s = self.subs[p]
            if pipe in s:
                s.discard(pipe)
                if not s:
                    del self.subs[p]
                if not s or not uniq:
                    called.append(p)
        return called

    def match(self, data: bytes) -> set[int]:
        out: set[int] = set()
        for p, s in self.subs.items():
            if data.startswith(p):
                out |= s
        return out


# ------------------------------------------------------------------ Trie examples
def test_empty_prefix_matches_everything() -> None:
    t = Trie()
    assert not t.check(b"anything")
    assert t.add(b"")
    assert t.check(b"anything")
    assert t.check(b"")


def test_prefix_match_on_first_bytes_only() -> None:
    t = Trie()
    t.add(b"ab")
    assert t.check(b"ab")
    assert t.check(b"abc")
    assert not t.check(b"a")
    assert not t.check(b"xab")


def test_counts() -> None:
    t = Trie()
    assert t.add(b"a")
    assert not t.add(b"a")
    assert not t.rm(b"a")
    assert t.check(b"a")
    assert t.rm(b"a")
    assert not t.check(b"a")
    assert not t.rm(b"a")  # never below zero
    assert t.count(b"a") == 0


def test_apply_is_sorted_and_once_per_prefix() -> None:
    t = Trie()
    for p in (b"b", b"a", b"ab", b"", b"a"):
        t.add(p)
    seen: list[bytes] = []
    t.apply(seen.append)
    assert seen == [b"", b"a", b"ab", b"b"]
    assert t.num_prefixes() == 4


def test_bytes_like_data() -> None:
    t = Trie()
    t.add(b"ab")
    assert t.check(memoryview(b"abc"))
    assert t.check(bytearray(b"abc"))
    assert not t.check(memoryview(bytearray(b"xbc")))
    for i in range(40):  # switch to the dict representation
        t.add(b"k%02d" % i)
    assert t._prefixes is None
    assert t.check(memoryview(b"abc"))
    assert t.check(bytearray(b"k07zz"))
    assert t.check(memoryview(bytearray(b"k39")))
    assert not t.check(bytearray(b"k4"))


def test_representation_switches_both_ways() -> None:
    t = Trie()
    topics = [b"topic%03d" % i for i in range(100)]
    for p in topics:
        t.add(p)
    assert t._prefixes is None  # many same-length prefixes: dict+lengths
    assert t.check(b"topic042-data")
    for p in topics[3:]:
        t.rm(p)
    assert t._prefixes is not None  # few left: startswith
    assert t.check(b"topic002")
    assert not t.check(b"topic042")


# ------------------------------------------------------------------ MTrie examples
def test_mtrie_add_rm_results() -> None:
    a, b = pipes(2)
    m = MTrie()
    assert m.add(b"x", a)
    assert not m.add(b"x", b)
    assert not m.add(b"x", a)  # a set, not a count
    assert m.rm(b"x", a) is RmResult.VALUES_REMAIN
    assert m.rm(b"x", a) is RmResult.NOT_FOUND
    assert m.rm(b"y", a) is RmResult.NOT_FOUND
    assert m.rm(b"x", b) is RmResult.LAST_VALUE_REMOVED
    assert not m


def test_mtrie_match_unions_all_prefix_lengths() -> None:
    a, b, c = pipes(3)
    m = MTrie()
    m.add(b"", a)
    m.add(b"to", b)
    m.add(b"topic", c)
    m.add(b"other", c)
    assert m.match(b"topic.1") == {a, b, c}
    assert m.match(b"tox") == {a, b}
    assert m.match(b"") == {a}
    called: list[Pipe] = []
    m.match_fn(b"to", called.append)
    assert set(called) == {a, b}


def test_mtrie_match_single_length_fast_path() -> None:
    a, b = pipes(2)
    m = MTrie()
    assert m.match(b"abc") == set()
    m.add(b"ab", a)
    m.add(b"cd", b)
    assert m.match(b"abz") == {a}
    assert m.match(b"a") == set()
    assert m.match(bytearray(b"cdz")) == {b}
    assert m.match(memoryview(bytearray(b"abz"))) == {a}


def test_mtrie_rm_pipe_reports_vanished_prefixes_sorted() -> None:
    a, b = pipes(2)
    m = MTrie()
    for p in (b"b", b"a", b"c"):
        m.add(p, a)
    m.add(b"c", b)
    gone: list[bytes] = []
    m.rm_pipe(a, gone.append)
    assert gone == [b"a", b"b"]
    assert m.match(b"c") == {b}
    assert m.match(b"a") == set()
    m.rm_pipe(a, gone.append)  # nothing left: no calls
    assert gone == [b"a", b"b"]


def test_mtrie_rm_pipe_verbose_reports_everything() -> None:
    a, b = pipes(2)
    m = MTrie()
    m.add(b"x", a)
    m.add(b"x", b)
    m.add(b"y", a)
    gone: list[bytes] = []
    m.rm_pipe(a, gone.append, call_on_uniq=False)
    assert gone == [b"x", b"y"]
    assert m.num_prefixes() == 1
    assert list(m.prefixes(b)) == [b"x"]


# ------------------------------------------------------------------ properties
_prefix = st.binary(max_size=3, min_size=0).map(lambda b: bytes(x % 3 + 97 for x in b))
_data = st.binary(max_size=5).map(lambda b: bytes(x % 3 + 97 for x in b))


@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.sampled_from(["add", "rm", "check"]), _prefix, _data), max_size=60),
    st.sampled_from([6, 0, 10**9]),
)
def test_trie_behaves_like_oracle(ops: list[tuple[str, bytes, bytes]], weight: int) -> None:
    """Also with each representation forced (weight 0: always startswith,
    huge: always dict+lengths unless b"" is subscribed)."""
    with patch.object(trie_module, "_STARTSWITH_WEIGHT", weight):
        _run_trie_ops(ops)


def _run_trie_ops(ops: list[tuple[str, bytes, bytes]]) -> None:
    t, o = Trie(), TrieOracle()
    for op, prefix, data in ops:
        if op == "add":
            assert t.add(prefix) == o.add(prefix)
        elif op == "rm":
            assert t.rm(prefix) == o.rm(prefix)
        else:
            assert t.check(data) == o.check(data)
            assert t.check(bytearray(data)) == o.check(data)
        assert t.num_prefixes() == len(o.counts)
        assert t.matches_all == (b"" in o.counts)  # SUB's shortcut
    seen: list[bytes] = []
    t.apply(seen.append)
    assert seen == sorted(o.counts)


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["add", "rm", "match", "rm_pipe", "rm_pipe_verbose"]),
            _prefix,
            st.integers(0, 3),
            _data,
        ),
        max_size=60,
    )
)
def test_mtrie_behaves_like_oracle(ops: list[tuple[str, bytes, int, bytes]]) -> None:
    ps = pipes(4)
    index = {p: i for i, p in enumerate(ps)}
    m, o = MTrie(), MTrieOracle()

    def ids(found: Iterable[Pipe]) -> set[int]:
        return {index[p] for p in found}

    for op, prefix, k, data in ops:
        if op == "add":
            assert m.add(prefix, ps[k]) == o.add(prefix, k)
        elif op == "rm":
            assert m.rm(prefix, ps[k]) == o.rm(prefix, k)
        elif op == "match":
            assert ids(m.match(data)) == o.match(data)
        else:
            uniq = op == "rm_pipe"
            called: list[bytes] = []
            m.rm_pipe(ps[k], called.append, call_on_uniq=uniq)
            assert called == o.rm_pipe(k, uniq)
        assert m.num_prefixes() == len(o.subs)
        for i in range(4):
            assert sorted(m.prefixes(ps[i])) == sorted(p for p, s in o.subs.items() if i in s)
