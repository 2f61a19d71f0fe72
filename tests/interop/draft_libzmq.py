"""A libzmq with the draft API, built here, driven through ctypes.

The pyzmq wheel's libzmq has no draft API, and Debian's libzmq5 does not
export the draft symbols (zmq_join, zmq_msg_set_routing_id...). So the
interop tests of the draft types build one:

- the source is the libzmq 4.3.4 that pyzmq 25.1.2's sdist bundles (the
  last pyzmq sdist that ships libzmq's source; later ones download it at
  build time), fetched with ``pip download`` like the drop-in suite's sdist
  and checked against its sha256;
- it is compiled with g++ and ``ZMQ_BUILD_DRAFT_API``, using the sdist's own
  Linux ``platform.hpp``, without the websocket transport (its sha1 is
  missing there), into ``.draft-libzmq/libzmq-draft.so`` (about 40 s on two
  cores, then cached);
- ``PUREZMQ_DRAFT_LIBZMQ=/path/libzmq.so`` uses another build instead (e.g.
  libzmq 4.3.5 configured with ``cmake -DENABLE_DRAFTS=ON``).

`Lib` wraps the few C calls the tests need: sockets, options, bind and
connect, messages with a routing id or a group, join/leave, connect_peer.
Without g++ or the sdist the tests skip and say why - except under CI,
where they fail (scripts/test.sh runs where g++ is installed).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".draft-libzmq"
SDIST_VERSION = "25.1.2"
SDIST = f"pyzmq-{SDIST_VERSION}.tar.gz"
SDIST_SHA256 = "93f1aa311e8bb912e34f004cf186407a4e90eec4f0ecc0efd26056bf7eda0226"
LIBRARY = CACHE / "libzmq-draft.so"

# libzmq's numbers (zmq.h / zmq_draft.h)
SOCKET_TYPES = {
    "SERVER": 12, "CLIENT": 13, "RADIO": 14, "DISH": 15, "GATHER": 16,
    "SCATTER": 17, "DGRAM": 18, "PEER": 19, "CHANNEL": 20,
}  # fmt: skip
ZMQ_LINGER = 17
ZMQ_RCVTIMEO = 27
ZMQ_SNDTIMEO = 28
ZMQ_SNDMORE = 2
ZMQ_RCVMORE = 13
EAGAIN = 11


class _Msg(ctypes.Structure):
    _fields_ = [("data", ctypes.c_ubyte * 64)]  # zmq_msg_t: 64 opaque bytes


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download(cache: Path) -> Path:
    target = cache / SDIST
    if target.exists() and _sha256(target) == SDIST_SHA256:
        return target
    cmd = [sys.executable, "-m", "pip", "download", "--no-binary", "pyzmq", "--no-deps"]
    cmd += [f"pyzmq=={SDIST_VERSION}", "-d", str(cache)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0 or not target.exists():
        raise RuntimeError(f"pip download of {SDIST} failed:\n{proc.stdout}\n{proc.stderr}")
    if _sha256(target) != SDIST_SHA256:
        target.unlink()
        raise RuntimeError(f"{SDIST}: unexpected sha256")
    return target


def build(cache: Path = CACHE) -> Path:
    """Build (or find) the draft libzmq; raises RuntimeError saying why not."""
    if LIBRARY.exists():
        return LIBRARY
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        raise RuntimeError("needs g++ and gcc to build libzmq with the draft API")
    cache.mkdir(parents=True, exist_ok=True)
    sdist = _download(cache)
    src = cache / f"pyzmq-{SDIST_VERSION}"
    with tarfile.open(sdist) as tar:
        members = [
            m
            for m in tar.getmembers()
            if "/bundled/zeromq/" in m.name or "/buildutils/include_linux/" in m.name
        ]
        tar.extractall(cache, members=members, filter="data")
    zmq_src = src / "bundled" / "zeromq" / "src"
    flags = [
        "-O1", "-fPIC", "-w", "-DZMQ_BUILD_DRAFT_API=1", "-DZMQ_USE_TWEETNACL=1",
        "-D_REENTRANT", "-D_THREAD_SAFE",
        f"-I{src / 'buildutils' / 'include_linux'}",
        f"-I{src / 'bundled' / 'zeromq' / 'include'}", f"-I{zmq_src}",
    ]  # fmt: skip
    objs = cache / "obj"
    objs.mkdir(exist_ok=True)
    sources = [p for p in sorted(zmq_src.glob("*.c*")) if not p.name.startswith(("ws_", "wss_"))]

    def compile_one(path: Path) -> Path:
        out = objs / (path.stem + ".o")
        if out.exists() and out.stat().st_mtime >= path.stat().st_mtime:
            return out  # an interrupted build goes on where it stopped
        compiler = ["gcc"] if path.suffix == ".c" else ["g++", "-std=gnu++11"]
        cmd = [*compiler, "-c", *flags, str(path), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"compiling {path.name} failed:\n{proc.stderr[-2000:]}")
        return out

    with ThreadPoolExecutor(max_workers=2) as pool:
        built = list(pool.map(compile_one, sources))
    tmp = LIBRARY.with_suffix(".tmp")
    link = ["g++", "-shared", "-o", str(tmp), *map(str, built), "-lpthread", "-lrt"]
    proc = subprocess.run(link, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"linking libzmq failed:\n{proc.stderr[-2000:]}")
    tmp.rename(LIBRARY)
    return LIBRARY


def library_path() -> Path:
    """The draft libzmq to use; skips (fails under CI) when none can be had."""
    given = os.environ.get("PUREZMQ_DRAFT_LIBZMQ")
    if given:
        return Path(given)
    try:
        return build()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        if os.environ.get("CI"):
            pytest.fail(f"no draft-enabled libzmq for the interop tests: {e}")
        pytest.skip(f"no draft-enabled libzmq: {e}")


class Lib:
    """The C API of a draft libzmq (only what the tests use)."""

    def __init__(self, path: Path) -> None:
        lib = ctypes.CDLL(str(path))
        vp, ip, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        msgp = ctypes.POINTER(_Msg)
        sig = {
            "zmq_ctx_new": (vp, []),
            "zmq_ctx_term": (ip, [vp]),
            "zmq_socket": (vp, [vp, ip]),
            "zmq_close": (ip, [vp]),
            "zmq_setsockopt": (ip, [vp, ip, vp, sz]),
            "zmq_getsockopt": (ip, [vp, ip, vp, ctypes.POINTER(sz)]),
            "zmq_bind": (ip, [vp, ctypes.c_char_p]),
            "zmq_connect": (ip, [vp, ctypes.c_char_p]),
            "zmq_connect_peer": (ctypes.c_uint32, [vp, ctypes.c_char_p]),
            "zmq_join": (ip, [vp, ctypes.c_char_p]),
            "zmq_leave": (ip, [vp, ctypes.c_char_p]),
            "zmq_errno": (ip, []),
            "zmq_strerror": (ctypes.c_char_p, [ip]),
            "zmq_msg_init": (ip, [msgp]),
            "zmq_msg_init_size": (ip, [msgp, sz]),
            "zmq_msg_data": (vp, [msgp]),
            "zmq_msg_size": (sz, [msgp]),
            "zmq_msg_close": (ip, [msgp]),
            "zmq_msg_send": (ip, [msgp, vp, ip]),
            "zmq_msg_recv": (ip, [msgp, vp, ip]),
            "zmq_msg_routing_id": (ctypes.c_uint32, [msgp]),
            "zmq_msg_set_routing_id": (ip, [msgp, ctypes.c_uint32]),
            "zmq_msg_group": (ctypes.c_char_p, [msgp]),
            "zmq_msg_set_group": (ip, [msgp, ctypes.c_char_p]),
            "zmq_msg_more": (ip, [msgp]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        self.lib = lib
        self.ctx = lib.zmq_ctx_new()
        self.sockets: list[LzSocket] = []

    def check(self, rc: int) -> int:
        if rc == -1:
            code = self.lib.zmq_errno()
            raise OSError(code, self.lib.zmq_strerror(code).decode())
        return rc

    def socket(self, type_name: str, timeout_ms: int = 5000) -> LzSocket:
        handle = self.lib.zmq_socket(self.ctx, SOCKET_TYPES[type_name])
        if not handle:
            self.check(-1)
        sock = LzSocket(self, handle)
        for opt, value in ((ZMQ_LINGER, 0), (ZMQ_RCVTIMEO, timeout_ms), (ZMQ_SNDTIMEO, timeout_ms)):
            sock.set_int(opt, value)
        self.sockets.append(sock)
        return sock

    def close(self) -> None:
        for s in self.sockets:
            s.close()
        self.lib.zmq_ctx_term(self.ctx)


class LzSocket:
    """One libzmq socket."""

    def __init__(self, lib: Lib, handle: int) -> None:
        self.lz = lib
        self.handle = handle
        self.closed = False

    def set_int(self, option: int, value: int) -> None:
        v = ctypes.c_int(value)
        c = self.lz.lib
        self.lz.check(c.zmq_setsockopt(self.handle, option, ctypes.byref(v), ctypes.sizeof(v)))

    def bind(self, endpoint: str) -> None:
        self.lz.check(self.lz.lib.zmq_bind(self.handle, endpoint.encode()))

    def connect(self, endpoint: str) -> None:
        self.lz.check(self.lz.lib.zmq_connect(self.handle, endpoint.encode()))

    def connect_peer(self, endpoint: str) -> int:
        rid = int(self.lz.lib.zmq_connect_peer(self.handle, endpoint.encode()))
        if rid == 0:
            self.lz.check(-1)
        return rid

    def join(self, group: str) -> None:
        self.lz.check(self.lz.lib.zmq_join(self.handle, group.encode()))

    def leave(self, group: str) -> None:
        self.lz.check(self.lz.lib.zmq_leave(self.handle, group.encode()))

    def send(
        self, data: bytes, *, routing_id: int = 0, group: str | None = None, more: bool = False
    ) -> None:
        c = self.lz.lib
        msg = _Msg()
        self.lz.check(c.zmq_msg_init_size(ctypes.byref(msg), len(data)))
        ctypes.memmove(c.zmq_msg_data(ctypes.byref(msg)), data, len(data))
        if routing_id:
            self.lz.check(c.zmq_msg_set_routing_id(ctypes.byref(msg), routing_id))
        if group is not None:
            self.lz.check(c.zmq_msg_set_group(ctypes.byref(msg), group.encode()))
        rc = c.zmq_msg_send(ctypes.byref(msg), self.handle, ZMQ_SNDMORE if more else 0)
        if rc == -1:
            c.zmq_msg_close(ctypes.byref(msg))
            self.lz.check(-1)

    def recv(self) -> tuple[bytes, int, str, bool]:
        """(data, routing id, group, more) of the next frame."""
        c = self.lz.lib
        msg = _Msg()
        c.zmq_msg_init(ctypes.byref(msg))
        try:
            self.lz.check(c.zmq_msg_recv(ctypes.byref(msg), self.handle, 0))
            size = c.zmq_msg_size(ctypes.byref(msg))
            data = ctypes.string_at(c.zmq_msg_data(ctypes.byref(msg)), size)
            rid = int(c.zmq_msg_routing_id(ctypes.byref(msg)))
            group = (c.zmq_msg_group(ctypes.byref(msg)) or b"").decode()
            more = bool(c.zmq_msg_more(ctypes.byref(msg)))
            return data, rid, group, more
        finally:
            c.zmq_msg_close(ctypes.byref(msg))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.lz.lib.zmq_close(self.handle)
