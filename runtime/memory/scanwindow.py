"""A one-shot read's trust window (see service.trust_window): what a full check of a records
folder saw, and whether the files a read returns are still what the index holds.

A folder's own stat changes when a file is added, removed or renamed in it (an editor's and
memhub's save-by-rename too), not when a file is rewritten in place: so a read may trust a
folder whose stat is what a recent full check saw, provided it checks every file it returns
(`stale`). Stdlib only.

A stat taken too close to the change it should show (RACY_NS: coarse or 2 s timestamps) proves
nothing by itself; then the thing itself is compared, once: a returned file's bytes against its
indexed revision, a folder's names and inodes against those the full check listed. A read right
after a write therefore costs a file read and a folder listing without stats, never a rescan.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from . import layout, listing, retrieval
from .index import MemoryIndex
from .retrieval import Answer

TRUST_ENV = "MEMHUB_MEMORY_TRUST_SECONDS"
DEFAULT_TRUST = 30.0
RACY_NS = 2_000_000_000  # as scan.RACY_NS: a stat this close to its check proves nothing
_BATCH = 500  # paths per query: under SQLite's bound-parameter limit

Pair = tuple[str, str | None]


def trust_window() -> float:
    """How long a one-shot read trusts a records folder whose listing is unchanged since its
    last full check: $MEMHUB_MEMORY_TRUST_SECONDS, default 30 (0: check every file's stat on
    every read). Files a read returns are always checked; an in-place edit of another file
    shows within this window."""
    raw = os.environ.get(TRUST_ENV, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_TRUST
    except ValueError:
        return DEFAULT_TRUST
    return value if value >= 0 and value == value else DEFAULT_TRUST


def search_within(
    index: MemoryIndex,
    root: Path,
    pairs: Sequence[Pair],
    window: float,
    query: str,
    *,
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_superseded: bool = False,
    sources: Sequence[str] = ("record",),
    limit: int = 20,
) -> Answer | None:
    """A planned search (retrieval.search) the index alone can answer: every folder of `pairs` as a full check less
    than `window` seconds ago saw it, and every record returned as indexed. None otherwise
    (window 0, a folder changed, a returned file edited, an index never checked): the
    caller checks the files in full and asks again."""
    if window <= 0:
        return None
    try:
        for scope, project, folder in layout.records_folders(root, pairs):
            if not checked_within(index.db, (scope, project), folder, window):
                return None
        answer = retrieval.search(
            index,
            query,
            pairs,
            kinds=kinds,
            tags=tags,
            include_superseded=include_superseded,
            sources=sources,
            limit=limit,
        )
        if stale(index.db, [hit.doc.path for hit in answer.hits if hit.doc.source == "record"]):
            return None
    except sqlite3.DatabaseError:  # no scan tables yet, a busy or damaged index: in full
        return None
    return answer


def folder_mark(folder: Path) -> str:
    """A records folder's own stat, as text."""
    try:
        info = os.stat(folder)
    except OSError:
        return "absent:0"
    return f"{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}:{info.st_mtime_ns}"


record_names = listing.record_names


def save_seen(db: sqlite3.Connection, pair: Pair, mark: str, checked: int, names: str = "") -> None:
    """Remember that a full check starting at `checked` (ns) saw the folder as `mark`, its
    files as `names` (`record_names`)."""
    with contextlib.suppress(sqlite3.OperationalError):  # a busy index: the next read lists
        db.execute(
            "INSERT OR REPLACE INTO scan_meta (key, value) VALUES (?, ?)",
            (_seen_key(pair), f"{mark} {names or '-'} {checked}"),
        )


def checked_within(db: sqlite3.Connection, pair: Pair, folder: Path, window: float) -> bool:
    """Whether the last full check of `folder`, less than `window` seconds ago, saw the
    folder as it is now. A folder changed too close to that check for its stat to prove
    anything (RACY_NS) is compared by its names and inodes instead: one listing, no stats."""
    row = db.execute("SELECT value FROM scan_meta WHERE key = ?", (_seen_key(pair),)).fetchone()
    if row is None:
        return False
    saved, _, checked = str(row[0]).rpartition(" ")
    saved, _, names = saved.rpartition(" ")
    mark = folder_mark(folder)
    age = time.time_ns() - int(checked)
    if saved != mark or not 0 <= age < window * 1e9:
        return False
    mtime = int(mark.rpartition(":")[2])
    return mtime < int(checked) - RACY_NS or (names != "-" and record_names(folder) == names)


def stale(db: sqlite3.Connection, paths: Sequence[str]) -> bool:
    """Whether any of these indexed files is not, on disk, what it was when last checked.
    A file written too soon before that check to trust its stat is read once and its bytes
    compared with the indexed revision."""
    wanted = list(dict.fromkeys(paths))
    rows = _rows(db, wanted)
    for path in wanted:
        row = rows.get(path)
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            return True
        now = (info.st_mtime_ns, info.st_size, info.st_ino)
        if row is None or now != row[:3]:
            return True
        if info.st_mtime_ns >= row[3] - RACY_NS and not holds(path, row[4], info.st_size):
            return True
    return False


def verified(db: sqlite3.Connection, paths: Sequence[str]) -> bool:
    """Whether each of these files holds the revision indexed for it (each read once)."""
    rows = _rows(db, paths)
    return all(path in rows and holds(path, rows[path][4], rows[path][1]) for path in paths)


def _rows(
    db: sqlite3.Connection, paths: Sequence[str]
) -> dict[str, tuple[int, int, int, int, str]]:
    """path -> (mtime_ns, size, inode, checked_ns, revision) as last checked."""
    rows: dict[str, tuple[int, int, int, int, str]] = {}
    wanted = list(dict.fromkeys(paths))
    for start in range(0, len(wanted), _BATCH):
        part = wanted[start : start + _BATCH]
        rows.update(
            (str(r[0]), (int(r[1]), int(r[2]), int(r[3]), int(r[4]), str(r[5])))
            for r in db.execute(
                "SELECT path, mtime_ns, size, inode, checked_ns, revision FROM scan_files"
                f" WHERE path IN ({','.join('?' * len(part))})",
                part,
            )
        )
    return rows


def holds(path: str, rev: str, size: int) -> bool:
    """Whether the file holds exactly the bytes of revision `rev` (the sha256 of its bytes,
    as records.revision): a regular file, never through a link, read once."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return False
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(size + 1)
    except OSError:
        return False
    return hashlib.sha256(data).hexdigest() == rev


def fingerprint(folder: Path, found: listing.Listing) -> tuple[str, int]:
    """An order-free digest of a folder's listing (its own stat, every file's stat), and the
    newest mtime in it. Integer tuples hash the same in every process (only str hashing is
    salted); a different Python may hash them differently, which only costs one full check.
    """
    try:
        info = os.stat(folder)
        own = (info.st_mtime_ns, info.st_ino)
    except OSError:
        own = (0, 0)
    total = sum(map(hash, found.values())) & 0xFFFF_FFFF_FFFF_FFFF
    # the greatest (mtime, size, inode) holds the greatest mtime: one pass in C
    newest = max(max(found.values(), default=(0,))[0], own[0])
    return f"{own[1]}:{own[0]}:{len(found)}:{total:x}", newest


def _seen_key(pair: Pair) -> str:
    return f"seen:{pair[0]}:{pair[1] or ''}"
