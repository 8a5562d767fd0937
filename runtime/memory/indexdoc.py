"""What the index stores: documents, hits, change counts, and their rows in SQLite.

Stdlib only; relative imports only (bundles vendor this folder). Named tuples, not
dataclasses: importing dataclasses (and the inspect module it loads) took ~6 ms of every
plain `memhub memory search`, which imports this.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from . import fts

SCOPES = ("shared", "project")
STATUSES = ("active", "proposed", "superseded")
SOURCES = ("record", "session")
COLUMNS = (
    "id, scope, project, kind, title, tags, status, body, path, revision, updated, source, scopekey"
)


class _Doc(NamedTuple):
    """IndexDoc's fields (IndexDoc adds the check every new document passes)."""

    id: str
    scope: str  # 'shared' | 'project'
    project: str | None  # None exactly when scope is 'shared'
    kind: str
    title: str
    tags: tuple[str, ...]
    status: str  # 'active' | 'proposed' | 'superseded'
    body: str
    path: str
    revision: str
    updated: str  # ISO 8601
    source: str = "record"  # 'record' | 'session'


class IndexDoc(_Doc):
    """One searchable document: a record's metadata and text, or a captured session's."""

    __slots__ = ()

    def __new__(cls, *args: object, **fields: object) -> IndexDoc:
        doc = super().__new__(cls, *args, **fields)  # type: ignore[arg-type]
        problem = _invalid(doc)
        if problem:
            raise ValueError(f"index document {doc.id!r}: {problem}")
        return doc

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What makes a document unique in the index: source, scope, project, id."""
        return (self.source, self.scope, self.project or "", self.id)


class Hit(NamedTuple):
    """One search result: the document's metadata, its rank and a short snippet of its body."""

    doc: IndexDoc
    score: float  # -bm25: higher is better
    snippet: str
    match: str = "strict"  # how it was found: "strict" (every term) | "relaxed" (some)
    matched: tuple[str, ...] = ()  # the query terms it holds (when the search asked)


class Changes(NamedTuple):
    """What one `refresh` changed."""

    added: int = 0
    updated: int = 0
    removed: int = 0

    @property
    def total(self) -> int:
        """Documents written or deleted."""
        return self.added + self.updated + self.removed


def _invalid(doc: IndexDoc) -> str | None:
    """Why `doc` cannot be indexed, or None."""
    if doc.scope not in SCOPES:
        return f"scope {doc.scope!r} is not one of {SCOPES}"
    if doc.scope == "shared" and doc.project is not None:
        return "a shared document has no project"
    if doc.scope == "project" and not (isinstance(doc.project, str) and doc.project):
        return "a project document needs a project id"
    if doc.status not in STATUSES:
        return f"status {doc.status!r} is not one of {STATUSES}"
    if doc.source not in SOURCES:
        return f"source {doc.source!r} is not one of {SOURCES}"
    if not isinstance(doc.tags, tuple) or not all(isinstance(t, str) for t in doc.tags):
        return "tags must be a tuple of strings"
    texts = (doc.id, doc.kind, doc.title, doc.body, doc.path, doc.revision, doc.updated)
    if not all(isinstance(text, str) for text in texts) or not doc.id:
        return "id, kind, title, body, path, revision and updated must be strings (id non-empty)"
    if not all(fts.utf8(text) for text in (*texts, *doc.tags, doc.project or "")):
        return "text must be encodable as UTF-8 (no lone surrogates)"
    return None


def to_row(doc: IndexDoc, rowid: int) -> tuple[object, ...]:
    """The docs row for `doc` (tags as JSON: FTS5 indexes its words)."""
    return (
        rowid,
        doc.id,
        doc.scope,
        doc.project or "",
        doc.kind,
        doc.title,
        json.dumps(list(doc.tags), ensure_ascii=False),
        doc.status,
        doc.body,
        doc.path,
        doc.revision,
        doc.updated,
        doc.source,
        fts.scope_key(doc.scope, doc.project or ""),
    )


def from_row(row: Sequence[object]) -> IndexDoc:
    """An IndexDoc from the docs columns in `COLUMNS` order (the scope key is derived)."""
    doc_id, scope, project, kind, title, tags, status, body, path, revision, updated, source = row[
        :12
    ]
    return IndexDoc(
        id=str(doc_id),
        scope=str(scope),
        project=str(project) or None,
        kind=str(kind),
        title=str(title),
        tags=tuple(json.loads(str(tags))),
        status=str(status),
        body=str(body),
        path=str(path),
        revision=str(revision),
        updated=str(updated),
        source=str(source),
    )


def unique(docs: Iterable[IndexDoc]) -> dict[tuple[str, str, str, str], IndexDoc]:
    """`docs` by key; two documents with one key are the caller's bug, not something to guess."""
    out: dict[tuple[str, str, str, str], IndexDoc] = {}
    for doc in docs:
        if doc.key in out:
            raise ValueError(f"two index documents share the key {doc.key!r}")
        out[doc.key] = doc
    return out
