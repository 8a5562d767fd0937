"""Directive recall's read: the active directives of the caller's scopes that a call can fire.

The derived index (`index.sqlite`: the `docs` and `scan_files` rows `catalog.select` reads,
scoped by the grants `fts.grants` accepts) holds every record; a hook cannot afford to decode
10,000 of them per call. So a second derived file beside it, `directives.cache` (SQLite),
holds each active directive's triggers and trigger keys (`directives.trigger_key`: a text
every call the trigger fires for contains), each key filed under its rarest four-character
window. A call looks its own four-character windows up there; only the directives one of
whose keys occurs in the call are read from the index, by (scope, project, id).

The cache is current when it was built from the same record files: its fingerprint is every
`scan_files` revision and state (one indexed-column scan, ~1 ms at 10k records), checked only
when the index files' (inode, size, mtime_ns) differ from when it was built (the scanner
writes its bookkeeping on every read, so they often do). A stale cache is rebuilt and
replaced atomically; when it cannot be written the rebuilt keys are used from memory.
A call none of whose windows any key is filed under is refused before SQLite is loaded
(`directives_filter`, rebuilt beside the cache whenever the index changes). Stdlib only;
SQLite is imported on the first call that may have a candidate, not at import.
"""

from __future__ import annotations

from ..lowos import OS, dirname, is_file, join
from . import directives_filter
from .directives import DIRECTIVE_KINDS, KINDS, Call, Directive, Hit, select, trigger_key

__all__ = ["CACHE_FILE", "candidates", "recall"]

CACHE_FILE = "directives.cache"
FORMAT = "2"
WIDTH = 4  # keys are filed under one window of this width; shorter keys under ""
CHUNK = 500  # parameters per query (old SQLite builds allow 999)
_WHERE = (
    "d.source = 'record' AND d.status = 'active'"
    f" AND d.kind IN ({', '.join(repr(k) for k in DIRECTIVE_KINDS)})"
)
_FINGERPRINT = "SELECT count(*), group_concat(revision || state, ',') FROM scan_files"

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path); no
# `os` either (lowos: a hook process has not imported it, ~1 ms of a 10 ms start)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Iterable, Sequence
    from typing import Any

    Where = str | os.PathLike[str]
    Doc = tuple[str, str]  # (grant: "shared:" or "project:<id>", record id)
    Triggers = dict[Doc, dict[str, list[str]]]


def _uri(path: str) -> str:
    """A read-only SQLite URI for a file (without urllib: `%`, `?` and `#` escaped)."""
    path = _absolute(path).replace("\\", "/")
    for ch, code in (("%", "%25"), ("?", "%3f"), ("#", "%23")):
        path = path.replace(ch, code)
    return f"file:{'' if path.startswith('/') else '/'}{path}?mode=ro"


def _absolute(path: str) -> str:
    """`os.path.abspath`, without `os` for a path that already is absolute and normal."""
    if path[:1] == "/" and all(p not in ("", ".", "..") for p in path[1:].split("/")):
        return path
    import os

    return os.path.abspath(path)


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 (contextlib costs the hook ~3 ms to import)
        OS.unlink(path)
    except OSError:
        pass


def _sqlite() -> Any:
    """SQLite's C core where there is one: the `sqlite3` package is `from _sqlite3 import *`
    plus datetime adapters a read never uses, ~2.5 ms of imports on every hook call."""
    try:
        return __import__("_sqlite3")
    except ImportError:  # pragma: no cover - an interpreter without the C module's name
        import sqlite3

        return sqlite3


def _stamp(index: str) -> str:
    """The index files' (inode, size, mtime_ns). An empty WAL (a reader may make one) is none."""
    out: list[int] = []
    for path in (index, index + "-wal"):
        try:
            st = OS.stat(path)
        except OSError:
            st = None
        out += [st.st_ino, st.st_size, st.st_mtime_ns] if st and st.st_size else [0, 0, 0]
    return f"{FORMAT}:" + ":".join(map(str, out))


def _fingerprint(db: Any) -> str:
    """What the records in the index are: every file's revision and state, in table order."""
    count, revisions = db.execute(_FINGERPRINT).fetchone()
    return f"{FORMAT}:{count}:{revisions or ''}"


