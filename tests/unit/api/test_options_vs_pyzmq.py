"""The option table against the real libzmq 4.3.5, through pyzmq.

For every socket option, on every classic socket type, a battery of values
is set on a fresh pyzmq socket and on a fresh `SocketOptions`; the outcome
(accepted, TypeError, OverflowError or ZMQError with its errno) must be the
same, and so must what reading the option (and the options it affects)
returns afterwards. Defaults and context options are compared the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from types import ModuleType
from typing import Any

import pytest

import purezmq.constants as pc
from purezmq._core.options import OPTIONS, ContextOptions, SocketOptions

#: The twelve stable socket types, PAIR to STREAM.
SOCKET_TYPES = [pc.SocketType(number) for number in range(12)]

INT_VALUES: list[Any] = [
    -(2**63) - 1, -(2**63), -(2**31) - 1, -(2**31), -101, -100, -99, -2, -1,
    0, 1, 2, 3, 4, 5, 16, 100, 150, 254, 255, 256, 1000, 65535, 6553599, 6553600,
    2**31 - 1, 2**31, 2**63 - 1, 2**63, True, False, pc.NORM_CCE,
    1.5, "x", b"x", None,
]  # fmt: skip

Z85_KEY = b"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
BYTES_VALUES: list[Any] = [
    b"", b"x", b"\x00abc", b"a" * 15, b"a" * 16, b"a" * 17, b"a" * 254, b"a" * 255,
    b"a" * 256, b"a" * 1000,
    b"X-k:v", b"X-:v", b"X-k:", b"X-ab:", b"k:v", b":v", b"X-Key:a:b",
    b"127.0.0.1", b"10.0.0.0/8", b"10.0.0.0/", b"10.0.0.0/0", b"10.0.0.0/33",
    b"10.0.0.0/8x", b"[10.0.0.1]", b"::1", b"localhost", b"0" * 40, b"lo", b"eth0",
    bytes(32), Z85_KEY, Z85_KEY + b"\x00", Z85_KEY[:20] + bytes(21), b"\x01" * 40,
    bytes(40), bytes(41), bytes(33),
    "x", 1, bytearray(b"x"), memoryview(b"x"), None,
]  # fmt: skip

#: Read after every accepted set: options whose value others may change.
WATCHED = [
    pc.MECHANISM, pc.PLAIN_SERVER, pc.CURVE_SERVER, pc.IPV6, pc.IPV4ONLY,
]  # fmt: skip

#: Options whose value only a live socket knows; compared elsewhere.
DYNAMIC_ELSEWHERE = {pc.EVENTS, pc.FD}

#: Every distinct option number pyzmq knows, plus numbers it does not.
OPTION_NUMBERS = sorted({int(option) for option in pc.SocketOption} | {0, 2, 3, 999})


def outcome(call: Callable[[], Any], zmq_error: type[BaseException]) -> tuple[Any, ...]:
    """What a program observes: a result, or an exception's class and details."""
    try:
        return ("ok", call())
    except zmq_error as exc:
        return ("ZMQError", exc.errno)
    except (TypeError, OverflowError) as exc:
        return (type(exc).__name__, str(exc))


def both_errors(pyzmq: ModuleType) -> tuple[type[BaseException], ...]:
    import purezmq.error

    return (pyzmq.ZMQError, purezmq.error.ZMQError)


@pytest.fixture(scope="module")
def ctx(pyzmq: ModuleType) -> Iterator[Any]:
    context = pyzmq.Context()
    # Thousands of short-lived sockets: libzmq reaps closed ones on its own
    # thread, so on a busy machine the default limit of 1023 live sockets per
    # context was reached now and then (EMFILE, "Too many open files").
    context.set(pyzmq.MAX_SOCKETS, 16384)
    yield context
    context.destroy(linger=0)


