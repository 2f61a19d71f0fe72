"""Version functions: purezmq's own version and the libzmq it emulates.

pyzmq programs ask two questions. ``zmq_version()`` asks which libzmq's
behaviour to expect: purezmq implements libzmq 4.3.5 (its options, errors
and ZMTP 3.1 wire protocol), so it answers "4.3.5". ``pyzmq_version()``
asks which binding is running: purezmq does not pretend to be a pyzmq
release, so it answers honestly with purezmq's own version. Code that gates
features on ``pyzmq_version_info() >= (x,)`` will therefore see an early
version number; that is deliberate.
"""

from __future__ import annotations

import re
from importlib import metadata

from purezmq.error import LIBZMQ_VERSION_INFO as _LIBZMQ_VERSION_INFO

#: Used when the package metadata is unavailable (e.g. running from a
#: source tree that was never installed).
_FALLBACK_VERSION = "0.1.0"


def _installed_version() -> str:
    """purezmq's version from the installed distribution's metadata."""
    try:
        return metadata.version("purezmq")
    except metadata.PackageNotFoundError:
        return _FALLBACK_VERSION


__version__: str = _installed_version()

#: Source revision; empty for releases (pyzmq fills it for git builds).
__revision__: str = ""

# "1.2.3", "1.2.3.dev0", "1.2.3rc1": three numbers and an optional suffix.
_match = re.match(r"(\d+)\.(\d+)\.(\d+)(.*)", __version__)
_groups = _match.groups() if _match else ("0", "0", "0", __version__)

VERSION_MAJOR = int(_groups[0])
VERSION_MINOR = int(_groups[1])
VERSION_PATCH = int(_groups[2])
#: Anything after the third number ("dev0", "rc1"), without a leading dot.
VERSION_EXTRA = _groups[3].lstrip(".")

#: (major, minor, patch), plus ``inf`` for pre-releases and development
#: builds so that they sort after the release they lead up to (pyzmq's rule).
version_info: tuple[int, int, int] | tuple[int, int, int, float] = (
    (VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH, float("inf"))
    if VERSION_EXTRA
    else (VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH)
)


def pyzmq_version() -> str:
    """purezmq's version string (the binding's version, not pyzmq's)."""
    if __revision__:
        return f"{__version__}+{__revision__[:6]}"
    return __version__


def pyzmq_version_info() -> tuple[int, int, int] | tuple[int, int, int, float]:
    """purezmq's version as numbers; a 4th item ``inf`` marks a pre-release."""
    return version_info


def zmq_version_info() -> tuple[int, int, int]:
    """(4, 3, 5): the libzmq release whose behaviour purezmq implements."""
    return _LIBZMQ_VERSION_INFO


def zmq_version() -> str:
    """ "4.3.5": the libzmq release whose behaviour purezmq implements."""
    return "{}.{}.{}".format(*_LIBZMQ_VERSION_INFO)


__all__ = [
    "__revision__",
    "__version__",
    "pyzmq_version",
    "pyzmq_version_info",
    "zmq_version",
    "zmq_version_info",
]