def _grant(scope: str, project: str | None) -> str:
    return f"{scope}:{project or ''}"


def _grants(allowed: Sequence[tuple[str, str | None]]) -> set[str]:
    """The scopes `allowed` grants: `fts.grants`'s two shapes, anything else grants nothing
    (fts itself costs the hook ~7 ms to import: re, enum, typing)."""
    out = set()
    for item in allowed:
        if isinstance(item, tuple | list) and len(item) == 2:
            scope, project = item
            if scope == "shared" and project is None:
                out.add(_grant("shared", None))
            elif scope == "project" and isinstance(project, str) and project:
                out.add(_grant("project", project))
    return out


def _connect(index: str) -> Any:
    db = _sqlite().connect(_uri(index), uri=True, timeout=2.0)
    db.execute("PRAGMA query_only = 1")
    return db


class _Keys:
    """Every active directive's trigger keys (key, grant, id) and triggers (grant, id, kind,
    text), read from the index."""

    __slots__ = ("entries", "triggers")

    def __init__(self, db: Any) -> None:
        import json  # on rebuild only: a call on a current cache decodes no JSON

        self.entries: list[tuple[str, str, str]] = []
        self.triggers: list[tuple[str, str, str, str]] = []
        for scope, project, rid, fields in db.execute(
            "SELECT d.scope, d.project, d.id, f.fields FROM docs d JOIN scan_files f"
            f" ON f.path = d.path WHERE {_WHERE}"
        ):
            found = json.loads(fields).get("triggers") or {}
            where, rid = _grant(str(scope), str(project)), str(rid)
            pairs = [(kind, str(t)) for kind in KINDS for t in found.get(kind, ())]
            self.entries += [(key, where, rid) for key in {trigger_key(k, t) for k, t in pairs}]
            self.triggers += [(where, rid, kind, t) for kind, t in pairs]

    def matching(self, text: str, grants: set[str]) -> Triggers:
        docs = {(w, rid) for key, w, rid in self.entries if w in grants and key in text}
        return _by_doc(t for t in self.triggers if (t[0], t[1]) in docs)


def _by_doc(rows: Iterable[tuple[str, str, str, str]]) -> Triggers:
    out: Triggers = {}
    for where, rid, kind, text in rows:
        out.setdefault((str(where), str(rid)), {}).setdefault(str(kind), []).append(str(text))
    return out


def _windows(text: str) -> set[str]:
    return {text[i : i + WIDTH] for i in range(len(text) - WIDTH + 1)}


def _filed(entries: list[tuple[str, str, str]]) -> list[tuple[str, str, str, str]]:
    """Each key under its rarest window (any window of a key is in every text holding it)."""
    windows = {key: _windows(key) for key, _where, _rid in entries}
    counts: dict[str, int] = {}
    for wins in windows.values():
        for window in wins:
            counts[window] = counts.get(window, 0) + 1
    return [
        (min(windows[key], key=counts.__getitem__) if windows[key] else "", key, where, rid)
        for key, where, rid in entries
    ]


_TABLES = (
    "CREATE TABLE meta (stamp TEXT NOT NULL, fingerprint TEXT NOT NULL)",
    "CREATE TABLE keys (win TEXT, key TEXT, grant TEXT, id TEXT)",
    "CREATE TABLE triggers (grant TEXT, id TEXT, kind TEXT, text TEXT)",
)


def _write(cache: str, meta: tuple[str, str], keys: _Keys) -> bool:
    """Replace the cache atomically; False when it cannot be written."""
    import os  # on rebuild only

    sqlite3 = _sqlite()
    folder, name = os.path.split(cache)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        _unlink(tmp)
        out = sqlite3.connect(tmp, isolation_level=None)
        try:
            out.execute("PRAGMA journal_mode = OFF")  # a new private file, replaced whole
            out.execute("BEGIN")
            for statement in _TABLES:
                out.execute(statement)
            out.execute("INSERT INTO meta VALUES (?, ?)", meta)
            out.executemany("INSERT INTO keys VALUES (?, ?, ?, ?)", _filed(keys.entries))
            out.executemany("INSERT INTO triggers VALUES (?, ?, ?, ?)", keys.triggers)
            out.execute("CREATE INDEX keys_win ON keys (win)")
            out.execute("CREATE INDEX triggers_id ON triggers (id)")
            out.execute("COMMIT")
        finally:
            out.close()
        os.replace(tmp, cache)
        return True
    except (OSError, sqlite3.Error):
        _unlink(tmp)
        return False


