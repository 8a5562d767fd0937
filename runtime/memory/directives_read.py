"""Directive recall's read: the active directives of the caller's scopes that a call can fire.

The derived index (`index.sqlite`, the same `docs` and `scan_files` rows `catalog.select`
reads, scoped the same way by `fts.grants`) holds every record; a hook cannot afford to decode
10,000 of them per call. So a second derived file beside it, `directives.cache` (SQLite),
keeps each active directive's trigger keys (`directives.trigger_key`: a text every call the
trigger fires for contains), each filed under its rarest four-character window, stamped with
the index files' (inode, size, mtime_ns). A call looks its own four-character windows up
there; only directives one of whose keys occurs in the call are read from the index. The
cache is rebuilt when the stamp differs (any write to the index changes the database or its
WAL file) and replaced atomically; when it cannot be written the rebuilt keys are used from
memory. Stdlib only; sqlite3 is imported on the first call, not at import.
"""

from __future__ import annotations

import os

from .directives import DIRECTIVE_KINDS, KINDS, Call, Directive, Hit, select, trigger_key

__all__ = ["CACHE_FILE", "candidates", "recall"]

CACHE_FILE = "directives.cache"
FORMAT = "1"
WIDTH = 4  # keys are filed under one window of this width; shorter keys under ""
CHUNK = 500  # windows per query (old SQLite builds allow 999 parameters)
# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    Where = str | os.PathLike[str]
    _Entry = tuple[str, int, str]  # key, docs rowid, grant ("shared:" or "project:<id>")


def _uri(path: str) -> str:
    """A read-only SQLite URI for a file (without urllib: `%`, `?` and `#` escaped)."""
    path = os.path.abspath(path).replace("\\", "/")
    for ch, code in (("%", "%25"), ("?", "%3f"), ("#", "%23")):
        path = path.replace(ch, code)
    return f"file:{'' if path.startswith('/') else '/'}{path}?mode=ro"


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 (contextlib costs the hook ~3 ms to import)
        os.unlink(path)
    except OSError:
        pass


def _stamp(index: str) -> str:
    """The index files' (inode, size, mtime_ns): a commit changes the database or its WAL.

    An empty WAL holds nothing (a reader may create one): the same as none."""
    out: list[int] = []
    for path in (index, index + "-wal"):
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is None or st.st_size == 0:
            out += [0, 0, 0]
            continue
        out += [st.st_ino, st.st_size, st.st_mtime_ns]
    return f"{FORMAT}:" + ":".join(map(str, out))


def _scope_key(scope: str, project: str) -> str:
    return f"{scope}:{project}"


def _grants(allowed: Sequence[tuple[str, str | None]]) -> set[str]:
    from . import fts

    return {_scope_key(scope, project) for scope, project in fts.grants(allowed)}


def _connect(index: str) -> Any:
    import sqlite3  # on use: importing this module costs no SQLite

    db = sqlite3.connect(_uri(index), uri=True, timeout=2.0)
    db.execute("PRAGMA query_only = 1")
    return db


_ACTIVE = (
    "FROM docs d JOIN scan_files f ON f.path = d.path WHERE d.source = 'record'"
    f" AND d.status = 'active' AND d.kind IN ({', '.join(repr(k) for k in DIRECTIVE_KINDS)})"
)


def _entries(db: Any) -> list[_Entry]:
    """Every active directive's distinct trigger keys, with its row and grant."""
    import json

    out: list[_Entry] = []
    for rowid, scope, project, fields in db.execute(
        f"SELECT d.rowid, d.scope, d.project, f.fields {_ACTIVE}"
    ):
        triggers = json.loads(fields).get("triggers") or {}
        where = _scope_key(str(scope), str(project))
        keys = {trigger_key(kind, t) for kind in KINDS for t in triggers.get(kind, ())}
        out += [(key, int(rowid), where) for key in sorted(keys)]
    return out


def _windows(text: str) -> set[str]:
    return {text[i : i + WIDTH] for i in range(len(text) - WIDTH + 1)}


