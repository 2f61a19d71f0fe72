"""Prefix subscriptions: ``Trie`` (SUB/XSUB side) and ``MTrie`` (PUB/XPUB side).

Semantics are libzmq's (src/trie.cpp, src/generic_mtrie_impl.hpp; RFC 29
"SHALL match a message's first frame against subscriptions as a prefix"):
a subscription is a byte prefix, the empty prefix matches every message, and
matching looks at the first frame only.

- ``Trie`` counts subscriptions: ``add`` returns True when a prefix becomes
  present, ``rm`` returns True when its count falls to zero (a SUB subscribing
  twice must unsubscribe twice before the CANCEL goes upstream).
- ``MTrie`` maps each prefix to the *set* of pipes subscribed to it, not a
  count per pipe: libzmq's XPUB records a pipe once per prefix, so a second
  identical subscription from the same pipe is not "new" and one CANCEL
  removes it. ``rm`` returns libzmq's three-way ``rm_result``.
- ``apply`` / ``rm_pipe`` enumerate prefixes in libzmq's order (a depth-first
  walk by increasing byte, i.e. sorted byte order).

Representation (chosen by measurement). libzmq walks a node per byte. In
Python, a per-byte walk costs one dict lookup per byte of the topic, so the
structures here keep a dict keyed by the whole prefix plus the sorted tuple
of distinct prefix lengths present; a match slices the data once per distinct
length. Measured on the project machine (CPython 3.11, 2 vCPUs, ns per
check including the call, topic of about 50 bytes):

=======================================  =========  =========  ==============
subscriptions                            node trie  dict+lens  startswith(t)
=======================================  =========  =========  ==============
empty prefix only                              47        36*          -
one 7-byte prefix, hit                        365       132         93
one 7-byte prefix, miss                        93       121         96
100 prefixes, one length, hit                 412       138        445
1000 prefixes, one length                       -       135       5943
100 prefixes, lengths 7-9                     480       248        392
50 prefixes of 50 distinct lengths           2004      3648        390
=======================================  =========  =========  ==============

(* with the "empty prefix present" flag checked first.) The node trie loses
wherever a match needs several levels, which is the usual case. Dict+lengths
degrades only with many distinct lengths; ``bytes.startswith(tuple)`` runs
in C and wins for few prefixes whatever their lengths. So ``Trie.check`` uses
``startswith`` over all prefixes while that is estimated cheaper (few
prefixes relative to distinct lengths) and dict+lengths otherwise. ``MTrie``
needs *which* prefixes match, so it always uses dict+lengths, with a fast
path for a single length (the common "everyone subscribes to b''" or
"fixed-width topics" cases). tests/unit/routing/bench_routing.py re-measures.

Frames may be any bytes-like object; non-``bytes`` data is converted (only
the prefix needed) when it cannot be hashed or has no ``startswith``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from enum import IntEnum
from typing import Final

from .pipe import Frame, Pipe

#: ns per ``startswith`` candidate versus ns per distinct length (slice+lookup).
_STARTSWITH_WEIGHT: Final = 6
_LENGTH_WEIGHT: Final = 70

_EMPTY: frozenset[Pipe] = frozenset()


def _as_bytes(data: Frame, limit: int) -> bytes:
    """At most `limit` leading bytes of a bytes-like frame, as ``bytes``."""
    if isinstance(data, bytes):
        return data[:limit]
    view = memoryview(data)
    if view.ndim != 1 or view.format not in ("B", "b", "c"):
        view = view.cast("B")
    return bytes(view[:limit])


class _Lengths:
    """Multiset of prefix lengths with a sorted tuple of the distinct ones."""

    __slots__ = ("counts", "sorted")

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.sorted: tuple[int, ...] = ()

    def add(self, n: int) -> None:
        counts = self.counts
        if n in counts:
            counts[n] += 1
        else:
            counts[n] = 1
            self.sorted = tuple(sorted(counts))

    def remove(self, n: int) -> None:
        counts = self.counts
        if counts[n] == 1:
            del counts[n]
            self.sorted = tuple(sorted(counts))
        else:
            counts[n] -= 1


class Trie:
    """Counted prefix subscriptions of a SUB/XSUB (libzmq ``trie_t``)."""

    __slots__ = ("_counts", "_lengths", "_prefixes", "matches_all")

    def __init__(self) -> None:
        self._counts: dict[bytes, int] = {}
        self._lengths = _Lengths()
        #: All prefixes when matching by ``startswith`` is cheaper, else None.
        self._prefixes: tuple[bytes, ...] | None = ()
        #: The empty topic is subscribed: every message matches (SUB skips the
        #: check; "subscribe to everything" is the common case of fan-out).
        self.matches_all = False

    def add(self, prefix: bytes) -> bool:
        """Count one more subscription to `prefix`; True if it is new."""
        counts = self._counts
        n = counts.get(prefix, 0)
        counts[prefix] = n + 1
        if n:
            return False
        self._lengths.add(len(prefix))
        self._choose()
        return True

    def rm(self, prefix: bytes) -> bool:
        """Count one subscription less; True if `prefix` is now gone.

        Removing a prefix that is not subscribed returns False (libzmq's
        "TODO: shouldn't an error be reported").
        """
        counts = self._counts
        n = counts.get(prefix, 0)
        if n > 1:
            counts[prefix] = n - 1
            return False
        if n == 0:
            return False
        del counts[prefix]
        self._lengths.remove(len(prefix))
        self._choose()
        return True

    def _choose(self) -> None:
        counts = self._counts
        n_lengths = len(self._lengths.sorted)
        if len(counts) * _STARTSWITH_WEIGHT <= n_lengths * _LENGTH_WEIGHT or b"" in counts:
            # b"" makes startswith() true at once: the cheapest possible check.
            self._prefixes = (b"",) if b"" in counts else tuple(counts)
        else:
            self._prefixes = None
        self.matches_all = b"" in counts

    def check(self, data: Frame) -> bool:
        """Does any subscription prefix `data`? On the receive path of SUB."""
        prefixes = self._prefixes
        if prefixes is not None:
            try:
                found: bool = data.startswith(prefixes)
                return found
            except AttributeError:
                limit = self._lengths.sorted[-1] if prefixes else 0
                return _as_bytes(data, limit).startswith(prefixes)
        counts = self._counts
        size = len(data)
        try:
            for n in self._lengths.sorted:
                if n > size:
                    break
                if data[:n] in counts:
                    return True
        except (TypeError, ValueError):  # unhashable slice: bytearray, writable view
            return self.check(_as_bytes(data, self._lengths.sorted[-1]))
        return False

    def apply(self, fn: Callable[[bytes], object]) -> None:
        """Call `fn(prefix)` once per distinct prefix, in libzmq's (sorted) order."""
        for prefix in sorted(self._counts):
            fn(prefix)

    def count(self, prefix: bytes) -> int:
        return self._counts.get(prefix, 0)

    def num_prefixes(self) -> int:
        """Distinct prefixes (TOPICS_COUNT)."""
        return len(self._counts)

    def __bool__(self) -> bool:
        return bool(self._counts)


