"""purezmq.sugar.version: the binding's own version, libzmq 4.3.5's behaviour."""

from __future__ import annotations

from importlib import metadata
from types import ModuleType

import pytest

import purezmq.sugar.version as version


def test_pyzmq_version_is_purezmqs_own() -> None:
    vs = version.pyzmq_version()
    assert isinstance(vs, str)
    assert version.__revision__ == ""
    assert vs == version.__version__
    try:
        assert version.__version__ == metadata.version("purezmq")
    except metadata.PackageNotFoundError:
        assert version.__version__ == "0.1.0"


def test_pyzmq_version_info_format() -> None:
    """The rules of pyzmq's own test_version."""
    info = version.pyzmq_version_info()
    assert isinstance(info, tuple)
    assert all(isinstance(n, int) for n in info[:3])
    if version.VERSION_EXTRA:
        assert len(info) == 4
        assert info[-1] == float("inf")
        assert version.VERSION_EXTRA in version.pyzmq_version()
    else:
        assert len(info) == 3
    assert info[:3] == (version.VERSION_MAJOR, version.VERSION_MINOR, version.VERSION_PATCH)


def test_zmq_version_is_the_emulated_libzmq() -> None:
    assert version.zmq_version_info() == (4, 3, 5)
    assert version.zmq_version() == "4.3.5"


def test_zmq_version_matches_the_reference_libzmq(pyzmq: ModuleType) -> None:
    """The libzmq bundled with the reference pyzmq is the one we emulate."""
    assert version.zmq_version() == pyzmq.zmq_version()
    assert version.zmq_version_info() == pyzmq.zmq_version_info()


def test_all_matches_pyzmq(pyzmq: ModuleType) -> None:
    assert sorted(version.__all__) == sorted(pyzmq.sugar.version.__all__)
    for name in version.__all__:
        assert hasattr(version, name)


@pytest.mark.parametrize("name", ["VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH"])
def test_version_parts_are_ints(name: str) -> None:
    assert isinstance(getattr(version, name), int)
