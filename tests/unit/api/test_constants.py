"""purezmq.constants against pyzmq's: every name, value, enum and alias."""

from __future__ import annotations

import enum
from types import ModuleType

import pytest

import purezmq.constants as pc

ENUM_NAMES = [
    "ContextOption",
    "DeviceType",
    "Errno",
    "Event",
    "Flag",
    "MessageOption",
    "NormMode",
    "PollEvent",
    "ReconnectStop",
    "RouterNotify",
    "SecurityMechanism",
    "SocketOption",
    "SocketType",
]


def _public_ints(module: ModuleType) -> dict[str, int]:
    return {
        name: value
        for name in dir(module)
        if not name.startswith("_") and isinstance(value := getattr(module, name), int)
    }


def test_all_is_the_same_name_set(pyzmq: ModuleType) -> None:
    assert set(pc.__all__) == set(pyzmq.constants.__all__)
    assert len(pc.__all__) == len(set(pc.__all__))
    for name in pc.__all__:
        assert hasattr(pc, name), name


def test_every_constant_has_pyzmqs_value_and_type(pyzmq: ModuleType) -> None:
    theirs = {n: v for n, v in _public_ints(pyzmq.constants).items() if n != "TYPE_CHECKING"}
    ours = _public_ints(pc)
    missing = sorted(set(theirs) - set(ours))
    assert not missing
    for name, value in theirs.items():
        mine = getattr(pc, name)
        assert mine == value, name
        assert type(mine).__name__ == type(value).__name__, name


def test_every_top_level_int_of_pyzmq_is_defined(pyzmq: ModuleType) -> None:
    """Also the ints pyzmq defines outside zmq.constants (IPC_PATH_MAX_LEN...)."""
    for name, value in _public_ints(pyzmq).items():
        assert hasattr(pc, name), f"purezmq.constants lacks {name}"
        if name in ("DRAFT_API", "PYZMQ_DRAFT_API"):
            continue  # the wheel's libzmq has no drafts; purezmq does (test_draft_api_is_on)
        assert getattr(pc, name) == value, name


@pytest.mark.parametrize("enum_name", ENUM_NAMES)
def test_enum_classes_match(pyzmq: ModuleType, enum_name: str) -> None:
    ours: type[enum.Enum] = getattr(pc, enum_name)
    theirs: type[enum.Enum] = getattr(pyzmq.constants, enum_name)
    assert ours.__name__ == theirs.__name__
    # Same kind of enum (IntEnum or IntFlag) and the same base classes.
    assert [b.__name__ for b in ours.__mro__] == [b.__name__ for b in theirs.__mro__]
    # Same members, values and aliasing (an alias's .name is its canonical name).
    assert [(k, int(v), v.name) for k, v in ours.__members__.items()] == [
        (k, int(v), v.name) for k, v in theirs.__members__.items()
    ]
    # Same iteration (canonical members; single bits for IntFlag).
    assert [m.name for m in ours] == [m.name for m in theirs]


def test_module_level_names_are_the_enum_members(pyzmq: ModuleType) -> None:
    for name in pyzmq.constants.__all__:
        theirs = getattr(pyzmq.constants, name)
        if isinstance(theirs, enum.Enum):
            enum_cls = getattr(pc, type(theirs).__name__)
            assert getattr(pc, name) is enum_cls[theirs.name], name


def test_pyzmq_identity_examples() -> None:
    """The examples of pyzmq's own test_constants, against purezmq."""
    assert pc.POLLIN is pc.PollEvent.POLLIN
    assert pc.PUSH is pc.SocketType.PUSH
    assert pc.SUBSCRIBE is pc.SocketOption.SUBSCRIBE
    assert pc.RECONNECT_STOP_AFTER_DISCONNECT is pc.ReconnectStop.AFTER_DISCONNECT
    assert pc.IDENTITY is pc.SocketOption.ROUTING_ID


def test_opt_types_match(pyzmq: ModuleType) -> None:
    for name, option in pyzmq.SocketOption.__members__.items():
        assert pc.SocketOption[name]._opt_type.name == option._opt_type.name, name
    assert [t.name for t in pc._OptType] == [t.name for t in pyzmq.constants._OptType]
    assert [t.value for t in pc._OptType] == [t.value for t in pyzmq.constants._OptType]


def test_opt_type_examples() -> None:
    """pyzmq's test_socket_options, against purezmq."""
    assert pc.IDENTITY._opt_type is pc._OptType.bytes
    assert pc.AFFINITY._opt_type is pc._OptType.int64
    assert pc.CURVE_SERVER._opt_type is pc._OptType.int
    assert pc.FD._opt_type is pc._OptType.fd


@pytest.mark.parametrize("event_name", list(pc.Event.__members__))
def test_event_reprs_name_the_event(event_name: str) -> None:
    assert event_name in repr(pc.Event[event_name])


def test_errno_values_follow_libzmq() -> None:
    hausnumero = 156384712
    own_codes = [pc.EFSM, pc.ENOCOMPATPROTO, pc.ETERM, pc.EMTHREAD]
    assert own_codes == [hausnumero + 51, hausnumero + 52, hausnumero + 53, hausnumero + 54]


def test_draft_api_is_on() -> None:
    """The draft socket types are always built in (docs/drafts.md)."""
    import purezmq

    assert pc.DRAFT_API is True
    assert pc.PYZMQ_DRAFT_API is True
    assert purezmq.has("draft") is True