class Pair:
    """A fresh pyzmq socket and a fresh SocketOptions of the same type."""

    def __init__(self, pyzmq: ModuleType, ctx: Any, socket_type: int) -> None:
        self.errors = both_errors(pyzmq)
        self.theirs = ctx.socket(socket_type)
        self.ours = SocketOptions(socket_type)

    def close(self) -> None:
        self.theirs.close(linger=0)

    def set(self, option: int, value: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return (
            outcome(partial(self.theirs.set, option, value), self.errors),
            outcome(partial(self.ours.set, option, value), self.errors),
        )

    def read(self, options: list[int]) -> tuple[list[Any], list[Any]]:
        return (
            [outcome(partial(self.theirs.get, o), self.errors) for o in options],
            [outcome(partial(self.ours.get, o), self.errors) for o in options],
        )


def values_for(option: int) -> list[Any]:
    spec = OPTIONS.get(option)
    is_bytes = spec is not None and spec.kind.value in ("binary", "string")
    return BYTES_VALUES if is_bytes else INT_VALUES


@pytest.mark.parametrize("option", OPTION_NUMBERS, ids=lambda n: f"{n}")
def test_setting_matches_libzmq(pyzmq: ModuleType, ctx: Any, option: int) -> None:
    mismatches = []
    for socket_type in SOCKET_TYPES:
        for value in values_for(option):
            pair = Pair(pyzmq, ctx, socket_type)
            try:
                theirs, ours = pair.set(option, value)
                if theirs != ours:
                    mismatches.append((socket_type.name, value, theirs, ours))
                elif theirs[0] == "ok":
                    read_theirs, read_ours = pair.read([option, *WATCHED])
                    if read_theirs != read_ours:
                        mismatches.append((socket_type.name, value, read_theirs, read_ours))
            finally:
                pair.close()
    assert not mismatches, f"{len(mismatches)} differences, first ones: {mismatches[:5]}"


@pytest.mark.parametrize("socket_type", SOCKET_TYPES, ids=lambda t: t.name)
def test_fresh_socket_reports_libzmqs_defaults(
    pyzmq: ModuleType, ctx: Any, socket_type: pc.SocketType
) -> None:
    pair = Pair(pyzmq, ctx, socket_type)
    try:
        numbers = [n for n in OPTION_NUMBERS if n not in DYNAMIC_ELSEWHERE]
        theirs, ours = pair.read(numbers)
    finally:
        pair.close()
    different = [(n, t, o) for n, t, o in zip(numbers, theirs, ours, strict=True) if t != o]
    assert not different
    # The comparison covered real values, not only errors.
    assert sum(1 for t in theirs if t[0] == "ok") > 40


#: Sequences where an option's outcome depends on earlier ones.
SEQUENCES: list[tuple[list[pc.SocketType], list[tuple[int, Any]]]] = [
    (
        [pc.DEALER],
        [
            (pc.TCP_ACCEPT_FILTER, b"::1"),
            (pc.IPV6, 1),
            (pc.TCP_ACCEPT_FILTER, b"::1"),
            (pc.TCP_ACCEPT_FILTER, b"127.0.0.1"),
            (pc.TCP_ACCEPT_FILTER, b"[::1]/64"),
            (pc.TCP_ACCEPT_FILTER, b"::1/129"),
            (pc.TCP_ACCEPT_FILTER, b"fe80::1%lo"),
            (pc.TCP_ACCEPT_FILTER, b"::ffff:10.0.0.1/100"),
        ],
    ),
    ([pc.DEALER], [(pc.IPV4ONLY, 0), (pc.IPV4ONLY, 1), (pc.IPV6, 1), (pc.IPV6, 0)]),
    (
        [pc.XPUB, pc.PUB],
        [
            (pc.SUBSCRIBE, b"a"),
            (pc.XPUB_MANUAL, 1),
            (pc.SUBSCRIBE, b"a"),
            (pc.UNSUBSCRIBE, b"a"),
            (pc.XPUB_MANUAL, 0),
            (pc.UNSUBSCRIBE, b"a"),
            (pc.XPUB_MANUAL_LAST_VALUE, 1),
            (pc.SUBSCRIBE, b""),
            (pc.XPUB_MANUAL_LAST_VALUE, 0),
            (pc.SUBSCRIBE, b""),
        ],
    ),
    (
        [pc.REQ, pc.ROUTER],
        [
            (pc.CURVE_SERVER, 1),
            (pc.PLAIN_USERNAME, b"user"),
            (pc.PLAIN_SERVER, 1),
            (pc.CURVE_SERVERKEY, Z85_KEY),
            (pc.PLAIN_SERVER, 0),
            (pc.CURVE_SERVER, 1),
            (pc.CURVE_SERVER, 0),
            (pc.CURVE_PUBLICKEY, bytes(32)),
            (pc.PLAIN_PASSWORD, b"secret"),
            (pc.CURVE_SECRETKEY, Z85_KEY + b"\x00"),
            (pc.PLAIN_SERVER, 1),
            (pc.CURVE_SERVER, 0),
        ],
    ),
    (
        [pc.PAIR],
        [
            (pc.METADATA, b"X-a:1"),
            (pc.METADATA, b"X-a:2"),
            (pc.ROUTING_ID, b"peer"),
            (pc.ROUTING_ID, b"\x00binary"),
            (pc.LAST_ENDPOINT, b"tcp://x"),
            (pc.SOCKS_USERNAME, b"u"),
            (pc.SOCKS_USERNAME, b""),
            (pc.HEARTBEAT_TTL, 1999),
            (pc.HEARTBEAT_TTL, -99),
        ],
    ),
]


@pytest.mark.parametrize(("socket_types", "steps"), SEQUENCES)
def test_options_that_depend_on_others(
    pyzmq: ModuleType,
    ctx: Any,
    socket_types: list[pc.SocketType],
    steps: list[tuple[int, Any]],
) -> None:
    for socket_type in socket_types:
        pair = Pair(pyzmq, ctx, socket_type)
        try:
            for option, value in steps:
                theirs, ours = pair.set(option, value)
                assert theirs == ours, (socket_type.name, option, value)
                read_theirs, read_ours = pair.read([option, *WATCHED])
                assert read_theirs == read_ours, (socket_type.name, option, value)
        finally:
            pair.close()


# ---------------------------------------------------------------- context

CONTEXT_OPTION_NUMBERS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 42, 70, 81, 99]
CONTEXT_VALUES: list[Any] = [
    -(2**31) - 1, -2, -1, 0, 1, 2, 1023, 1024, 65535, 65536, 2**31 - 1, 2**31,
    True, False, 1.5, "x", b"x", None,
]  # fmt: skip


