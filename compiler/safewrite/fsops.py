"""Filesystem primitives on targets: read a file or folder, fingerprint it, create folders
with exact modes, write a file atomically, and swap a whole folder in or out.

Every writer goes through these: a Transaction (journaled, for `apply`), and, outside any
journal, `memhub build` (`stage_and_swap` of its out folder) and `memhub import`
(`stage_tree` of the new hub, `write_atomic` of its .env)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from memhub.compiler.digest import ABSENT, file_digest, tree_digest
from memhub.compiler.safewrite import durable, targetfs
from memhub.compiler.safewrite.durable import (
    SyncSet,
    Tree,
    build_tree,
    create_file,
    fsync_dir,
    sibling,
)
from memhub.compiler.safewrite.errors import WriteError

# -- reading targets ----------------------------------------------------------------------


def read_file(path: Path) -> tuple[bytes | None, int | None]:
    """A file's bytes and permission bits, (None, None) when absent; never blocks (a FIFO,
    device or folder is refused, see targetfs)."""
    return targetfs.read_file(path)


def _walk(folder: Path, *, strict: bool) -> Tree:
    """A folder's files (links as marked entries, or refused when `strict`)."""
    files: Tree = {}
    top = os.fspath(folder)
    for root, dirs, names in os.walk(top):
        for name in sorted(dirs + names):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, top).replace(os.sep, "/")
            info = os.lstat(full)
            if stat.S_ISREG(info.st_mode):
                with open(full, "rb") as handle:
                    files[rel] = (handle.read(), stat.S_IMODE(info.st_mode))
            elif not stat.S_ISDIR(info.st_mode):  # a link or a special file
                if strict:
                    raise WriteError(
                        f"{full}: a link or special file inside a folder memhub replaces. "
                        "Fix: move it out of the folder"
                    )
                link = stat.S_ISLNK(info.st_mode)
                files[rel] = (os.fsencode(os.readlink(full)) if link else b"", info.st_mode)
    return files


def read_folder(path: Path) -> Tree | None:
    """A folder's files by relative path (links and special files marked), None if absent."""
    if not os.path.isdir(path) or os.path.islink(path):
        return None
    return _walk(path, strict=False)


def read_tree(path: Path) -> tuple[Tree | None, int | None]:
    """A folder's files and the folder's own mode, (None, None) when absent."""
    info = targetfs.examine(path)
    if info is None:
        return None, None
    if not stat.S_ISDIR(info.st_mode):
        raise WriteError(f"{path}: is a file where memhub manages a folder. Fix: move it away")
    return _walk(path, strict=True), stat.S_IMODE(info.st_mode)


def fingerprint(path: Path) -> str:
    """`sha256:<hex>` of a file's bytes (or of a folder's files), `absent` when missing."""
    info = targetfs.examine(path)
    if info is None:
        return ABSENT
    if stat.S_ISDIR(info.st_mode):
        return tree_digest(_walk(Path(path), strict=False))
    data, _ = read_file(Path(path))
    return file_digest(data)


# -- folders ------------------------------------------------------------------------------


def private_folder(folder: Path) -> bool:
    """Whether the nearest existing folder grants nothing to group or others."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    except OSError:
        return False


def new_file_mode(
    mode: int | None, current: int | None, folder: Path, default: int | None = None
) -> int:
    """The mode a written path gets: the one asked for, else its own, else `default`
    (for a file: 0644, or 0600 inside a private folder)."""
    if mode is not None:
        return mode
    if current is not None:
        return current
    if default is not None:
        return default
    return 0o600 if private_folder(folder) else 0o644


def missing_dirs(folder: Path) -> list[Path]:
    """The folders to create, outermost first, so that `folder` exists."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return list(reversed(missing))


def mkdir(folder: Path, mode: int, token: str) -> None:
    """Create `folder` with exactly `mode` in one step: made aside, then renamed in."""
    temp = sibling(folder, token, "mkd")
    remove(temp)
    os.mkdir(temp, 0o700)
    os.chmod(temp, mode)
    try:
        os.rename(temp, folder)
    except OSError:
        remove(temp)
        if not folder.is_dir():
            raise
    fsync_dir(folder.parent)


