"""Directive recall's read: the active directives of the caller's scopes that a call can fire.

The derived index (`index.sqlite`, the same `docs` and `scan_files` rows `catalog.select`
reads, scoped by the same grants as `fts.grants`) holds every record; a hook cannot afford to decode
10,000 of them per call. So a second derived file beside it, `directives.cache` (SQLite),
keeps each active directive's trigger keys (`directives.trigger_key`: a text every call the
trigger fires for contains), each filed under its rarest four-character window, stamped with
the index files' (inode, size, mtime_ns). A call looks its own four-character windows up
there; only directives one of whose keys occurs in the call are read from the index. The
cache is rebuilt when the stamp differs (any write to the index changes the database or its
WAL file) and replaced atomically; when it cannot be written the rebuilt keys are used from
memory. Stdlib only; SQLite is imported on the first call, not at import.
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
    """The scope keys `allowed` grants: `fts.grants`'s two shapes (that module costs the hook
    ~7 ms to import: re, enum, typing), anything else grants nothing."""
    out = set()
    for item in allowed:
        if isinstance(item, tuple | list) and len(item) == 2:
            scope, project = item
            if scope == "shared" and project is None:
                out.add(_scope_key("shared", ""))
            elif scope == "project" and isinstance(project, str) and project:
                out.add(_scope_key("project", project))
    return out


def _sqlite() -> Any:
    """SQLite's C core where there is one: the `sqlite3` package is `from _sqlite3 import *`
    plus datetime adapters a read never uses, ~2.5 ms of imports on every hook call."""
    try:
        return __import__("_sqlite3")
    except ImportError:  # pragma: no cover - an interpreter without the C module's name
        import sqlite3

        return sqlite3


def _connect(index: str) -> Any:
    db = _sqlite().connect(_uri(index), uri=True, timeout=2.0)
    db.execute("PRAGMA query_only = 1")
    return db


_WHERE = (
    "d.source = 'record' AND d.status = 'active'"
    f" AND d.kind IN ({', '.join(repr(k) for k in DIRECTIVE_KINDS)})"
)


class _Keys:
    """Every active directive's trigger keys (key, row, grant) and triggers (row, kind, text)."""

    __slots__ = ("entries", "triggers")

    def __init__(self, db: Any) -> None:
        import json  # on rebuild only: a call on a current cache decodes no JSON

        self.entries: list[_Entry] = []
        self.triggers: list[tuple[int, str, str]] = []
        for rowid, scope, project, fields in db.execute(
            "SELECT d.rowid, d.scope, d.project, f.fields FROM docs d JOIN scan_files f"
            f" ON f.path = d.path WHERE {_WHERE}"
        ):
            found = json.loads(fields).get("triggers") or {}
            where = _scope_key(str(scope), str(project))
            pairs = [(kind, str(t)) for kind in KINDS for t in found.get(kind, ())]
            keys = {trigger_key(kind, t) for kind, t in pairs}
            self.entries += [(key, int(rowid), where) for key in keys]
            self.triggers += [(int(rowid), kind, t) for kind, t in pairs]

    def matching(self, text: str, grants: set[str]) -> set[int]:
        return {doc for key, doc, where in self.entries if where in grants and key in text}

    def of(self, rowids: set[int]) -> dict[int, dict[str, list[str]]]:
        return _by_row((doc, kind, t) for doc, kind, t in self.triggers if doc in rowids)


def _by_row(rows: Iterable[tuple[int, str, str]]) -> dict[int, dict[str, list[str]]]:
    out: dict[int, dict[str, list[str]]] = {}
    for doc, kind, text in rows:
        out.setdefault(int(doc), {}).setdefault(str(kind), []).append(str(text))
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
        wins = _windows(key)
        out.append((min(wins, key=counts.__getitem__) if wins else "", key, doc, where))
    return out


def _write(cache: str, stamp: str, keys: _Keys) -> bool:
    """Replace the cache atomically; False when it cannot be written."""
    sqlite3 = _sqlite()
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
            out.execute("CREATE TABLE triggers (doc INTEGER, kind TEXT, text TEXT)")
            out.execute("INSERT INTO meta VALUES (?)", (stamp,))
            out.executemany("INSERT INTO keys VALUES (?, ?, ?, ?)", _filed(keys.entries))
            out.executemany("INSERT INTO triggers VALUES (?, ?, ?)", keys.triggers)
            out.execute("CREATE INDEX keys_win ON keys (win)")
            out.execute("CREATE INDEX triggers_doc ON triggers (doc)")
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
    sqlite3 = _sqlite()
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


def _in(values: list[Any]) -> str:
    return f"({','.join('?' * len(values))})"


def _cached(db: Any, text: str, grants: set[str]) -> dict[int, dict[str, list[str]]]:
    """From the attached cache: the triggers of the rows one of whose keys is in `text`."""
    windows = sorted(_windows(text))
    found = list(db.execute("SELECT key, doc, grant FROM k.keys WHERE win = ''"))
    for i in range(0, len(windows), CHUNK):
        part = windows[i : i + CHUNK]
        found += db.execute(f"SELECT key, doc, grant FROM k.keys WHERE win IN {_in(part)}", part)
    rowids = sorted({int(doc) for key, doc, where in found if where in grants and key in text})
    if not rowids:
        return {}
    rows = db.execute(f"SELECT doc, kind, text FROM k.triggers WHERE doc IN {_in(rowids)}", rowids)
    return _by_row(rows)


def _matching(db: Any, index: str, text: str, grants: set[str]) -> dict[int, dict[str, list[str]]]:
    """The triggers of the directives one of whose keys occurs in `text` (within `grants`)."""
    stamp, cache = _stamp(index), os.path.join(os.path.dirname(index), CACHE_FILE)
    if not _attach(db, cache, stamp):
        keys = _Keys(db)
        if not (_write(cache, stamp, keys) and _attach(db, cache, stamp)):
            return keys.of(keys.matching(text, grants))
    return _cached(db, text, grants)


def _directives(db: Any, triggers: dict[int, dict[str, list[str]]]) -> list[Directive]:
    """The directives of these rows (still active), with their triggers."""
    rowids = sorted(triggers)
    rows = db.execute(
        "SELECT d.rowid, d.id, d.kind, d.title, d.body, d.updated, d.scope"
        f" FROM docs d WHERE {_WHERE} AND d.rowid IN {_in(rowids)}",
        rowids,
    )
    return [
        Directive(
            str(rid),
            str(kind),
            str(title),
            str(body),
            triggers[int(rowid)],
            str(updated),
            1,
            str(scope),
        )
        for rowid, rid, kind, title, body, updated, scope in rows
    ]


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
        triggers = _matching(db, path, call.text, grants)
        return _directives(db, triggers) if triggers else []
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
