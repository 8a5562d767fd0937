"""Durable file primitives: every byte memhub writes is fsynced, then its folder is.

A write goes to a new file (O_EXCL, no link followed), is fsynced, gets its exact mode, and
is renamed into place; the folder holding it is fsynced after. Given a `SyncSet`, the
primitives record what they wrote instead, and one `SyncSet.flush` makes all of it durable
(see treebatch.py). These are the only ways the write layer creates files and folders.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memhub.compiler.safewrite.errors import WriteError

Tree = dict[str, tuple[bytes, int]]
"""A folder as data: relative POSIX path -> (bytes, permission bits)."""

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def libc_function(name: str, *argtypes: str) -> Any:
    """Linux libc's function `name` taking C `argtypes` ("int", "char_p", "uint") and
    returning an int, or None where it is missing. ctypes is imported here, on first use:
    a run that swaps and syncs no folder never needs it."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True)[name]
    except (OSError, AttributeError):
        return None
    fn.argtypes = [getattr(ctypes, f"c_{kind}") for kind in argtypes]
    fn.restype = ctypes.c_int
    return fn


def c_errno_error(path: str | None = None) -> OSError:
    """The OSError of the last libc call that failed."""
    import ctypes

    code = ctypes.get_errno()
    return OSError(code, os.strerror(code), *(() if path is None else (path,)))


UNLOADED: Any = object()
_SYNCFS: Any = UNLOADED  # the syncfs function, None where there is none; see syncfs_fn


def syncfs_fn() -> Any:
    """syncfs(2), loaded on first use (None where the platform has none)."""
    global _SYNCFS
    if _SYNCFS is UNLOADED:
        _SYNCFS = libc_function("syncfs", "int")
    return _SYNCFS


def _syncfs(fd: int) -> None:
    """Flush every dirty file and folder of the file system holding `fd`."""
    if syncfs_fn()(fd) != 0:
        raise c_errno_error()