def make_dirs(folders: list[Path], mode: int, token: str) -> None:
    """Create `folders` (outermost first), each with exactly `mode`."""
    for folder in folders:
        if not folder.is_dir():
            mkdir(folder, mode, token)


def remove(path: Path) -> None:
    """Remove a file or folder of ours if it is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


# -- folder swap --------------------------------------------------------------------------


_RENAMEAT2: Any = durable.UNLOADED  # see renameat2_fn


def renameat2_fn() -> Any:
    """glibc's renameat2, loaded on first use (None where it is missing)."""
    global _RENAMEAT2
    if _RENAMEAT2 is durable.UNLOADED:
        _RENAMEAT2 = durable.libc_function("renameat2", "int", "char_p", "int", "char_p", "uint")
    return _RENAMEAT2


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step; False where the system cannot."""
    renameat2 = renameat2_fn()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    error = durable.c_errno_error(str(a))
    if error.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM):
        return False
    raise error


def swap_in(staging: Path, target: Path, aside: Path) -> Path | None:
    """Put the folder `staging` at `target`; return where the old folder went, if any."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        return None
    if _exchange(staging, target):
        return staging
    os.rename(target, aside)
    os.rename(staging, target)
    return aside


def install_tree(staging: Path, target: Path, aside: Path) -> None:
    """Swap the built folder `staging` in at `target`, make it durable, drop the old one."""
    old = swap_in(staging, target, aside)
    fsync_dir(target.parent)
    if old is not None:
        shutil.rmtree(old)


def stage_and_swap(
    target: Path, files: Tree, *, root_mode: int, dir_mode: int, keep_old: bool = False
) -> Path | None:
    """Replace (or create) the folder `target` with exactly `files`, outside any journal:
    built beside it, made durable with one sync, swapped in whole (readers see the old
    folder or the new one, never a mix or none), the old one removed (or, with `keep_old`,
    returned for the caller to remove)."""
    token = os.urandom(4).hex()
    staging = sibling(target, token, "new")
    sync = SyncSet()
    try:
        build_tree(
            staging, files, file_mode=None, root_mode=root_mode, dir_mode=dir_mode, sync=sync
        )
        sync.flush()
        old = swap_in(staging, target, sibling(target, token, "old"))
    except BaseException:
        remove(staging)
        raise
    fsync_dir(target.parent)
    if old is not None and not keep_old:
        with contextlib.suppress(OSError):
            remove(old)
        return None
    return old


def stage_tree(staging: Path, files: Tree, *, dir_mode: int) -> None:
    """Build `files` in the new folder `staging` and make them durable with one sync."""
    sync = SyncSet()
    build_tree(staging, files, file_mode=None, root_mode=0o700, dir_mode=dir_mode, sync=sync)
    sync.flush()


def write_atomic(target: Path, data: bytes, mode: int) -> None:
    """Replace the file `target` with `data` and exactly `mode` in one step, durably."""
    temp = sibling(target, os.urandom(4).hex(), "tmp")
    try:
        put_file(target, data, mode, temp)
    except BaseException:
        remove(temp)
        raise


def put_tree(target: Path, files: Tree, root_mode: int, token: str, tag: str) -> None:
    """Replace (or create) the folder `target` with `files` as one unit."""
    staging = sibling(target, token, f"{tag}new")
    remove(staging)
    dir_mode = 0o700 if private_folder(target.parent) else 0o755
    build_tree(staging, files, file_mode=None, root_mode=root_mode, dir_mode=dir_mode)
    install_tree(staging, target, sibling(target, token, f"{tag}old"))


def drop_tree(target: Path, token: str, tag: str) -> None:
    """Remove the folder `target` as one unit (renamed away, then deleted)."""
    aside = sibling(target, token, f"{tag}old")
    os.rename(target, aside)
    fsync_dir(target.parent)
    shutil.rmtree(aside)


def put_file(target: Path, data: bytes, mode: int, temp: Path) -> None:
    """Replace `target` with `data` atomically (temp file, fsync, mode, rename, fsync)."""
    remove(temp)
    create_file(temp, data, mode)
    os.replace(temp, target)
    fsync_dir(target.parent)
