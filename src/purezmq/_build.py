"""Which build of purezmq is running: the hot modules compiled by mypyc, or
the pure-Python sources (see docs/design.md, "The compiled build").

Both builds install the same ``.py`` files; a compiled wheel adds an
extension module beside each hot one, which the import system prefers. So
the question is answered by what was actually imported, not by how the
package was built: a compiled module whose extension failed to load would
show here as pure.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from types import ModuleType

from purezmq._routing import pipe as _pipe
from purezmq._zmtp import connection as _connection

#: Modules that are compiled in a compiled build: one from each hot layer.
_PROBES: tuple[ModuleType, ...] = (_pipe, _connection)


def is_extension(module: ModuleType) -> bool:
    """Was `module` loaded from an extension module (not a ``.py`` file)?"""
    path = getattr(module, "__file__", None) or ""
    return path.endswith(tuple(EXTENSION_SUFFIXES))


#: True when the hot modules (codec, pipes, routing) run compiled.
COMPILED: bool = all(is_extension(module) for module in _PROBES)
