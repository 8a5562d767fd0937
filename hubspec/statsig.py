"""Stat signatures of folders: has anything in a folder changed since it was last read?

As git's index does for a work tree: a folder whose listed entries still have the type,
mode, size, inode, mtime and ctime they had when its bytes were read, holds those bytes.
Listing folders as well as files makes additions and removals show (they change the
mtime of the folder that holds them), and ctime makes a rewrite that puts the old mtime
back show too. Signatures with an entry younger than RACY_NS are not to be kept: a
same-size rewrite in the same clock tick would otherwise go unseen. Stdlib only.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

RACY_NS = 2_000_000_000


def listing(folder: Path) -> list[str]:
    """Every entry under `folder` (folders, files and links) as sorted relative paths."""
    top = os.fspath(folder)
    found = [""]
    for root, dirs, names in os.walk(top):
        base = os.path.relpath(root, top)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        found += [prefix + name for name in dirs + names]
    return sorted(found)


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
        digest.update(
            f"{rel}\0{info.st_mode}\0{info.st_size}\0{info.st_ino}\0{info.st_mtime_ns}"
            f"\0{info.st_ctime_ns}\n".encode("utf-8", "surrogateescape")
        )
        newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    return digest.hexdigest(), newest


def settled(sig: tuple[str, int]) -> bool:
    """Whether every entry is old enough for its signature to be trusted later."""
    return sig[1] <= time.time_ns() - RACY_NS
