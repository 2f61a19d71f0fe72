"""What a run ran on: CPU, cores, kernel, Python, pyzmq/libzmq, purezmq."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace").strip()
    except OSError:
        return ""


def _cpuinfo() -> dict[str, str]:
    info: dict[str, str] = {}
    for line in _read("/proc/cpuinfo").splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key in ("model name", "cpu family", "model", "stepping") and key not in info:
            info[key] = value
    return info


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def _version(module: str, attr: str = "__version__") -> str:
    try:
        mod = __import__(module)
        value = getattr(mod, attr)
        return str(value() if callable(value) else value)
    except Exception:
        return "not installed"


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3].rsplit(" ", 1)[0] + "..."


def _virt() -> str:
    """Hypervisor (lscpu) and container (systemd-detect-virt), if any."""
    vendor = ""
    for line in _run(["lscpu"]).splitlines():
        if line.startswith("Hypervisor vendor:"):
            vendor = line.split(":", 1)[1].strip()
    container = _run(["systemd-detect-virt", "--container"]).strip()
    parts = [f"{vendor} VM" if vendor else ""]
    if container and container != "none":
        parts.append(f"{container} container")
    return ", ".join(p for p in parts if p) or "bare metal or unknown"


def describe() -> dict[str, Any]:
    cpu = _cpuinfo()
    meminfo = _read("/proc/meminfo").splitlines()
    mem_kib = next((int(line.split()[1]) for line in meminfo if line.startswith("MemTotal")), 0)
    os_release = dict(
        line.split("=", 1) for line in _read("/etc/os-release").splitlines() if "=" in line
    )
    rev = _git("rev-parse", "--short=12", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    import purezmq

    return {
        "cpu_model": cpu.get("model name", platform.processor()),
        "cpu_family_model": f"family {cpu.get('cpu family', '?')} model {cpu.get('model', '?')}"
        f" stepping {cpu.get('stepping', '?')}",
        "cpus": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [],
        "virtualization": _virt(),
        "cpuidle_driver": _read("/sys/devices/system/cpu/cpuidle/current_driver") or "-",
        "clocksource": _read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        or "-",
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "os": os_release.get("PRETTY_NAME", "").strip('"') or platform.platform(),
        "kernel": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": f"{platform.python_implementation()} {platform.python_version()} "
        f"({platform.python_compiler()})",
        "switch_interval_ms": sys.getswitchinterval() * 1000,
        "pyzmq": _version("zmq", "pyzmq_version"),
        "libzmq": _version("zmq", "zmq_version"),
        "purezmq": str(getattr(purezmq, "__version__", "?")),
        "purezmq_git": (rev + ("+dirty" if dirty else "")) if rev else "unknown",
        "purezmq_git_subject": _short(_git("log", "-1", "--format=%s"), 90),
        "purezmq_modified_files": len(
            _git("status", "--porcelain", "--untracked-files=no").splitlines()
        ),
        "uvloop": _version("uvloop"),
    }
