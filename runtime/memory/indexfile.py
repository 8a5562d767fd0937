"""The index's file on disk: made, checked, and moved aside when it is not an index of ours.

The index is derived: a file that is not a complete index of this schema (garbage, a folder,
a table dropped) is moved aside as `<name>.bad` and made again from the record files. Where
it cannot be written at all (a read-only MEMHUB_HOME, a full disk), reads still answer from
an index in memory: a copy of the file when it can be read, else one made from the files
(`fallback`, and the `meta` row 'fallback' says why); nothing is written to disk then.

Stdlib only; relative imports only (bundles vendor this folder).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
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


# What a complete index holds (a later memhub may add more, e.g. scan tables, indexes)
_PARTS = frozenset(
    {"meta", "docs", "doc_tags", "doc_counts", "fts", "docs_counted", "docs_uncounted"}
)


def _version(db: sqlite3.Connection) -> str | None:
    """The schema version, '' for an empty database, None for one that is not an index (or
    one missing a part: a dropped FTS table failed every search and `--rebuild` too)."""
    names = {
        row[0]
        for row in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
    }
    if not names:
        return ""
    if not _PARTS.issubset(names):
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
    bad = path.with_name(path.name + ".bad")
    if os.path.lexists(path) and os.path.isdir(bad) and not os.path.islink(bad):
        import shutil  # an older `.bad` folder: os.replace cannot put anything over it

        shutil.rmtree(bad)
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, bad)
    for side in _sidecars(path):
        with contextlib.suppress(FileNotFoundError):
            side.unlink()


def discard(path: Path) -> None:
    """Move the index at `path` aside (`--rebuild`: whatever it holds, it is made anew)."""
    with _file_lock(path):
        _move_aside(path)


def open_index(path: Path, fallback: str | None = None) -> tuple[sqlite3.Connection, bool]:
    """A connection to a valid index at `path`, and whether it was made (or remade) now.

    `fallback` (why the file cannot be written), or an open that fails for a reason of the
    disk (`unwritable`): an index in memory instead, see the module docstring."""
    if fallback is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with _file_lock(path):  # two processes must not both judge and replace the file
                return _open_checked(path)
        except (OSError, sqlite3.Error) as error:
            # any OSError (a lock file that is a folder, say), and SQLite's disk errors
            if not (isinstance(error, OSError) or unwritable(error)):
                raise
            fallback = describe(error, path)
    return in_memory(path, fallback)


_UNWRITABLE_ERRNOS = frozenset(
    {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO}
)
_UNWRITABLE_SQLITE = ("readonly", "disk is full", "disk i/o error", "unable to open")
_CORRUPT_SQLITE = (
    "malformed",
    "not a database",
    "corrupt",  # FTS5: "fts5: corruption found reading blob ..."
    "vtable constructor failed",  # the FTS table's own rows damaged
    "no such table",
    "no such column",
)


def unwritable(error: BaseException) -> bool:
    """Whether `error` says the disk cannot take a write here (permissions, a read-only or
    full disk, an I/O error), as opposed to a bug."""
    if isinstance(error, OSError):
        return error.errno in _UNWRITABLE_ERRNOS
    if isinstance(error, sqlite3.OperationalError):
        text = str(error).lower()
        return any(part in text for part in _UNWRITABLE_SQLITE)
    return False


def corrupt(error: BaseException) -> bool:
    """Whether a SQLite error says the index file is damaged (it is remade from the files)."""
    text = str(error).lower()
    return isinstance(error, sqlite3.DatabaseError) and any(p in text for p in _CORRUPT_SQLITE)


def describe(error: BaseException, path: Path) -> str:
    """Why the index at `path` is not written, for the reader: what, where and the fix."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    where = getattr(error, "filename", None) or path
    # reads as a note after "skipped " (the CLI's prefix for what a read passed over)
    return (
        f"writing the search index ({reason}: {where}): answers come from an index in "
        "memory made from what is there (free space or make MEMHUB_HOME writable to keep it)"
    )


def in_memory(path: Path, why: str) -> tuple[sqlite3.Connection, bool]:
    """An index in memory: a copy of the file at `path` when it is a readable index, else
    empty (the caller fills it from the files); whether it was made empty."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    copied = _copy_into(path, db)
    if not copied:  # nothing usable was copied (maybe half of something): start empty
        db.close()
        db = sqlite3.connect(":memory:", isolation_level=None)
        _create(db)
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('fallback', ?)", (why,))
    return db, not copied


def _copy_into(path: Path, target: sqlite3.Connection) -> bool:
    """Copy the index file at `path` into `target`, reading only; whether it worked.

    `mode=ro` reads a live index (its WAL included) but must write the WAL's shared memory
    file; where that cannot be made (a read-only folder, no other reader open), the file is
    read as `immutable` (what the last writer checkpointed into it)."""
    if path.is_symlink() or not path.is_file():
        return False
    for option in ("mode=ro", "immutable=1"):
        try:
            source = sqlite3.connect(f"{path.resolve().as_uri()}?{option}", uri=True)
        except sqlite3.Error:
            continue
        try:
            if _version(source) == SCHEMA_VERSION:
                source.backup(target)
                # pages are copied as they are: a damaged copy would fail the read again
                return target.execute("PRAGMA quick_check").fetchone() == ("ok",)
        except sqlite3.Error:
            continue
        finally:
            source.close()
    return False


def fallback_reason(db: sqlite3.Connection) -> str | None:
    """Why `db` is an index in memory, None for the index file."""
    with contextlib.suppress(sqlite3.Error):
        row = db.execute("SELECT value FROM meta WHERE key = 'fallback'").fetchone()
        return str(row[0]) if row else None
    return None


def _open_checked(path: Path) -> tuple[sqlite3.Connection, bool]:
    """`open_index` under the file lock."""
    try:
        info: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        # absent: only sidecars can be there, dropped. A folder, a FIFO (opening it could
        # block), a link (out of MEMHUB_HOME, maybe): never opened, moved aside
        _move_aside(path)
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
    except sqlite3.DatabaseError as error:
        if db is not None:
            db.close()
        if not corrupt(error):
            raise  # a full or read-only disk, a lock: never a reason to drop the index
        db = None
    if db is not None:
        db.close()
    _move_aside(path)
    db = _connect(path)
    _create(db)
    return db, True
