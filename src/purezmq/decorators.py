"""Decorators that give a function a Context or a socket for the duration of a call.

::

    from purezmq.decorators import context, socket

    @context()
    @socket(zmq.PUSH)
    def work(ctx, push):
        ...

Each call gets a new Context (``@context``) or socket (``@socket``), closed
when the function returns, like a ``with`` block. The object is passed as the
keyword argument named by the first string argument or ``name=`` (for
example ``@socket("push", zmq.PUSH)``), or else appended to the positional
arguments. The remaining decorator arguments go to ``Context(...)`` or
``ctx.socket(...)``. ``@socket`` uses the Context passed to the function (as
the ``context_name`` keyword, default ``"context"``, or the first Context
among the positional arguments) or else ``Context.instance()``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar, cast

from purezmq.sugar.context import Context

_F = TypeVar("_F", bound=Callable[..., Any])
_Factory = Callable[..., AbstractContextManager[Any]]


def _split_name(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str | None, tuple[Any, ...]]:
    """The keyword name the object is passed as (and the rest of the positional args)."""
    if isinstance(kwargs.get("name"), str):
        return kwargs.pop("name"), args
    if args and isinstance(args[0], str):
        return args[0], args[1:]
    return None, args


def _decorate(
    factory_for: Callable[[tuple[Any, ...], dict[str, Any]], _Factory],
    name: str | None,
    fargs: tuple[Any, ...],
    fkwargs: dict[str, Any],
) -> Callable[[_F], _F]:
    def decorator(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            factory = factory_for(args, kwargs)
            with factory(*fargs, **fkwargs) as obj:
                if name is None:
                    args = (*args, obj)
                elif name in kwargs:
                    raise TypeError(f"{func.__name__}() got multiple values for argument '{name}'")
                else:
                    kwargs[name] = obj
                return func(*args, **kwargs)

        return cast(_F, wrapper)

    return decorator


def context(*args: Any, **kwargs: Any) -> Callable[[_F], _F]:
    """Decorator: call the function with a new Context, destroyed afterwards.

    ``@context()``, ``@context("ctx")``, ``@context(name="ctx", io_threads=2)``."""
    name, args = _split_name(args, kwargs)
    return _decorate(lambda _a, _k: Context, name, args, kwargs)


def socket(*args: Any, **kwargs: Any) -> Callable[[_F], _F]:
    """Decorator: call the function with a new socket, closed afterwards.

    ``@socket(zmq.PUSH)``, ``@socket("push", zmq.PUSH)``,
    ``@socket(zmq.PUSH, name="push", context_name="ctx")``."""
    name, args = _split_name(args, kwargs)
    context_name = kwargs.pop("context_name", "context")

    def factory_for(call_args: tuple[Any, ...], call_kwargs: dict[str, Any]) -> _Factory:
        ctx = call_kwargs.get(context_name)
        if not isinstance(ctx, Context):
            ctx = next((a for a in call_args if isinstance(a, Context)), None)
        if ctx is None:
            ctx = Context.instance()
        return cast(_Factory, ctx.socket)

    return _decorate(factory_for, name, args, kwargs)


__all__ = ["context", "socket"]
