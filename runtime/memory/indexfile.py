"""The index's file on disk: made, checked, and moved aside when it is not an index of ours.

Stdlib only; relative imports only (bundles vendor this folder).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from . import fts

SCHEMA_VERSION = "2"
BUSY_MS = 30_000

# Counting records by status and kind (`memory index`, overviews) reads this index alone, not
# the rows with their bodies: at 100k records 0.2 s and ~80 MB of mapped pages less.
_KINDS_INDEX = (
    "CREATE INDEX IF NOT EXISTS docs_kinds ON docs (source, scope, project, status, kind)"
)
_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # project is '' for shared docs: NULL never equals anything, so the scope join and the
    # unique key would need IS everywhere; '' is never a valid project id.
    "CREATE TABLE docs (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, scope TEXT NOT NULL,"
    " project TEXT NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL, tags TEXT NOT NULL,"
    " status TEXT NOT NULL, body TEXT NOT NULL, path TEXT NOT NULL, revision TEXT NOT NULL,"
    " updated TEXT NOT NULL, source TEXT NOT NULL, scopekey TEXT NOT NULL, UNIQUE (source, scope, project, id))",
    "CREATE TABLE doc_tags (doc INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (doc, tag))"
    " WITHOUT ROWID",
    # How many documents each (source, scope, project) holds, kept by the triggers below: a
    # search asks it whether the caller's scopes are most of the index (index.py).
    "CREATE TABLE doc_counts (source TEXT NOT NULL, scope TEXT NOT NULL, project TEXT NOT NULL,"
    " n INTEGER NOT NULL, PRIMARY KEY (source, scope, project)) WITHOUT ROWID",
    "CREATE TRIGGER docs_counted AFTER INSERT ON docs BEGIN"
    " INSERT INTO doc_counts (source, scope, project, n) VALUES (new.source, new.scope,"
    " new.project, 1) ON CONFLICT (source, scope, project) DO UPDATE SET n = n + 1; END",
    "CREATE TRIGGER docs_uncounted AFTER DELETE ON docs BEGIN"
    " UPDATE doc_counts SET n = n - 1 WHERE source = old.source AND scope = old.scope"
    " AND project = old.project; END",
    # External content: the text lives once, in docs; FTS5 reads it back for snippets.
    f"CREATE VIRTUAL TABLE fts USING fts5(title, tags, body, scopekey, content='docs',"
    f" content_rowid='rowid', tokenize='{fts.TOKENIZER}')",
    _KINDS_INDEX,
)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive fcntl lock beside the index while it is checked or made (none on Windows)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, a long busy wait."""
    db = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None)
    db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # derived data: a lost last commit is rebuilt
    # Reads map the file instead of copying pages through a 2 MB cache: at 100k records the
    # index is ~150 MB and a search touches pages all over it.
    db.execute("PRAGMA mmap_size = 1073741824")
    db.execute("PRAGMA cache_size = -32768")
    return db


def _version(db: sqlite3.Connection) -> str | None:
    """The schema version, '' for an empty database, None for one that is not an index."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return ""
    if "meta" not in tables:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return str(row[0]) if row else None


def _create(db: sqlite3.Connection) -> None:
    """Make the schema in an empty database."""
    db.execute("BEGIN IMMEDIATE")
    for statement in _SCHEMA:
        db.execute(statement)
    db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
    db.execute("COMMIT")


def _add_indexes(db: sqlite3.Connection) -> None:
    """Indexes added to the schema since the file was made (derived: made once, here)."""
    made = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'docs_kinds'").fetchone()
    if made is None:
        db.execute("PRAGMA busy_timeout = 0")  # a writer at work: the next open makes it
        with contextlib.suppress(sqlite3.OperationalError):  # read-only or busy: counts scan
            db.execute(_KINDS_INDEX)
        db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")


def _sidecars(path: Path) -> list[Path]:
    """SQLite's files beside the index: a stale WAL must never be replayed into a new file."""
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal")]


def _move_aside(path: Path) -> None:
    """Keep the unusable file as `<name>.bad` (one, the latest) and drop its sidecars."""
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, path.with_name(path.name + ".bad"))
    for side in _sidecars(path):
        with contextlib.suppress(FileNotFoundError):
            side.unlink()


def open_index(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A connection to a valid index at `path`, and whether it was made (or remade) now."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(path):  # two processes must not both judge and replace the file
        return _open_checked(path)


def _open_checked(path: Path) -> tuple[sqlite3.Connection, bool]:
    """`open_index` under the file lock."""
    if not path.exists():
        _move_aside(path)  # only sidecars can be there: drop them
    db: sqlite3.Connection | None = None
    try:
        db = _connect(path)
        version = _version(db)
        if version == SCHEMA_VERSION:
            _add_indexes(db)
            return db, False
        if version == "":
            _create(db)
            return db, True
    except sqlite3.DatabaseError:
        pass  # not a database at all ("file is not a database", "malformed")
    if db is not None:
        db.close()
    _move_aside(path)
    db = _connect(path)
    _create(db)
    return db, True
