"""Tornado is optional: purezmq imports without it, and the eventloop modules
raise ImportError saying how to get it (pyzmq raises ImportError there too)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_without_tornado() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["tornado"] = None  # as if tornado were not installed
        import purezmq, purezmq.asyncio, purezmq.devices, purezmq.auth.asyncio
        assert "purezmq.eventloop" not in sys.modules
        for name in ("purezmq.eventloop", "purezmq.eventloop.zmqstream",
                     "purezmq.eventloop.future", "purezmq.eventloop.ioloop"):
            try:
                __import__(name)
            except ImportError as e:
                assert "pip install tornado" in str(e), e
                assert e.name == "tornado", e.name
            else:
                raise AssertionError(name + " imported without tornado")
        print("ok")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
