"""Stat signatures of folders: has anything in a folder changed since it was last read?

As git's index does for a work tree: a folder whose listed entries still have the type,
mode, size, inode, mtime and ctime they had when its bytes were read, holds those bytes.
Listing folders as well as files makes additions and removals show (they change the
mtime of the folder that holds them), and ctime makes a rewrite that puts the old mtime
back show too. Signatures with an entry younger than RACY_NS are not to be kept: a
same-size rewrite in the same clock tick would otherwise go unseen. Stdlib only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from pathlib import Path

RACY_NS = 2_000_000_000


def listing(folder: Path) -> list[str]:
    """Every entry under `folder` (folders, files and links) as sorted relative paths."""
    found = [""]
    pending = [(os.fspath(folder), "")]
    while pending:
        path, rel = pending.pop()
        with os.scandir(path) as items:
            for item in items:
                name = rel + item.name
                found.append(name)
                if item.is_dir(follow_symlinks=False):
                    pending.append((item.path, name + "/"))
    return sorted(found)


def tree_signature(folder: str | os.PathLike[str]) -> tuple[str, int] | None:
    """The signature of a folder and everything under it, listed as it goes (one pass);
    None when it is not a folder or changes while being read."""
    top = os.fspath(folder)
    try:
        info = os.lstat(top)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    lines = [_line("", info)]  # hashed at once: the same digest as line by line
    newest = max(info.st_mtime_ns, info.st_ctime_ns)
    pending = [(top, "")]
    try:
        while pending:
            path, rel = pending.pop()
            with os.scandir(path) as found:
                items = sorted(found, key=_name)
            for item in items:
                entry = item.stat(follow_symlinks=False)
                name = rel + item.name
                lines.append(_line(name, entry))
                newest = max(newest, entry.st_mtime_ns, entry.st_ctime_ns)
                if stat.S_ISDIR(entry.st_mode):
                    pending.append((item.path, name + "/"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    return hashlib.sha256(b"".join(lines)).hexdigest(), newest


def _name(item: os.DirEntry[str]) -> str:
    return item.name


def _line(rel: str, info: os.stat_result) -> bytes:
    return (
        f"{rel}\0{info.st_mode}\0{info.st_size}\0{info.st_ino}\0{info.st_mtime_ns}"
        f"\0{info.st_ctime_ns}\n".encode("utf-8", "surrogateescape")
    )


def signature(folder: str | os.PathLike[str], entries: list[str]) -> tuple[str, int] | None:
    """(digest of the entries' lstat, newest mtime or ctime); None if one has gone."""
    digest = hashlib.sha256()
    newest = 0
    top = os.fspath(folder)
    for rel in entries:
        try:
            info = os.lstat(os.path.join(top, rel) if rel else top)
        except (FileNotFoundError, NotADirectoryError):
            return None
        digest.update(_line(rel, info))
        newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    return digest.hexdigest(), newest


def save_cache(path: Path, data: bytes) -> None:
    """Write a signature cache atomically (temp file + rename), private to the user, best
    effort: a cache that cannot be written is simply not there next time."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only when a cache is saved

        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def settled(sig: tuple[str, int]) -> bool:
    """Whether every entry is old enough for its signature to be trusted later."""
    return sig[1] <= time.time_ns() - RACY_NS