def _attach(db: Any, cache: str, stamp: str) -> bool:
    """Attach the cache as `k` if it was built from the records the index now holds."""
    sqlite3 = _sqlite()
    try:
        db.execute("ATTACH DATABASE ? AS k", (_uri(cache),))
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT stamp, fingerprint FROM k.meta").fetchone()
        if row is not None and (row[0] == stamp or row[1] == _fingerprint(db)):
            return True
    except sqlite3.Error:
        pass
    db.execute("DETACH DATABASE k")
    return False


def _in(values: Sequence[object]) -> str:
    return f"({','.join('?' * len(values))})"


def _chunks(values: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(values), CHUNK):
        yield values[i : i + CHUNK]


def _cached(db: Any, text: str, grants: set[str]) -> Triggers:
    """From the attached cache: the triggers of directives one of whose keys is in `text`."""
    found = list(db.execute("SELECT key, grant, id FROM k.keys WHERE win = ''"))
    for part in _chunks(sorted(_windows(text))):
        found += db.execute(f"SELECT key, grant, id FROM k.keys WHERE win IN {_in(part)}", part)
    docs = {(w, rid) for key, w, rid in found if w in grants and key in text}
    out: Triggers = {}
    for part in _chunks(sorted({rid for _w, rid in docs})):
        rows = db.execute(
            f"SELECT grant, id, kind, text FROM k.triggers WHERE id IN {_in(part)}", part
        )
        out.update(_by_doc(row for row in rows if (row[0], row[1]) in docs))
    return out


def _matching(db: Any, index: str, text: str, grants: set[str]) -> Triggers:
    """The triggers of the directives one of whose keys occurs in `text` (within `grants`)."""
    stamp, cache = _stamp(index), join(dirname(index), CACHE_FILE)
    if _attach(db, cache, stamp) or (
        _write(cache, (stamp, _fingerprint(db)), keys := _Keys(db)) and _attach(db, cache, stamp)
    ):
        if directives_filter.stamp_of(index) != stamp:  # the index changed: so does the filter
            directives_filter.write(index, stamp, db.execute("SELECT win, key FROM k.keys"))
        return _cached(db, text, grants)
    return keys.matching(text, grants)


def _directives(db: Any, triggers: Triggers) -> list[Directive]:
    """The directives named (still active in the index), with their triggers."""
    by_grant: dict[str, list[str]] = {}
    for where, rid in sorted(triggers):
        by_grant.setdefault(where, []).append(rid)
    out = []
    for where, rids in by_grant.items():
        scope, _, project = where.partition(":")
        for part in _chunks(rids):  # scope, project and id: the index's unique key
            for rid, kind, title, body, updated in db.execute(
                "SELECT d.id, d.kind, d.title, d.body, d.updated FROM docs d"
                f" WHERE d.scope = ? AND d.project = ? AND d.id IN {_in(part)} AND {_WHERE}",
                [scope, project, *part],
            ):
                found = triggers[(where, str(rid))]
                text = (str(title), str(body))
                out.append(Directive(str(rid), str(kind), *text, found, str(updated), 1, scope))
    return out


def candidates(
    index: Where, allowed: Sequence[tuple[str, str | None]], call: Call
) -> list[Directive]:
    """The active directives within `allowed` one of whose trigger keys occurs in `call`."""
    path = OS.fspath(index)
    grants = _grants(allowed)
    if not grants or not call.text or not is_file(path):
        return []
    if directives_filter.excludes(path, _stamp(path), call.text, _windows(call.text)):
        return []  # no trigger key can be in the call: SQLite is not even loaded
    db = _connect(path)
    try:
        triggers = _matching(db, path, call.text, grants)
        return _directives(db, triggers) if triggers else []
    except _sqlite().OperationalError as exc:
        # another process (a scan, the brief's detached child) made the file and has not yet
        # committed its tables: the index does not exist yet, as when the file is absent
        if str(exc).startswith("no such table"):
            return []
        raise
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
