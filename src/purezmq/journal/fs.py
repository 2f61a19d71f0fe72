"""The two kinds of storage a journal lives on.

* ``LocalFS``: a POSIX directory. Writes are durable: a segment is written
  under a hidden temporary name, fsynced, renamed to its final name and the
  directory is fsynced, so after a crash (kill -9, power loss) a sealed name
  always holds a complete file and an unsealed one is never visible. Readers
  memory-map segments. A stream's single writer holds an ``flock``.
* ``ArrowFS``: any ``pyarrow.fs.FileSystem`` (S3, GCS, HDFS, Azure, ...), or
  an fsspec filesystem wrapped in one, so a Spark cluster can read a journal
  from shared storage. On an object store (S3, GCS, Azure) a segment is
  written with one PUT straight to its final name: a PUT (or a multipart
  upload) makes the whole object visible at once or not at all, whereas a
  "rename" there is a copy then a delete - not atomic, twice the traffic,
  and a crash between the two leaves a stray object. On a filesystem with a
  real rename (HDFS, a mounted POSIX path through pyarrow) segments are
  written under a hidden name and moved into place. Either way readers never
  see half a segment, and the CRC32C in every segment's name catches the
  rest (a store that returned a partial object). There is no fsync and no
  lock there: durability is the store's, and the caller must make sure of
  one writer per stream partition.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
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

    def write_atomic(
        self, directory: str, name: str, data: Any, *, overwrite: bool = False
    ) -> None:
        """Make `directory/name` appear with `data` (bytes or a pyarrow Buffer) at once.

        FileExistsError if it exists, unless `overwrite` (journal.json upgrades).
        """

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

    def write_atomic(
        self, directory: str, name: str, data: Any, *, overwrite: bool = False
    ) -> None:
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
        if overwrite:
            os.replace(tmp, final)
        else:
            try:
                # link() fails if `final` exists: no window where a check-then-rename
                # could replace a sealed segment written meanwhile.
                os.link(tmp, final)
            finally:
                os.unlink(tmp)
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


OBJECT_STORES = ("s3", "gcs", "abfs")


class ArrowFS:
    """Any pyarrow filesystem: one PUT on object stores, temp name + move elsewhere."""

    local = False

    def __init__(self, filesystem: Any) -> None:
        self.fs = filesystem
        kind = str(getattr(filesystem, "type_name", ""))
        # fsspec filesystems wrapped by pyarrow report "py::fsspec+<protocols>".
        self.object_store = kind in OBJECT_STORES or (
            kind.startswith("py::fsspec") and any(p in kind for p in ("s3", "gs", "gcs", "abfs"))
        )

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

    def write_atomic(
        self, directory: str, name: str, data: Any, *, overwrite: bool = False
    ) -> None:
        pafs = _pyarrow_fs()
        final = join(directory, name)
        if not overwrite and self.fs.get_file_info(final).type != pafs.FileType.NotFound:
            raise FileExistsError(errno.EEXIST, "refusing to overwrite a sealed file", final)
        if self.object_store:
            # One PUT to the final key: visible whole or not at all.
            self._put(final, data)
            return
        tmp = join(directory, f"{TEMP_PREFIX}{uuid.uuid4().hex}")
        self._put(tmp, data)
        self.fs.move(tmp, final)

    def _put(self, path: str, data: Any) -> None:
        # A process killed before close() never completes the upload (nothing
        # appears); an upload that fails half-way and is closed anyway would
        # publish a short object, which the CRC32C in its name exposes.
        with self.fs.open_output_stream(path) as out:
            out.write(data)

    def delete(self, path: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(path)

    def makedirs(self, path: str) -> None:
        self.fs.create_dir(path, recursive=True)

    def lock(self, directory: str) -> Any:
        return None

    def unlock(self, token: Any) -> None:
        return None


# Hadoop's names for S3 (what Spark users write): the same store as s3://.
_ALIASES = {"s3a": "s3", "s3n": "s3"}


def _from_uri(uri: str) -> tuple[Any, str]:
    """pyarrow's filesystem for `uri`, else fsspec's (wrapped for pyarrow), else an error."""
    scheme, rest = uri.split("://", 1)
    scheme = _ALIASES.get(scheme.lower(), scheme.lower())
    uri = f"{scheme}://{rest}"
    pafs = _pyarrow_fs()
    try:
        return pafs.FileSystem.from_uri(uri)  # type: ignore[no-any-return]
    except (ValueError, OSError) as arrow_exc:
        if "nrecognized filesystem" not in str(arrow_exc) and "libhdfs" not in str(arrow_exc):
            raise
        try:
            url_to_fs = importlib.import_module("fsspec.core").url_to_fs
        except ImportError:
            raise ValueError(
                f"{uri}: pyarrow cannot open it ({arrow_exc}) and fsspec is not installed "
                "(pip install fsspec and the package for that scheme, e.g. gcsfs)"
            ) from arrow_exc
        try:
            fs, inner = url_to_fs(uri)
        except (ValueError, ImportError) as exc:
            raise ValueError(f"{uri}: neither pyarrow nor fsspec can open it ({exc})") from exc
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), inner


def open_fs(path: str, filesystem: Any = None) -> tuple[JournalFS, str]:
    """The storage for a journal `path` and the path inside it.

    A plain path or ``file://`` URI is a local directory (durable writes); any
    other URI (``s3://bucket/j``, ``s3a://`` as Hadoop spells it, ``gs://...``,
    ``hdfs://...``) goes through ``pyarrow.fs.FileSystem.from_uri``, and a
    scheme pyarrow does not know through fsspec (``webhdfs://``, ``memory://``,
    ...) when it is installed; an explicit pyarrow `filesystem` is used as
    given, with `path` inside it. S3 options go in the URI's query
    (``s3://b/j?endpoint_override=host:9000&scheme=http``) or in the
    environment (``AWS_ENDPOINT_URL``, credentials), as pyarrow reads them.
    """
    if filesystem is not None:
        return ArrowFS(filesystem), path.rstrip("/") or "/"
    if path.startswith("file://"):
        path = path[len("file://") :]
    elif "://" in path:
        fs, inner = _from_uri(path)
        return ArrowFS(fs), inner.rstrip("/")
    return LocalFS(), os.path.abspath(os.path.expanduser(path))