def _filed(entries: list[_Entry]) -> list[tuple[str, str, int, str]]:
    """Each entry under its rarest window (any window of a key is in every text holding it)."""
    counts: dict[str, int] = {}
    for key, _doc, _where in entries:
        for window in _windows(key):
            counts[window] = counts.get(window, 0) + 1
    out = []
    for key, doc, where in entries:
        wins = sorted(_windows(key))
        out.append((min(wins, key=counts.__getitem__) if wins else "", key, doc, where))
    return out


def _write(cache: str, stamp: str, entries: list[_Entry]) -> bool:
    """Replace the cache atomically; False when it cannot be written."""
    import sqlite3

    folder, name = os.path.split(cache)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        _unlink(tmp)
        out = sqlite3.connect(tmp, isolation_level=None)
        try:
            out.execute("PRAGMA journal_mode = OFF")
            out.execute("BEGIN")
            out.execute("CREATE TABLE meta (stamp TEXT NOT NULL)")
            out.execute("CREATE TABLE keys (win TEXT, key TEXT, doc INTEGER, grant TEXT)")
            out.execute("INSERT INTO meta VALUES (?)", (stamp,))
            out.executemany("INSERT INTO keys VALUES (?, ?, ?, ?)", _filed(entries))
            out.execute("CREATE INDEX keys_win ON keys (win)")
            out.execute("COMMIT")
        finally:
            out.close()
        os.replace(tmp, cache)
        return True
    except (OSError, sqlite3.Error):
        _unlink(tmp)
        return False


def _attach(db: Any, cache: str, stamp: str) -> bool:
    """Attach the cache as `k` if it is there and current."""
    import sqlite3

    try:
        db.execute("ATTACH DATABASE ? AS k", (_uri(cache),))
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT stamp FROM k.meta").fetchone()
        if row is not None and row[0] == stamp:
            return True
    except sqlite3.Error:
        pass
    db.execute("DETACH DATABASE k")
    return False


def _matching(db: Any, index: str, text: str, grants: set[str]) -> set[int]:
    """The rows of directives one of whose keys occurs in `text` (within `grants`)."""
    stamp, cache = _stamp(index), os.path.join(os.path.dirname(index), CACHE_FILE)
    if not _attach(db, cache, stamp):
        entries = _entries(db)
        if not (_write(cache, stamp, entries) and _attach(db, cache, stamp)):
            return {doc for key, doc, where in entries if where in grants and key in text}
    windows = sorted(_windows(text))
    found = list(db.execute("SELECT key, doc, grant FROM k.keys WHERE win = ''"))
    for i in range(0, len(windows), CHUNK):
        part = windows[i : i + CHUNK]
        found += db.execute(
            f"SELECT key, doc, grant FROM k.keys WHERE win IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
    return {int(doc) for key, doc, where in found if where in grants and key in text}


def _directives(db: Any, rowids: Iterable[int]) -> list[Directive]:
    import json

    ids = sorted(rowids)
    rows = db.execute(
        "SELECT d.id, d.kind, d.title, d.body, d.updated, d.scope, f.fields"
        f" {_ACTIVE} AND d.rowid IN ({','.join('?' * len(ids))})",
        ids,
    ).fetchall()
    out = []
    for rid, kind, title, body, updated, scope, fields in rows:
        data = json.loads(fields)
        seen = data.get("seen", 1)
        out.append(
            Directive(
                str(rid),
                str(kind),
                str(title),
                str(body),
                data.get("triggers") or {},
                str(updated),
                seen if isinstance(seen, int) else 1,
                str(scope),
            )
        )
    return out


def candidates(
    index: Where, allowed: Sequence[tuple[str, str | None]], call: Call
) -> list[Directive]:
    """The active directives within `allowed` one of whose trigger keys occurs in `call`."""
    path = os.fspath(index)
    grants = _grants(allowed)
    if not grants or not call.text or not os.path.isfile(path):
        return []
    db = _connect(path)
    try:
        rowids = _matching(db, path, call.text, grants)
        return _directives(db, rowids) if rowids else []
    finally:
        db.close()


def recall(
    index: Where,
    allowed: Sequence[tuple[str, str | None]],
    call: Call,
    stop: frozenset[str],
    already_fired: Iterable[str] = (),
) -> list[Hit]:
    """The directives `call` fires (`directives.select` over `candidates`)."""
    return select(candidates(index, allowed, call), call, stop, already_fired)
