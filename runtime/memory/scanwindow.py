"""A one-shot read's trust window (see service.trust_window): what a full check of a records
folder saw, and whether the files a read returns are still what the index holds.

A folder's own stat changes when a file is added, removed or renamed in it (an editor's and
memhub's save-by-rename too), not when a file is rewritten in place: so a read may trust a
folder whose stat is what a recent full check saw, provided it checks every file it returns
(`stale`). Stdlib only.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from . import layout
from .index import Hit, MemoryIndex

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
) -> list[Hit] | None:
    """A search the index alone can answer: every folder of `pairs` as a full check less
    than `window` seconds ago saw it, and every record returned as indexed. None otherwise
    (window 0, a folder changed, a returned file edited, an index never checked): the
    caller checks the files in full and asks again."""
    if window <= 0:
        return None
    try:
        for scope, project, folder in layout.records_folders(root, pairs):
            if not checked_within(index.db, (scope, project), folder, window):
                return None
        hits = index.search(
            query,
            pairs,
            kinds=kinds,
            tags=tags,
            include_superseded=include_superseded,
            sources=sources,
            limit=limit,
        )
        if stale(index.db, [hit.doc.path for hit in hits if hit.doc.source == "record"]):
            return None
    except sqlite3.DatabaseError:  # no scan tables yet, a busy or damaged index: in full
        return None
    return hits


def folder_mark(folder: Path) -> str:
    """A records folder's own stat, as text."""
    try:
        info = os.stat(folder)
    except OSError:
        return "absent:0"
    return f"{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}:{info.st_mtime_ns}"


def save_seen(db: sqlite3.Connection, pair: Pair, mark: str, checked: int) -> None:
    """Remember that a full check starting at `checked` (ns) saw the folder as `mark`."""
    with contextlib.suppress(sqlite3.OperationalError):  # a busy index: the next read lists
        db.execute(
            "INSERT OR REPLACE INTO scan_meta (key, value) VALUES (?, ?)",
            (_seen_key(pair), f"{mark} {checked}"),
        )


def checked_within(db: sqlite3.Connection, pair: Pair, folder: Path, window: float) -> bool:
    """Whether the last full check of `folder`, less than `window` seconds ago, saw the
    folder as it is now (and not racily: the folder's mtime well before that check)."""
    row = db.execute("SELECT value FROM scan_meta WHERE key = ?", (_seen_key(pair),)).fetchone()
    if row is None:
        return False
    saved, _, checked = str(row[0]).rpartition(" ")
    mark = folder_mark(folder)
    age = time.time_ns() - int(checked)
    mtime = int(mark.rpartition(":")[2])
    return saved == mark and 0 <= age < window * 1e9 and mtime < int(checked) - RACY_NS


def stale(db: sqlite3.Connection, paths: Sequence[str]) -> bool:
    """Whether any of these indexed files is not, on disk, what it was when last checked
    (or was checked too soon after it was written to trust its stat)."""
    wanted = list(dict.fromkeys(paths))
    rows: dict[str, tuple[int, int, int, int]] = {}
    for start in range(0, len(wanted), _BATCH):
        part = wanted[start : start + _BATCH]
        rows.update(
            (str(r[0]), (int(r[1]), int(r[2]), int(r[3]), int(r[4])))
            for r in db.execute(
                "SELECT path, mtime_ns, size, inode, checked_ns FROM scan_files"
                f" WHERE path IN ({','.join('?' * len(part))})",
                part,
            )
        )
    for path in wanted:
        row = rows.get(path)
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            return True
        now = (info.st_mtime_ns, info.st_size, info.st_ino)
        if row is None or now != row[:3] or info.st_mtime_ns >= row[3] - RACY_NS:
            return True
    return False


def _seen_key(pair: Pair) -> str:
    return f"seen:{pair[0]}:{pair[1] or ''}"