class SyncSet:
    """Files and folders written without an fsync, made durable together by `flush`.

    Many small files (a staged skill folder holds two or three) cost one fsync each, and
    each fsync waits for the disk; one syncfs per file system waits once for all of them.
    Where syncfs is missing, `flush` fsyncs the files, then the folders deepest first.
    Paths are kept as strings: a batch of 5,000 skills records tens of thousands.
    """

    def __init__(self) -> None:
        self.files: list[str] = []
        self.dirs: list[str] = []
        self.made: set[str] = set()  # folders `build_tree` created (see `flush`)

    def moved(self, old: Path, new: Path) -> None:
        """Record that the folder `old`, with what is recorded inside it, is now `new`."""
        src, dst = os.fspath(old), os.fspath(new)
        inside = src + os.sep

        def rebase(path: str) -> str:
            if path == src:
                return dst
            return dst + path[len(src) :] if path.startswith(inside) else path

        self.files = [rebase(p) for p in self.files]
        self.dirs = [rebase(p) for p in self.dirs] + [os.path.dirname(dst)]
        self.made = {rebase(p) for p in self.made}

    def add(self, other: SyncSet) -> None:
        """Take over everything recorded in `other`."""
        self.files += other.files
        self.dirs += other.dirs
        self.made |= other.made

    def flush(self) -> None:
        """Make every recorded file and folder durable; the set is empty after."""
        files, dirs, made = self.files, self.dirs, self.made
        self.files, self.dirs, self.made = [], [], set()
        if not files and not dirs:
            return
        if syncfs_fn() is not None:
            folders = set()
            for folder in {*dirs, *map(os.path.dirname, files)}:
                while folder in made:  # a folder just made lies on its parent's file system
                    folder = os.path.dirname(folder)
                folders.add(folder)
            devices: dict[int, str] = {}
            for folder in folders:
                devices.setdefault(os.stat(folder).st_dev, folder)
            for folder in devices.values():
                fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
                try:
                    _syncfs(fd)
                finally:
                    os.close(fd)
            return
        for path in files:
            fd = os.open(path, os.O_RDONLY | _O_CLOEXEC | _O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        for folder in sorted(set(dirs), key=lambda d: -d.count(os.sep)):
            fsync_dir(folder)


def fsync_dir(folder: Path | str) -> None:
    """Make a folder's entries (creations, renames, removals) durable."""
    fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd`."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def create_file(path: Path | str, data: bytes, mode: int, sync: SyncSet | None = None) -> None:
    """Create `path` (it must not exist) holding `data` with exactly `mode`, fsynced (or,
    with `sync`, recorded there to be made durable later)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW, 0o600)
    try:
        _write_all(fd, data)
        if sync is None:
            os.fsync(fd)
        else:
            sync.files.append(os.fspath(path))
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def sibling(path: Path, token: str, tag: str) -> Path:
    """A hidden name beside `path` for memhub's temp, staging or set-aside copy of it."""
    return path.with_name(f".{path.name[:180]}.memhub-{token}.{tag}")


def make_private_dir(folder: Path) -> Path:
    """Create `folder` and any missing parents as 0700 folders; return it."""
    missing = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for each in reversed(missing):
        try:
            os.mkdir(each, 0o700)
        except FileExistsError:
            continue
        os.chmod(each, 0o700)
    return folder


def write_private(path: Path, data: bytes, sync: SyncSet | None = None) -> None:
    """Atomically write one of memhub's own files (0600): temp, fsync, rename, fsync folder
    (with `sync`, both syncs are left to it)."""
    temp = sibling(path, os.urandom(4).hex(), "tmp")
    create_file(temp, data, 0o600, sync)
    try:
        os.replace(temp, path)
    except BaseException:
        discard(temp)
        raise
    if sync is None:
        fsync_dir(path.parent)
    else:
        assert sync.files[-1] == os.fspath(temp)
        sync.files[-1] = os.fspath(path)  # the temp file is now `path`
        sync.dirs.append(os.fspath(path.parent))


def append_records(
    path: Path, records: list[Mapping[str, Any]], sync: SyncSet | None = None
) -> None:
    """Append JSON lines to `path` and fsync them, or leave that to `sync` (a torn last
    line is skipped on read)."""
    payload = b"".join(
        json.dumps(r, sort_keys=True, separators=(",", ":")).encode() + b"\n" for r in records
    )
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_CLOEXEC | _O_NOFOLLOW, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            payload = b"\n" + payload  # end a torn line so it stays one skipped record
        _write_all(fd, payload)
        if sync is None:
            os.fsync(fd)
        if size == 0:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    if sync is not None:
        sync.files.append(os.fspath(path))
        if size == 0:
            sync.dirs.append(os.fspath(path.parent))
    elif size == 0:
        fsync_dir(path.parent)


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole JSON-object line of `path`; torn or garbled lines are skipped."""
    records = []
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def discard(path: Path) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def remove_tree(folder: Path) -> None:
    """Remove one of memhub's own folders."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    os.rmdir(folder)


def build_tree(
    root: Path,
    files: Tree,
    *,
    file_mode: int | None,
    root_mode: int,
    dir_mode: int,
    sync: SyncSet | None = None,
) -> None:
    """Write `files` into the new folder `root` (each file's own mode unless `file_mode`),
    then set folder modes and fsync every folder, deepest first (with `sync`, every file
    and folder is recorded there instead). Plain strings: this runs once per skill."""
    top = os.fspath(root)
    os.mkdir(top, 0o700)
    made = [top]
    have = {""}  # folders made so far, relative to `top`
    links = {rel for rel, (_, mode) in files.items() if stat.S_ISLNK(mode)}
    for rel in sorted(files):
        folder = rel.rpartition("/")[0]
        if folder not in have:
            parts = folder.split("/")
            for depth in range(1, len(parts) + 1):
                sub = "/".join(parts[:depth])
                if sub in have:
                    continue
                if sub in links:  # never write through a link (it may point anywhere)
                    raise WriteError(
                        f"{rel}: lies under {sub}, which is a link. Fix: this is a memhub "
                        "bug; please report it"
                    )
                os.mkdir(os.path.join(top, sub), 0o700)  # `top` is new: nothing is there
                made.append(os.path.join(top, sub))
                have.add(sub)
        data, mode = files[rel]
        if rel in links:  # a link: `data` is its target text, written as it is
            os.symlink(os.fsdecode(data), os.path.join(top, rel))  # its folder is synced below
            continue
        create_file(os.path.join(top, rel), data, mode if file_mode is None else file_mode, sync)
    for each in reversed(made):
        os.chmod(each, root_mode if each == top else dir_mode)
        if sync is None:
            fsync_dir(each)
        else:
            sync.dirs.append(each)
            sync.made.add(each)
