"""Captured sessions -> the index: the text of user and assistant messages, per project.

Sessions come from the local capture store (`$MEMHUB_HOME/store.sqlite`). Each is filed under
the project its working directory resolves to through the registry (its git checkout, as
records are); a session that resolves to no project is not indexed, so no project can find
it. A session's revision is its last update, record count and the registry's state, so a
new message or a newly connected checkout re-indexes it; nothing is read while the store and
the registry are as they were at the last scan. Stdlib only.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import layout, projects
from .index import IndexDoc, MemoryIndex

__all__ = ["SESSION_KIND", "refresh_sessions", "session_body"]

SESSION_KIND = "session"
ROLES = ("user", "assistant")
TITLE_CHARS = 120
_DDL = (
    "CREATE TABLE IF NOT EXISTS scan_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # cwd -> project ('' for none) under one registry state: a folder is resolved (git runs)
    # once per registry change, not on every capture of every session started there
    "CREATE TABLE IF NOT EXISTS session_cwds (cwd TEXT PRIMARY KEY, registry TEXT NOT NULL,"
    " project TEXT NOT NULL)",
)

Resolver = Callable[[str], str | None]


def store_path(home: Path) -> Path:
    """The local capture store of a memhub home."""
    return Path(home) / "store.sqlite"


def _signature(paths: list[Path]) -> str:
    """What changes when any of `paths` (store, its WAL, the registry) changes."""
    parts = []
    for path in paths:
        try:
            info = os.stat(path)
            parts.append(f"{info.st_mtime_ns}:{info.st_size}:{info.st_ino}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def session_body(records: list[dict[str, Any]]) -> str:
    """The text of a session's user and assistant messages, one paragraph each."""
    texts = [
        str(r["text"])
        for r in records
        if r.get("kind") == "message" and r.get("role") in ROLES and r.get("text")
    ]
    return "\n\n".join(texts)


def _updated(stamp: object) -> str:
    """A store timestamp (epoch seconds) as an ISO time."""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(stamp)))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return ""


def _resolver(registry: projects.Registry, mark: str, db: sqlite3.Connection) -> Resolver:
    """cwd -> project id through the registry, each folder resolved once per registry state
    (remembered in `session_cwds`)."""
    seen: dict[str, str | None] = {
        str(cwd): (str(project) or None)
        for cwd, project in db.execute(
            "SELECT cwd, project FROM session_cwds WHERE registry = ?", (mark,)
        )
    }

    def resolve(cwd: str) -> str | None:
        if cwd not in seen:
            seen[cwd] = projects.resolve(registry, cwd).project_id if cwd else None
            db.execute(
                "INSERT OR REPLACE INTO session_cwds (cwd, registry, project) VALUES (?, ?, ?)",
                (cwd, mark, seen[cwd] or ""),
            )
        return seen[cwd]

    return resolve


def refresh_sessions(home: Path, index: MemoryIndex) -> int:
    """Bring the index's session documents up to date with the capture store; docs changed."""
    store = store_path(home)
    registry_file = layout.projects_file(layout.memory_root(home))
    signature = _signature([store, store.with_name(store.name + "-wal"), registry_file])
    for statement in _DDL:
        index.db.execute(statement)
    row = index.db.execute("SELECT value FROM scan_meta WHERE key = 'sessions'").fetchone()
    if row is not None and row[0] == signature:
        return 0
    try:
        registry = projects.load_registry(registry_file)
    except projects.RegistryError:
        registry = projects.Registry()  # no registry, no project: no session is searchable
    try:
        docs, keep = _changed_docs(store, registry, signature, index)
    except sqlite3.DatabaseError:  # a damaged store: the sessions indexed stay as they are
        return 0  # (the signature is not saved: the next read tries again)
    known = index.revisions(sources=("session",))
    gone = [path for path in known if path not in keep]

    def remember(db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT OR REPLACE INTO scan_meta (key, value) VALUES ('sessions', ?)", (signature,)
        )

    return index.update(docs, gone, also=remember).total


def _changed_docs(
    store: Path, registry: projects.Registry, signature: str, index: MemoryIndex
) -> tuple[list[IndexDoc], set[str]]:
    """The session documents to (re)write, and the paths of every session still indexed."""
    from ..backends.local import LocalStore

    if not store.is_file():
        return [], set()
    known = index.revisions(sources=("session",))
    registry_mark = signature.rsplit("|", 1)[-1]
    resolve = _resolver(registry, registry_mark, index.db)
    docs: list[IndexDoc] = []
    keep: set[str] = set()
    with LocalStore(store) as local:
        for session in local.sessions():
            cid = str(session["conversation_id"])
            path = f"{store}#{cid}"
            rev = f"{session['updated_at']}|{session['records']}|{registry_mark}"
            if known.get(path) == rev:
                keep.add(path)
                continue
            project = resolve(str(session.get("cwd") or ""))
            if project is None:
                continue
            keep.add(path)
            docs.append(_doc(session, local.records(cid, rewound=False), project, path, rev))
    return docs, keep


def _doc(
    session: dict[str, Any], records: list[dict[str, Any]], project: str, path: str, rev: str
) -> IndexDoc:
    """The index document of one session."""
    body = session_body(records)
    title = str(session.get("title") or "").strip() or body[:TITLE_CHARS].split("\n")[0]
    host = str(session.get("host") or "")
    return IndexDoc(
        id=str(session["conversation_id"]),
        scope="project",
        project=project,
        kind=SESSION_KIND,
        title=title or str(session.get("session_id") or session["conversation_id"]),
        tags=(host,) if host else (),
        status="active",
        body=body,
        path=path,
        revision=rev,
        updated=_updated(session.get("updated_at")),
        source="session",
    )
