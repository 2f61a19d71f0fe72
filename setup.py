"""Build script: the hot modules compiled by mypyc where a C compiler exists.

Everything else about the package lives in pyproject.toml; this file only
decides whether the wheel carries compiled extension modules beside the
pure-Python sources (see docs/design.md, "The compiled build").

- ``PUREZMQ_PURE=1`` in the environment: pure build (a ``py3-none-any`` wheel).
- No working C compiler (or no Python headers): pure build, with a note.
  build_backend/purezmq_backend.py makes that decision, for this file and
  for the build requirements (mypy is asked for only when compiling).
- Editable installs (``pip install -e``): pure, because a compiled module
  placed next to its ``.py`` source would shadow that source.
- ``PUREZMQ_PGO=1``: compiled with a profile from a short training run
  (gcc only; build_backend/purezmq_pgo.py says why and how).
- Any failure while compiling: pure build, with a warning, unless
  ``PUREZMQ_REQUIRE_COMPILED=1`` asks to fail instead (the development
  scripts set it, so a change that breaks the compiled build is seen at once).

The compiled modules are the same source files, so the installed package is
complete either way: the ``.py`` files are always in the wheel and the
import system prefers an extension module over a source file of the same name.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

#: The modules mypyc compiles, relative to src/purezmq: the critical path,
#: chosen by profile (benchmarks/micro). Adding a module is one line here; it
#: must follow the rules of docs/design.md ("The compiled build"). Not here on
#: purpose: the exception modules (not hot, and interpreted code subclasses
#: them) and the mechanisms (tests subclass them).
COMPILED_MODULES = [
    # _zmtp: the frame codec and the connection's data path.
    "_zmtp/bigframe.py",
    "_zmtp/commands.py",
    "_zmtp/connection.py",
    "_zmtp/connection_base.py",
    "_zmtp/decoder.py",
    "_zmtp/frames.py",
    "_zmtp/greeting.py",
    "_zmtp/handshake.py",
    "_zmtp/heartbeat.py",
    "_zmtp/legacy.py",
    "_zmtp/mechanisms/base.py",
    "_zmtp/mechanisms/null.py",
    "_zmtp/metadata.py",
    "_zmtp/socktypes.py",
    "_zmtp/v1.py",
    # _routing: pipes, strategies and the socket types.
    "_routing/dist.py",
    "_routing/fanout_log.py",
    "_routing/fq.py",
    "_routing/lb.py",
    "_routing/pipe.py",
    "_routing/routing_table.py",
    "_routing/trie.py",
    "_routing/patterns/_options.py",
    "_routing/patterns/base.py",
    "_routing/patterns/_draft.py",
    "_routing/patterns/channel.py",
    "_routing/patterns/client.py",
    "_routing/patterns/dealer.py",
    "_routing/patterns/dgram.py",
    "_routing/patterns/dish.py",
    "_routing/patterns/pair.py",
    "_routing/patterns/pub.py",
    "_routing/patterns/pull.py",
    "_routing/patterns/push.py",
    "_routing/patterns/radio.py",
    "_routing/patterns/rep.py",
    "_routing/patterns/req.py",
    "_routing/patterns/router.py",
    "_routing/patterns/scatter.py",
    "_routing/patterns/server.py",
    "_routing/patterns/stream.py",
    "_routing/patterns/sub.py",
    "_routing/patterns/xpub.py",
    "_routing/patterns/xsub.py",
    # _core: the socket's send/receive path, its mailbox, its sessions and
    # their set-up (endpoints, options, security).
    "_core/commands.py",
    "_core/connections.py",
    "_core/endpoints.py",
    "_core/intake.py",
    "_core/mailbox.py",
    "_core/monitor.py",
    "_core/options.py",
    "_core/outflow.py",
    "_core/receiving.py",
    "_core/security.py",
    "_core/session.py",
    "_core/session_config.py",
    "_core/sessions.py",
    "_core/socket_core.py",
    "_core/stats.py",
    "_core/zap.py",
    # _io: the stream engine, its connect/listen set-up and a socket's waits.
    # The asyncio loop's reactor: every readiness and every delivered
    # message of a purezmq.asyncio socket passes through it.
    "_io/aio/ops.py",
    "_io/aio/reactor.py",
    "_io/connecter.py",
    "_io/driver.py",
    "_io/engine.py",
    "_io/engine_core.py",
    "_io/listener.py",
    "_io/signaler.py",
    "_io/threaded/iothread.py",
    "_io/waiter.py",
    # _transport: endpoint parsing and socket tuning, on every connect and accept.
    "_transport/address.py",
    # The facade's per-message entry points (Socket.send/recv of one frame).
    "sugar/_socketbase.py",
]

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "build_backend"))
from purezmq_backend import compile_wanted, flag, note  # noqa: E402
from purezmq_pgo import build_with_profile  # noqa: E402

#: Commands that build extension modules. Others (egg_info, dist_info for the
#: metadata, sdist) get none: compiling is slow, and an sdist must not carry
#: mypyc's generated C.
_BUILD_COMMANDS = {"bdist_wheel", "build", "build_ext", "install", "bdist"}


def _editable() -> bool:
    """Is this an editable install (or an in-place build)? Compiled modules
    would land in src/ next to their sources and shadow them."""
    return any(arg in ("editable_wheel", "develop", "--inplace", "-i") for arg in sys.argv)


def _extensions() -> list[Any]:
    if not _BUILD_COMMANDS.intersection(sys.argv[1:]):
        return []
    if _editable():
        note("editable install: pure Python (compiled modules would shadow src/)")
        return []
    if not compile_wanted():
        return []
    try:
        from mypyc.build import mypycify

        # Paths relative to the project root (the build's working directory):
        # mypy finds the package root itself (src/ has no __init__.py), and
        # mypyc's generated C stays in build/ for the next build to reuse.
        # mypy also reads the modules these import (purezmq/__init__ and what
        # it imports); "silent" keeps their type errors, if any, from failing
        # the build: they are mypy's job in CI, not the compiler's.
        return list(
            mypycify(
                ["--follow-imports=silent", *(f"src/purezmq/{p}" for p in COMPILED_MODULES)],
                opt_level=os.environ.get("PUREZMQ_OPT_LEVEL", "3"),
                group_name="purezmq",
            )
        )
    except (Exception, SystemExit) as exc:
        if flag("PUREZMQ_REQUIRE_COMPILED"):
            raise
        note(f"mypyc failed ({type(exc).__name__}: {exc}); building pure Python")
        return []


class BuildExt(build_ext):
    """build_ext that falls back to the pure sources when compiling fails."""

    def _build_pass(self) -> None:
        """One build of every extension (`build_with_profile` runs two):
        build_ext.run makes its compiler from the option's name (None: the
        default), not from the compiler object the last pass left."""
        self.compiler = self._compiler_option
        super().run()

    def run(self) -> None:
        try:
            if self.extensions and flag("PUREZMQ_PGO") and not self.inplace:
                self.force = True  # both passes compile every object again
                self._compiler_option = self.compiler
                build_with_profile(self.extensions, self._build_pass, self.build_lib)
            else:
                super().run()
        except Exception as exc:
            if flag("PUREZMQ_REQUIRE_COMPILED"):
                raise
            note(f"compiling failed ({type(exc).__name__}: {exc}); installing pure Python")
            for ext in self.extensions:  # nothing half-built (or older) may ship
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            self.extensions = []


class BuildPy(build_py):
    """build_py that also forgets extension modules of earlier builds.

    build/ is kept between builds so that mypyc's unchanged C is not
    compiled again; but a module dropped from `COMPILED_MODULES`, or a pure
    build after a compiled one, must not ship the old extension file, which
    would shadow its source.
    """

    def run(self) -> None:
        import sysconfig

        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        wanted = {
            str(Path(self.build_lib, *ext.name.split("."))) + suffix
            for ext in self.distribution.ext_modules or []
        }
        for path in Path(self.build_lib).rglob(f"*{suffix}"):
            if str(path) not in wanted:
                path.unlink()
        super().run()


_EXTENSIONS = _extensions()
setup(
    ext_modules=_EXTENSIONS,
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
    # A pure build works in a build directory of its own, so that switching
    # between the two builds (scripts/test.sh runs both) leaves the compiled
    # build's outputs in place for its next run.
    options={} if _EXTENSIONS else {"build": {"build_base": "build/pure"}},
)
