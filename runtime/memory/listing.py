"""One records folder's listing: every record file's stat, and as little else as Python allows.

Checking an unchanged memory is a stat per record file (an edit in place changes nothing but
the file's own stat, so nothing cheaper can see it). At 100k files the stats themselves cost
this machine's kernel most of that check, so the walk around them is kept to the minimum:
the folder is opened once and each file is stat'ed relative to it (no path walk per file),
names are kept as listed (a file's path is only made when the folder changed), and the
folder's names digest is taken in one call over them all. Stdlib only.
"""

from __future__ import annotations

import hashlib
import os
import time
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

Stat = tuple[int, int, int]  # mtime_ns, size, inode
_T = TypeVar("_T")

GENTLE_EVERY = 200
GENTLE_PAUSE = 0.0005
# os.scandir on a descriptor stats each entry relative to it (fstatat): no path walk per file.
_BY_FD = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")


class Listing:
    """The `*.md` files of a records folder in listing order: names, and their stats as
    three columns of machine integers (a tuple of Python ints per file cost 160 bytes of
    each file's ~270 at 100k files); paths made only when asked. `gone`: the positions of
    files that vanished between listing and stat."""

    __slots__ = ("_paths", "folder", "gone", "inodes", "mtimes", "names", "sizes")

    def __init__(self, folder: str, names: list[str]) -> None:
        self.folder = folder
        self.names = names
        self.mtimes = array("q")
        self.sizes = array("q")
        self.inodes = array("Q")
        self.gone: set[int] = set()
        self._paths: dict[str, Stat] | None = None

    def __len__(self) -> int:
        return len(self.names) - len(self.gone)

    def __contains__(self, path: object) -> bool:
        return path in self.as_dict()

    def _kept(self, values: Iterable[_T]) -> Iterator[_T]:
        """`values` (one per listed file) without those of the files gone."""
        if not self.gone:
            return iter(values)
        return (value for n, value in enumerate(values) if n not in self.gone)

    def values(self) -> Iterator[Stat]:
        """Each file's (mtime_ns, size, inode)."""
        return self._kept(zip(self.mtimes, self.sizes, self.inodes, strict=True))

    def items(self) -> Iterator[tuple[str, Stat]]:
        """(path, stat) of every file still there (a path as DirEntry.path would give it)."""
        prefix = os.path.join(self.folder, "")
        named = self._kept(zip(self.names, self.mtimes, self.sizes, self.inodes, strict=True))
        return ((prefix + name, (mtime, size, inode)) for name, mtime, size, inode in named)

    def as_dict(self) -> dict[str, Stat]:
        if self._paths is None:
            self._paths = dict(self.items())
        return self._paths

    def recent(self, since: int) -> list[str]:
        """The paths of the files modified at or after `since` (ns)."""
        prefix = os.path.join(self.folder, "")
        pairs = self._kept(zip(self.names, self.mtimes, strict=True))
        return [prefix + name for name, mtime in pairs if mtime >= since]


def names_digest(names: Sequence[str], inodes: Sequence[int]) -> str:
    """A digest of a folder's record files by (name, inode) in listing order: it changes when
    a file is added, removed, renamed or replaced by a rename, whatever the clock says."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update("\0".join(names).encode("utf-8", "surrogateescape"))
    digest.update(b"\0\0")
    digest.update(array("Q", inodes).tobytes())
    return digest.hexdigest()


def record_names(folder: Path) -> str:
    """The names digest of a records folder now, read without a stat per file ("": none)."""
    names: list[str] = []
    inodes: list[int] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name[0] != "." and name[-3:] == ".md":
                    names.append(name)
                    inodes.append(entry.inode())
    except OSError:
        return ""
    return names_digest(names, inodes)


def list_folder(folder: Path, gentle: bool = False) -> tuple[Listing, str]:
    """The `*.md` files of a records folder (hidden temp files skipped) and their stats, and
    their names digest (`names_digest`). No folder: an empty listing.

    `gentle` (a background thread): hand the GIL over every GENTLE_EVERY files, so the
    thread answering queries never waits a whole switch interval behind the walk.
    """
    where = str(folder)
    names: list[str] = []
    inodes: list[int] = []
    found = Listing(where, names)
    try:
        fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY) if _BY_FD else -1
    except (FileNotFoundError, NotADirectoryError):
        return found, names_digest(names, inodes)
    try:  # the entries stat relative to `fd` itself: it stays open until they are done
        _walk(fd if fd >= 0 else where, found, inodes, gentle)
    except (FileNotFoundError, NotADirectoryError):
        pass
    finally:
        if fd >= 0:
            os.close(fd)
    return found, names_digest(names, inodes)


def _walk(folder: int | str, found: Listing, inodes: list[int], gentle: bool) -> None:
    """Fill `found` (and the inodes the names digest takes: the listing's own, which a
    listing without stats gives too) from one listing of `folder` (a descriptor or a path)."""
    name_of, inode_of = found.names.append, inodes.append
    mtime_of, size_of, ino_of = found.mtimes.append, found.sizes.append, found.inodes.append
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name[0] == "." or name[-3:] != ".md":
                continue
            name_of(name)
            inode_of(entry.inode())
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                found.gone.add(len(found.mtimes))
                mtime_of(0)
                size_of(0)
                ino_of(0)
                continue
            mtime_of(info.st_mtime_ns)
            size_of(info.st_size)
            ino_of(info.st_ino)
            if gentle and len(inodes) % GENTLE_EVERY == 0:
                time.sleep(GENTLE_PAUSE)
