"""purezmq.error against pyzmq's: classes, messages, str/repr, pickling."""

from __future__ import annotations

import errno as errno_mod
import pickle
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import purezmq.constants as pc
import purezmq.error as pe

HAUSNUMERO = 156384712
#: Every errno worth comparing: the C library's, libzmq's range, its own codes.
ERRNOS = sorted(
    set(range(200))
    | {int(e) for e in pc.Errno}
    | set(range(HAUSNUMERO, HAUSNUMERO + 60))
    | {-1, 2**31 - 1}
)
CLASS_NAMES = [
    "ZMQBaseError",
    "ZMQError",
    "ZMQBindError",
    "NotDone",
    "ContextTerminated",
    "Again",
    "InterruptedSystemCall",
    "ZMQVersionError",
    "DraftFDWarning",
]


def test_all_matches(pyzmq: ModuleType) -> None:
    assert sorted(pe.__all__) == sorted(pyzmq.error.__all__)


@pytest.mark.parametrize("name", CLASS_NAMES)
def test_class_hierarchy_matches(pyzmq: ModuleType, name: str) -> None:
    ours, theirs = getattr(pe, name), getattr(pyzmq.error, name)
    assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]


def test_subclass_relations() -> None:
    assert issubclass(pe.Again, pe.ZMQError)
    assert issubclass(pe.ContextTerminated, pe.ZMQError)
    assert issubclass(pe.InterruptedSystemCall, pe.ZMQError)
    assert issubclass(pe.InterruptedSystemCall, InterruptedError)
    assert issubclass(pe.ZMQError, pe.ZMQBaseError)
    assert issubclass(pe.ZMQBindError, pe.ZMQBaseError)
    assert issubclass(pe.NotDone, pe.ZMQBaseError)
    assert not issubclass(pe.ZMQVersionError, pe.ZMQBaseError)
    assert issubclass(pe.ZMQVersionError, NotImplementedError)


def test_strerror_matches_libzmq_for_every_errno(pyzmq: ModuleType) -> None:
    different = {n: (pe.strerror(n), pyzmq.strerror(n)) for n in ERRNOS}
    different = {n: pair for n, pair in different.items() if pair[0] != pair[1]}
    assert not different


def test_strerror_knows_libzmqs_own_messages() -> None:
    assert pe.strerror(pc.EFSM) == "Operation cannot be accomplished in current state"
    assert pe.strerror(pc.ETERM) == "Context was terminated"
    assert pe.strerror(pc.ENOCOMPATPROTO) == "The protocol is not compatible with the socket type"
    assert pe.strerror(pc.EMTHREAD) == "No thread available"
    for n in range(10):
        assert isinstance(pe.strerror(n), str)


def _describe(exc: BaseException) -> tuple[Any, ...]:
    """What a program can observe of an exception.

    InterruptedSystemCall's text asks to report the bug to the binding in
    use; that one deliberate difference is normalised away.
    """
    return (
        type(exc).__name__,
        str(exc).replace("report this to pyzmq.", "report this to purezmq."),
        repr(exc).replace("report this to pyzmq.", "report this to purezmq."),
        exc.args,
        getattr(exc, "errno", None),
        type(getattr(exc, "errno", None)).__name__,
        getattr(exc, "strerror", None),
    )


#: Constructions a program may use, as (name, args).
CONSTRUCTIONS: list[tuple[str, tuple[Any, ...]]] = [
    ("ZMQError", (errno_mod.EINVAL,)),
    ("ZMQError", (errno_mod.EINVAL, "custom message")),
    ("ZMQError", (pc.EFSM,)),
    ("ZMQError", (pc.ETERM,)),
    ("ZMQError", (pc.Errno.EHOSTUNREACH,)),
    ("ZMQError", ("just a message",)),
    ("ZMQError", (None, "message without errno")),
    ("Again", ()),
    ("Again", (errno_mod.EAGAIN,)),
    ("Again", (errno_mod.EAGAIN, "ignored message")),
    ("ContextTerminated", ()),
    ("ContextTerminated", (pc.ETERM,)),
    ("ZMQBindError", ("Could not bind socket to random port.",)),
    ("NotDone", ()),
    ("ZMQVersionError", ("4.4",)),
    ("ZMQVersionError", ("4.4.1", "Draft sockets")),
]


