"""The drop-in shim: copied at run time to ``<shim dir>/zmq/__init__.py``.

With ``<shim dir>`` first on ``sys.path`` (PYTHONPATH), ``import zmq`` runs
this file, which makes every ``zmq`` module *be* the purezmq module of the
same name: ``zmq`` is ``purezmq``, ``zmq.sugar.context`` is
``purezmq.sugar.context``, ``zmq.devices`` is ``purezmq.devices`` and so on.
No pyzmq code is involved; the installed pyzmq (if any) is never imported.

It is an import hook rather than a tree of re-exporting files so that there
is exactly one module object per name: a test that assigns
``zmq.sugar.context.Context._instance = None`` changes purezmq's class.

A few pyzmq modules that purezmq does not have (yet) get a placeholder
(`PLACEHOLDERS`), because pyzmq's conftest imports them for every test; the
placeholder raises AttributeError for any name, so only the tests that use
it fail. Every other missing module raises ModuleNotFoundError, as an
absent optional part of pyzmq does (``zmq.green`` without gevent).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

#: pyzmq module -> why purezmq has no such module yet.
PLACEHOLDERS = {
    "zmq.asyncio": "purezmq.asyncio is not implemented yet",
}


class _Placeholder(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"{self.__name__}.{name}: {self.__doc__}")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str | None, reason: str = "") -> None:
        self.target = target
        self.reason = reason
        self.real_spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if self.target is None:
            return _Placeholder(spec.name, self.reason)
        module = importlib.import_module(self.target)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system has just set module.__spec__ to the alias spec;
        # give purezmq's module its own spec back.
        if self.real_spec is not None:
            module.__spec__ = self.real_spec

    # `python -m zmq.something` (runpy) asks the loader for the code.
    def get_code(self, fullname: str) -> Any:
        if self.target is None:
            return compile("", fullname, "exec")
        spec = importlib.util.find_spec(self.target)
        assert spec is not None and spec.loader is not None
        return spec.loader.get_code(self.target)  # type: ignore[attr-defined]

    def is_package(self, fullname: str) -> bool:
        if self.target is None:
            return False
        spec = importlib.util.find_spec(self.target)
        return bool(spec and spec.submodule_search_locations is not None)


class PurezmqAliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``zmq.X`` as ``purezmq.X`` (the same module object)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith("zmq."):
            return None
        real = "purezmq." + fullname[len("zmq.") :]
        try:
            spec = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            if fullname in PLACEHOLDERS:
                return importlib.machinery.ModuleSpec(
                    fullname, _AliasLoader(None, PLACEHOLDERS[fullname])
                )
            return None
        loader = _AliasLoader(real)
        return importlib.machinery.ModuleSpec(
            fullname, loader, is_package=spec.submodule_search_locations is not None
        )


if not any(isinstance(f, PurezmqAliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, PurezmqAliasFinder())

import purezmq  # noqa: E402

sys.modules["zmq"] = purezmq