def context_read(context: Any, option: int, errors: tuple[type[BaseException], ...]) -> Any:
    result = outcome(partial(context.get, option), errors)
    # pyzmq reads a -1 result as an error when the thread's C errno happens
    # to be set (zmq_ctx_get has no other way to report failure). purezmq's
    # -1 is always a value; treat pyzmq's ambiguous case as -1.
    if result[0] == "ZMQError" and option in (4, 9):
        return ("ok", -1)
    return result


@pytest.mark.parametrize("option", CONTEXT_OPTION_NUMBERS)
def test_context_options_match_libzmq(pyzmq: ModuleType, option: int) -> None:
    errors = both_errors(pyzmq)
    fresh = pyzmq.Context()
    try:
        assert context_read(fresh, option, errors) == outcome(
            partial(ContextOptions().get, option), errors
        )
    finally:
        fresh.term()
    for value in CONTEXT_VALUES:
        theirs_ctx, ours_ctx = pyzmq.Context(), ContextOptions()
        try:
            theirs = outcome(partial(theirs_ctx.set, option, value), errors)
            ours = outcome(partial(ours_ctx.set, option, value), errors)
            assert theirs == ours, value
            if theirs[0] == "ok":
                assert context_read(theirs_ctx, option, errors) == outcome(
                    partial(ours_ctx.get, option), errors
                ), value
        finally:
            theirs_ctx.term()


def test_thread_affinity_remove_needs_a_cpu_that_was_added(pyzmq: ModuleType) -> None:
    errors = both_errors(pyzmq)
    theirs_ctx, ours_ctx = pyzmq.Context(), ContextOptions()
    try:
        for option, value in [(8, 0), (7, 0), (7, 1), (8, 0), (8, 0), (8, 1)]:
            assert outcome(partial(theirs_ctx.set, option, value), errors) == outcome(
                partial(ours_ctx.set, option, value), errors
            ), (option, value)
    finally:
        theirs_ctx.term()
    assert ours_ctx.thread_affinity_cpus == frozenset()