def _comparable(exc: BaseException, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`_describe`, minus what cannot match: ZMQError(None, ...) takes its errno
    from zmq_errno(), i.e. libzmq's C errno for pyzmq and the last error raised
    on this thread for purezmq - both depend on what ran before."""
    desc = _describe(exc)
    if args and args[0] is None:
        return (desc[0], desc[1])
    return desc


@pytest.mark.parametrize(("name", "args"), CONSTRUCTIONS)
def test_exceptions_look_the_same(pyzmq: ModuleType, name: str, args: tuple[Any, ...]) -> None:
    ours = getattr(pe, name)(*args)
    theirs = getattr(pyzmq.error, name)(*args)
    assert _comparable(ours, args) == _comparable(theirs, args)


@pytest.mark.parametrize(("name", "args"), CONSTRUCTIONS)
def test_pickling_round_trips_like_pyzmq(
    pyzmq: ModuleType, name: str, args: tuple[Any, ...]
) -> None:
    ours = pickle.loads(pickle.dumps(getattr(pe, name)(*args)))
    theirs = pickle.loads(pickle.dumps(getattr(pyzmq.error, name)(*args)))
    assert _comparable(ours, args) == _comparable(theirs, args)
    assert ours.__dict__.keys() == theirs.__dict__.keys()


def test_interrupted_system_call_differs_only_in_who_to_report_to(pyzmq: ModuleType) -> None:
    """Deliberate: pyzmq's message asks to report to pyzmq; ours to purezmq."""
    ours, theirs = pe.InterruptedSystemCall(), pyzmq.error.InterruptedSystemCall()
    assert str(ours) == str(theirs).replace("pyzmq.", "purezmq.")
    assert (ours.errno, ours.strerror, ours.args) == (theirs.errno, theirs.strerror, theirs.args)
    assert isinstance(ours, InterruptedError)
    again = pickle.loads(pickle.dumps(ours))
    assert (type(again), str(again), again.errno) == (type(ours), str(ours), ours.errno)


@pytest.mark.parametrize("errnum", ERRNOS)
def test_raising_picks_pyzmqs_class(pyzmq: ModuleType, errnum: int) -> None:
    with pytest.raises(pyzmq.ZMQError) as theirs:
        pyzmq.error._check_rc(-1, errno=errnum)
    with pytest.raises(pe.ZMQError) as ours:
        pe.raise_errno(errnum)
    assert _describe(ours.value) == _describe(theirs.value)


def test_check_rc_behaves_like_pyzmq() -> None:
    pe._check_rc(0)
    with pytest.raises(pe.Again):
        pe._check_rc(-1, errno=errno_mod.EAGAIN)
    with pytest.raises(pe.ContextTerminated):
        pe._check_rc(-1, errno=pc.ETERM)
    with pytest.raises(pe.InterruptedSystemCall):
        pe._check_rc(-1, errno=errno_mod.EINTR)


def test_message_reaches_plain_errors_only() -> None:
    with pytest.raises(pe.ZMQError) as info:
        pe.raise_errno(errno_mod.EINVAL, "Invalid argument: SNDHWM must be >= 0")
    assert type(info.value) is pe.ZMQError
    assert str(info.value) == "Invalid argument: SNDHWM must be >= 0"
    assert info.value.errno == errno_mod.EINVAL
    # Again always describes EAGAIN, as pyzmq's does.
    error = pe._error_for(errno_mod.EAGAIN, "no peer")
    assert str(error) == "Resource temporarily unavailable"


def test_zmq_errno_is_the_last_error_of_this_thread() -> None:
    with pytest.raises(pe.Again):
        pe.raise_errno(errno_mod.EAGAIN)
    assert pe.zmq_errno() == errno_mod.EAGAIN
    seen: list[int] = []

    def other_thread() -> None:
        seen.append(pe.zmq_errno())
        with pytest.raises(pe.ZMQError):
            pe.raise_errno(pc.EFSM)
        seen.append(pe.zmq_errno())

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join(timeout=10)
    assert seen == [0, pc.EFSM]
    assert pe.zmq_errno() == errno_mod.EAGAIN
    # ZMQError() without an errno takes the thread's last one.
    assert pe.ZMQError().errno == errno_mod.EAGAIN


def test_version_errors() -> None:
    pe._check_version((4, 3), "Anything")
    pe._check_version((4, 3, 5))
    with pytest.raises(pe.ZMQVersionError) as info:
        pe._check_version((4, 4), "Thread-safe sockets")
    assert str(info.value) == "Thread-safe sockets requires libzmq >= 4.4, have 4.3.5"
    assert info.value.min_version == "4.4"


CATCHERS: list[tuple[str, Callable[[], BaseException]]] = [
    ("Again", pe.Again),
    ("ContextTerminated", pe.ContextTerminated),
    ("InterruptedSystemCall", pe.InterruptedSystemCall),
]


@pytest.mark.parametrize(("name", "make"), CATCHERS)
def test_subclasses_are_caught_as_zmqerror(name: str, make: Callable[[], BaseException]) -> None:
    with pytest.raises(pe.ZMQError):
        raise make()
    with pytest.raises(pe.ZMQBaseError):
        raise make()
