"""The two kinds of storage a journal lives on.

* ``LocalFS``: a POSIX directory. Writes are durable: a segment is written
  under a hidden temporary name, fsynced, renamed to its final name and the
  directory is fsynced, so after a crash (kill -9, power loss) a sealed name
  always holds a complete file and an unsealed one is never visible. Readers
  memory-map segments. A stream's single writer holds an ``flock``.
* ``ArrowFS``: any ``pyarrow.fs.FileSystem`` (S3, GCS, HDFS, Azure, ...), so a
  Spark cluster can read a journal from shared storage. Segments are written
  under a hidden name and moved into place; object stores make a whole
  object visible at once, so readers still never see half a segment. There is
  no fsync and no lock there: durability is the store's, and the caller must
  make sure one writer per stream.
"""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import MissingExtraError, StreamLockedError
from .layout import TEMP_PREFIX, join


@dataclass(frozen=True)
class Entry:
    """One directory entry: its name, size in bytes, mtime (s) and kind."""

    name: str
    size: int
    mtime: float
    is_dir: bool


class JournalFS(Protocol):
    """What the journal needs from a filesystem."""

    local: bool

    def list(self, path: str) -> list[Entry]:
        """Entries of directory `path`, or [] when it does not exist."""

    def read_bytes(self, path: str) -> bytes:
        """The whole content of a small file."""

    def open_input(self, path: str) -> Any:
        """A pyarrow random-access file (memory-mapped when local)."""

    def write_atomic(self, directory: str, name: str, data: Any) -> None:
        """Make `directory/name` appear with `data` (bytes or a pyarrow Buffer) at once."""

    def delete(self, path: str) -> None:
        """Remove a file; a missing one is not an error."""

    def makedirs(self, path: str) -> None:
        """Create a directory and its parents."""

    def lock(self, directory: str) -> Any:
        """Take the single-writer lock of `directory` (or None); release with unlock."""

    def unlock(self, token: Any) -> None:
        """Release a lock taken with `lock`."""


def _pyarrow_fs() -> Any:
    try:
        import pyarrow.fs as pafs
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise MissingExtraError("pyarrow", "journal") from exc
    return pafs


class LocalFS:
    """A local POSIX directory tree, written with fsync discipline."""

    local = True

    def list(self, path: str) -> list[Entry]:
        out: list[Entry] = []
        try:
            with os.scandir(path) as it:
                for e in it:
                    try:
                        st = e.stat()
                    except FileNotFoundError:  # deleted while listing
                        continue
                    out.append(Entry(e.name, st.st_size, st.st_mtime, e.is_dir()))
        except FileNotFoundError:
            return []
        return out

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    def open_input(self, path: str) -> Any:
        import pyarrow as pa

        return pa.memory_map(path, "r")

    def write_atomic(self, directory: str, name: str, data: Any) -> None:
        tmp = join(directory, f"{TEMP_PREFIX}{uuid.uuid4().hex}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        os.close(fd)
        final = join(directory, name)
        if os.path.exists(final):
            os.unlink(tmp)
            raise FileExistsError(errno.EEXIST, "refusing to overwrite a sealed file", final)
        os.rename(tmp, final)
        self.fsync_dir(directory)

    @staticmethod
    def fsync_dir(directory: str) -> None:
        """Make a rename or unlink in `directory` durable."""
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    def delete(self, path: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)

    def makedirs(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def lock(self, directory: str) -> Any:
        import fcntl

        fd = os.open(join(directory, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StreamLockedError(
                f"{directory} is being written by another process; "
                "a stream has exactly one writer (stop the other capture first)"
            ) from None
        return fd

    def unlock(self, token: Any) -> None:
        if token is not None:
            os.close(token)  # closing the fd releases the flock


class ArrowFS:
    """Any pyarrow filesystem: temp name + move, no fsync, no lock."""

    local = False

    def __init__(self, filesystem: Any) -> None:
        self.fs = filesystem

    def list(self, path: str) -> list[Entry]:
        pafs = _pyarrow_fs()
        sel = pafs.FileSelector(path, allow_not_found=True, recursive=False)
        out = []
        for info in self.fs.get_file_info(sel):
            mtime = info.mtime.timestamp() if info.mtime is not None else 0.0
            out.append(
                Entry(
                    info.base_name,
                    int(info.size or 0),
                    mtime,
                    info.type == pafs.FileType.Directory,
                )
            )
        return out

    def read_bytes(self, path: str) -> bytes:
        with self.fs.open_input_stream(path) as f:
            return bytes(f.read())

    def open_input(self, path: str) -> Any:
        return self.fs.open_input_file(path)

    def write_atomic(self, directory: str, name: str, data: Any) -> None:
        pafs = _pyarrow_fs()
        final = join(directory, name)
        if self.fs.get_file_info(final).type != pafs.FileType.NotFound:
            raise FileExistsError(errno.EEXIST, "refusing to overwrite a sealed file", final)
        tmp = join(directory, f"{TEMP_PREFIX}{uuid.uuid4().hex}")
        with self.fs.open_output_stream(tmp) as out:
            out.write(data)
        self.fs.move(tmp, final)

    def delete(self, path: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(path)

    def makedirs(self, path: str) -> None:
        self.fs.create_dir(path, recursive=True)

    def lock(self, directory: str) -> Any:
        return None

    def unlock(self, token: Any) -> None:
        return None


def open_fs(path: str, filesystem: Any = None) -> tuple[JournalFS, str]:
    """The storage for a journal `path` and the path inside it.

    A plain path or ``file://`` URI is a local directory (durable writes); any
    other URI (``s3://bucket/j``, ``gs://...``, ``hdfs://...``) goes through
    ``pyarrow.fs.FileSystem.from_uri``; an explicit pyarrow `filesystem` is used
    as given, with `path` inside it.
    """
    if filesystem is not None:
        return ArrowFS(filesystem), path.rstrip("/") or "/"
    if path.startswith("file://"):
        path = path[len("file://") :]
    elif "://" in path:
        fs, inner = _pyarrow_fs().FileSystem.from_uri(path)
        return ArrowFS(fs), inner.rstrip("/")
    return LocalFS(), os.path.abspath(os.path.expanduser(path))