class RmResult(IntEnum):
    """libzmq's ``mtrie_t::rm_result``."""

    NOT_FOUND = 0
    LAST_VALUE_REMOVED = 1
    VALUES_REMAIN = 2


class MTrie:
    """Prefix -> set of subscribed pipes of a PUB/XPUB (libzmq ``mtrie_t``)."""

    __slots__ = ("_by_pipe", "_lengths", "_subs")

    def __init__(self) -> None:
        self._subs: dict[bytes, set[Pipe]] = {}
        self._by_pipe: dict[Pipe, set[bytes]] = {}
        self._lengths = _Lengths()

    def add(self, prefix: bytes, pipe: Pipe) -> bool:
        """Subscribe `pipe` to `prefix`; True if no pipe had that prefix before."""
        pipes = self._subs.get(prefix)
        first = pipes is None
        if pipes is None:
            pipes = self._subs[prefix] = set()
            self._lengths.add(len(prefix))
        pipes.add(pipe)
        mine = self._by_pipe.get(pipe)
        if mine is None:
            self._by_pipe[pipe] = {prefix}
        else:
            mine.add(prefix)
        return first

    def rm(self, prefix: bytes, pipe: Pipe) -> RmResult:
        """Unsubscribe `pipe` from `prefix`."""
        pipes = self._subs.get(prefix)
        if pipes is None or pipe not in pipes:
            return RmResult.NOT_FOUND
        self._forget(prefix, pipe)
        if len(pipes) == 1:
            del self._subs[prefix]
            self._lengths.remove(len(prefix))
            return RmResult.LAST_VALUE_REMOVED
        pipes.discard(pipe)
        return RmResult.VALUES_REMAIN

    def _forget(self, prefix: bytes, pipe: Pipe) -> None:
        mine = self._by_pipe[pipe]
        mine.discard(prefix)
        if not mine:
            del self._by_pipe[pipe]

    def rm_pipe(
        self, pipe: Pipe, fn: Callable[[bytes], object] | None = None, call_on_uniq: bool = True
    ) -> None:
        """Remove every subscription of `pipe` (it is gone).

        `fn(prefix)` is called, in sorted order, for each prefix that no pipe
        holds any more - or, with ``call_on_uniq=False`` (XPUB_VERBOSER, manual
        mode), for every prefix `pipe` held.
        """
        mine = self._by_pipe.pop(pipe, None)
        if not mine:
            return
        subs = self._subs
        lengths = self._lengths
        for prefix in sorted(mine):
            pipes = subs[prefix]
            pipes.discard(pipe)
            gone = not pipes
            if gone:
                del subs[prefix]
                lengths.remove(len(prefix))
            if fn is not None and (gone or not call_on_uniq):
                fn(prefix)

    def match(self, data: Frame) -> Set[Pipe]:
        """The pipes subscribed to a prefix of `data`. Do not modify the result.

        On the send path of PUB/XPUB: one slice and one dict lookup per distinct
        prefix length; no allocation when only one prefix matches.
        """
        subs = self._subs
        lens = self._lengths.sorted
        try:
            if len(lens) == 1:
                return subs.get(data[: lens[0]], _EMPTY)
            found: Set[Pipe] = _EMPTY
            size = len(data)
            for n in lens:
                if n > size:
                    break
                pipes = subs.get(data[:n])
                if pipes is not None:
                    found = pipes if not found else found | pipes
            return found
        except (TypeError, ValueError):  # unhashable slice: bytearray, writable view
            return self.match(_as_bytes(data, lens[-1]))

    def match_fn(self, data: Frame, fn: Callable[[Pipe], object]) -> None:
        """libzmq's form: call `fn(pipe)` for each matching pipe."""
        for pipe in self.match(data):
            fn(pipe)

    def prefixes(self, pipe: Pipe) -> Iterable[bytes]:
        """The prefixes `pipe` is subscribed to, sorted."""
        return sorted(self._by_pipe.get(pipe, ()))

    def num_prefixes(self) -> int:
        """Distinct prefixes (TOPICS_COUNT)."""
        return len(self._subs)

    def __bool__(self) -> bool:
        return bool(self._subs)
