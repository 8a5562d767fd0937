"""Record files -> the index: notice what changed on disk, re-index only that.

Every read calls `Scanner.refresh` for the caller's scopes. It lists each scope's records
folder and compares every file's (mtime_ns, size, inode) with a cache kept in the index's own
database (`scan_files`): an unchanged file is neither read nor hashed, so a read over 100k
unchanged files costs a stat each and never parses YAML. A changed stat means the file is
read and hashed; only a changed revision (sha256 of the bytes) is parsed and re-indexed.

A file whose mtime is within RACY_NS of when it was cached is hashed again on the next scan
(git's "racy clean" rule): a same-size edit in the same clock tick is still noticed.

A file that is not a usable record is remembered as a Problem (malformed: file and line;
foreign: a Markdown file without the record marker, left alone) and reported, never repaired.
Stdlib only at import (parsing a changed record imports PyYAML inside frontmatter).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import layout, scanwindow
from .catalog import fields_json
from .frontmatter import RecordError
from .index import IndexDoc, MemoryIndex
from .listing import Listing, list_folder, names_digest
from .recordfile import (
    NotARecord,
    quiet_read,
    read_record_file,
    record_doc,
    same_bytes,
)
from .records import content_hash, revision

__all__ = ["Problem", "ScanResult", "ScanState", "Scanner", "all_pairs", "scope_folders"]

RACY_NS = scanwindow.RACY_NS
RECENT_MAX = 1000  # files just written that an unchanged fingerprint verifies by their bytes
RECORD = "record"
MALFORMED = "malformed"
FOREIGN = "foreign"
VANISHED = "vanished"  # deleted between listing and reading: gone at the next scan

_DDL = (
    "CREATE TABLE IF NOT EXISTS scan_files (path TEXT PRIMARY KEY, scope TEXT NOT NULL,"
    " project TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,"
    " inode INTEGER NOT NULL, checked_ns INTEGER NOT NULL, revision TEXT NOT NULL,"
    " state TEXT NOT NULL, line INTEGER, message TEXT NOT NULL, fix TEXT NOT NULL,"
    " fields TEXT NOT NULL, content TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS scan_files_state ON scan_files (scope, project, state)",
)

Pair = tuple[str, str | None]
_Stat = tuple[int, int, int]  # mtime_ns, size, inode


@dataclass(frozen=True)
class Problem:
    """A file in a records folder that is not a usable record: reported, never repaired."""

    path: str
    line: int | None
    message: str
    fix: str
    state: str  # MALFORMED | FOREIGN

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message} ({self.fix})"


@dataclass(frozen=True)
class ScanResult:
    """What one refresh did: documents written or deleted, and the problem files it knows."""

    changes: int
    problems: tuple[Problem, ...]


# One cached file state: mtime_ns, size, inode, checked_ns, revision, state. A plain tuple,
# straight from SQLite: loading 100k of them is most of a cold read's cost.
_Row = tuple[int, int, int, int, str, str]
_REV, _STATE = 4, 5


scope_folders = layout.records_folders


def all_pairs(root: Path) -> list[Pair]:
    """Every scope with a folder on disk: shared and each valid projects/<id>/."""
    pairs: list[Pair] = [("shared", None)]
    with contextlib.suppress(OSError), os.scandir(root / "projects") as entries:
        for entry in entries:
            try:
                pairs.append(("project", layout.check_name(entry.name, "project id")))
            except layout.UnsafeName:
                continue
    return pairs


def _listing(folder: Path, gentle: bool = False) -> tuple[Listing, str]:
    """The `*.md` files of a records folder and their stats, and the digest of their names
    and inodes (listing.list_folder); none when the folder is reached through a link."""
    if _linked(folder) is not None:  # reported by `problems`; its records leave the index
        return Listing(str(folder), []), names_digest([], [])
    return list_folder(folder, gentle)


class ScanState:
    """What scanners over one index remember between refreshes, shared by the scanners of a
    server's threads (one connection each): each folder's file states as last seen (compared
    in memory instead of reloading the table), the folders fully checked (their stat, when),
    the folder fingerprints, and the lock that keeps their walks one at a time."""

    def __init__(self) -> None:
        self.seen: dict[Pair, dict[str, _Row]] = {}
        self.dirs: dict[Pair, tuple[str, float]] = {}
        self.prints: dict[Pair, tuple[str, int]] = {}  # folder fingerprint, when checked
        self.lock = threading.RLock()


def _linked(folder: Path) -> Path | None:
    """The link on the way from the memory folder to a records folder (`records`, `shared`
    or `<project id>`, `projects`), if any: memhub never follows links in memory, so a
    records folder that is a link (out of MEMHUB_HOME, maybe) is not read."""
    parts = [folder, folder.parent]
    if folder.parent.parent.name == "projects":
        parts.append(folder.parent.parent)
    return next((part for part in parts if os.path.islink(part)), None)


class Scanner:
    """Keeps the index in step with the record files of the scopes it is asked about."""

    def __init__(
        self,
        root: Path,
        index: MemoryIndex,
        *,
        gentle: bool = False,
        state: ScanState | None = None,
    ) -> None:
        self.root = root
        self.index = index
        self.gentle = gentle
        _make_table(index.db)
        state = ScanState() if state is None else state
        self._seen, self._dirs, self._prints = state.seen, state.dirs, state.prints
        self._lock = state.lock

    def refresh(
        self, pairs: Sequence[Pair], *, trust: float = 0.0, window: float = 0.0
    ) -> ScanResult:
        """Bring the index up to date with the files of `pairs`; what changed, what is wrong.

        `trust` > 0: a folder whose own stat is unchanged and whose files were all checked
        less than `trust` seconds ago by this process is not listed again (a long-running
        server's reads). `window` > 0: the same across processes, from the folder stat saved
        at the last full check (a one-shot CLI read; the caller checks what it returns with
        `stale`; see scanwindow.py).
        """
        changes = 0
        for scope, project, folder in scope_folders(self.root, pairs):
            seen = (scanwindow.folder_mark(folder), time.monotonic()) if trust > 0 else None
            if seen is not None and self._trusted((scope, project), seen, trust):
                continue
            if window > 0 and scanwindow.checked_within(
                self.index.db, (scope, project), folder, window
            ):
                continue
            with self._lock:  # one walk at a time: another thread's may have just done it
                if seen is not None and self._trusted((scope, project), seen, trust):
                    continue
                changes += self._refresh_folder(scope, project, folder)
                if seen is not None:  # only now: another thread may trust it at once
                    self._dirs[(scope, project)] = seen
        return ScanResult(changes, tuple(self.problems(pairs)))

    def stale(self, paths: Sequence[str]) -> bool:
        """Whether any of these indexed files changed on disk since it was last checked."""
        return scanwindow.stale(self.index.db, paths)

    def _trusted(self, pair: Pair, now: tuple[str, float], trust: float) -> bool:
        """Whether the folder was fully checked within `trust` seconds and is unchanged since
        (`now`: its stat and the time, taken before any listing)."""
        seen = self._dirs.get(pair)
        return seen is not None and seen[0] == now[0] and now[1] - seen[1] < trust

    def _cached(self, pair: Pair) -> dict[str, _Row]:
        rows = self._seen.get(pair)
        if rows is None:
            rows = {
                row[0]: row[1:]
                for row in self.index.db.execute(
                    "SELECT path, mtime_ns, size, inode, checked_ns, revision, state"
                    " FROM scan_files WHERE scope = ? AND project = ?",
                    (pair[0], pair[1] or ""),
                )
            }
            self._seen[pair] = rows
        return rows

    def _refresh_folder(self, scope: str, project: str | None, folder: Path) -> int:
        """Re-index the changed files of one folder; documents written or deleted."""
        pair = (scope, project)
        started = time.time_ns()  # before the listing: what changes during it is racy
        # a change during the listing makes the next read list
        before = scanwindow.folder_mark(folder)
        listing, names = _listing(folder, self.gentle)
        mark = scanwindow.fingerprint(folder, listing)
        if self._print_trusted(pair, mark, listing, started):
            scanwindow.save_seen(self.index.db, pair, before, started, names)
            return 0  # every file as last indexed: the cache rows are not even loaded
        cached = self._cached(pair)
        found = listing.as_dict()  # the folder changed: every file by its path
        now = time.time_ns()
        docs: list[IndexDoc] = []
        states: list[tuple[object, ...]] = []
        touched: list[tuple[int, int, int, int, str]] = []  # same bytes, new stat
        for path, info in found.items():
            row = cached.get(path)
            if row is not None and row[:3] == info and info[0] < row[3] - RACY_NS:
                continue  # unchanged since it was last read, and not racily so
            if row is not None and same_bytes(Path(path), str(row[_REV])):
                touched.append((*info, now, path))
                continue
            doc, state = self._examine(Path(path), scope, project, row)
            if doc is not None:
                docs.append(doc)
            states.append((path, scope, project or "", *info, now, *state))
        gone = [path for path in cached if path not in found]
        if not states and not gone and not touched:
            self._save_print(self.index.db, pair, mark, started)
            scanwindow.save_seen(self.index.db, pair, before, started, names)
            return 0
        changed = self._commit(pair, cached, (docs, states, touched, gone), mark, started)
        if self._prints.get(pair) == (mark[0], started):  # the commit found nothing late
            scanwindow.save_seen(self.index.db, pair, before, started, names)
        return changed

    def _commit(
        self,
        pair: Pair,
        cached: dict[str, _Row],
        found: tuple[
            list[IndexDoc],
            list[tuple[object, ...]],
            list[tuple[int, int, int, int, str]],
            list[str],
        ],
        mark: tuple[str, int],
        started: int,
    ) -> int:
        """Write what one folder's scan found, as far as it is still true under the lock."""
        docs, states, touched, gone = found
        expected = {str(s[0]): str(s[7]) for s in states if s[8] != RECORD}
        late: set[str] = set()  # changed again by someone else meanwhile: the next read's

        def verify(docs: list[IndexDoc], removed: set[str]) -> tuple[list[IndexDoc], set[str]]:
            kept = [doc for doc in docs if same_bytes(Path(doc.path), doc.revision)]
            late.update({doc.path for doc in docs} - {doc.path for doc in kept})
            for path in removed:
                if path in expected:  # a problem file: still the bytes that were judged?
                    raw = quiet_read(Path(path))
                    if (revision(raw) if raw is not None else "") != expected[path]:
                        late.add(path)
                elif os.path.lexists(path) and _linked(Path(path).parent) is None:
                    late.add(path)  # gone when listed, back now (through a link: never read)
            return kept, removed - late

        def remember(db: sqlite3.Connection) -> None:
            db.executemany(
                "DELETE FROM scan_files WHERE path = ?", [(p,) for p in gone if p not in late]
            )
            db.executemany(
                "UPDATE scan_files SET mtime_ns = ?, size = ?, inode = ?, checked_ns = ?"
                " WHERE path = ?",
                [t for t in touched if t[4] not in late],
            )
            db.executemany(
                "INSERT OR REPLACE INTO scan_files (path, scope, project, mtime_ns, size, inode,"
                " checked_ns, revision, state, line, message, fix, fields, content)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [s for s in states if s[0] not in late],
            )
            if not late:
                self._save_print(db, pair, mark, started)

        removed = [str(s[0]) for s in states if s[8] != RECORD] + gone
        changed = self.index.update(docs, removed, also=remember, verify=verify)
        for path in gone:
            cached.pop(path, None)
        for s in states:
            cached[str(s[0])] = (*s[3:6], s[6], s[7], s[8])  # type: ignore[assignment]
        for m, size, inode, now, path in touched:
            old = cached[path]
            cached[path] = (m, size, inode, now, str(old[_REV]), str(old[_STATE]))
        for path in late:
            cached.pop(path, None)  # examined afresh next time
        return changed.total

    def _print_trusted(
        self, pair: Pair, mark: tuple[str, int], listing: Listing, started: int
    ) -> bool:
        """Whether the folder's fingerprint is the one last indexed. Files changed too close
        to that check for their stats to prove it (RACY_NS) are compared by their bytes,
        once, and this check remembered in place of that one."""
        stored = self._prints.get(pair)
        if stored is None:
            row = self.index.db.execute(
                "SELECT value FROM scan_meta WHERE key = ?", (_print_key(pair),)
            ).fetchone()
            if row is None:
                return False
            digest, _, checked = str(row[0]).rpartition(" ")
            stored = (digest, int(checked))
        if stored[0] != mark[0]:
            return False
        if mark[1] < stored[1] - RACY_NS:
            return True
        recent = listing.recent(stored[1] - RACY_NS)
        if len(recent) > RECENT_MAX or not scanwindow.verified(self.index.db, recent):
            return False
        with contextlib.suppress(sqlite3.OperationalError):  # busy: the next check reads again
            self._save_print(self.index.db, pair, mark, started)
        return True

    def _save_print(
        self, db: sqlite3.Connection, pair: Pair, mark: tuple[str, int], checked: int
    ) -> None:
        db.execute(
            "INSERT OR REPLACE INTO scan_meta (key, value) VALUES (?, ?)",
            (_print_key(pair), f"{mark[0]} {checked}"),
        )
        self._prints[pair] = (mark[0], checked)

    def _examine(
        self, path: Path, scope: str, project: str | None, row: _Row | None
    ) -> tuple[IndexDoc | None, tuple[object, ...]]:
        """A changed file's document (None when its revision is as indexed, or it is no
        record) and its cache state (revision, state, line, message, fix, fields)."""
        try:
            data, record = read_record_file(path, scope, project)
        except FileNotFoundError:
            return None, ("", VANISHED, None, "vanished while read", "", "", "")
        except RecordError as error:
            state = FOREIGN if isinstance(error, NotARecord) else MALFORMED
            raw = quiet_read(path)
            rev = revision(raw) if raw is not None else ""
            return None, (rev, state, error.line, error.message, error.fix, "", "")
        rev = revision(data)
        known = (rev, RECORD, None, "", "", fields_json(record), content_hash(record))
        if row is not None and row[_REV] == rev and row[_STATE] == RECORD:
            return None, known
        return record_doc(record, path, rev), known

    def problems(self, pairs: Sequence[Pair]) -> list[Problem]:
        """The problem files of `pairs`, as last scanned, by path."""
        out: list[Problem] = []
        for scope, project, folder in scope_folders(self.root, pairs):
            link = _linked(folder)
            if link is not None:
                why = "a link: memhub never follows links in memory"
                out.append(Problem(str(link), None, why, "put the folder itself here", MALFORMED))
            for path, line, message, fix, state in self.index.db.execute(
                "SELECT path, line, message, fix, state FROM scan_files"
                " WHERE scope = ? AND project = ? AND state IN (?, ?) ORDER BY path",
                (scope, project or "", MALFORMED, FOREIGN),
            ):
                out.append(Problem(str(path), line, str(message), str(fix), str(state)))
        return out

    def rebuild(self, pairs: Sequence[Pair]) -> int:
        """Empty the index and its file cache, then index the files of `pairs` afresh."""
        with self._lock:
            self.index.rebuild([])
            self.index.db.execute("DELETE FROM scan_files")
            self._seen.clear()
            self._dirs.clear()
            self._prints.clear()
            self.index.db.execute(
                "DELETE FROM scan_meta WHERE key LIKE 'print:%' OR key LIKE 'seen:%'"
            )
            changes = self.refresh(pairs).changes
            self.index.optimize()
            return changes


def _make_table(db: sqlite3.Connection) -> None:
    """The file-state cache table, remade when an older memhub made it with other columns."""
    columns = [row[1] for row in db.execute("PRAGMA table_info(scan_files)")]
    if columns and columns[-1] != "content":
        db.execute("DROP TABLE scan_files")
    for statement in _DDL:
        db.execute(statement)
    db.execute("CREATE TABLE IF NOT EXISTS scan_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _print_key(pair: Pair) -> str:
    return f"print:{pair[0]}:{pair[1] or ''}"
