"""The derived search index over memory records and sessions: SQLite FTS5, rebuildable from files.

The index knows nothing of how records are parsed: callers hand it `IndexDoc`s. It is
derived, never precious: a file that is not an index of this schema version is moved aside
and a fresh one made, and the caller refills it from the files (`refresh` with the full
listing). Every read is scoped: `allowed` names the (scope, project) pairs the caller may
see, and the SQL itself joins on them, so nothing outside them is returned or counted.

Stdlib only (the hook read path imports this); relative imports only (bundles vendor it).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from . import fts, indexfile, indexterms, snippets
from .indexdoc import COLUMNS, Changes, Hit, IndexDoc, from_row, to_row, unique

__all__ = ["Changes", "Hit", "IndexDoc", "MemoryIndex", "Verify"]

Verify = Callable[[list[IndexDoc], set[str]], tuple[list[IndexDoc], set[str]]]

# bm25 column weights (title, tags, body, scopekey): a word in the title says more about what
# a record is than the same word in its body; tags sit between; the scope key never ranks.
WEIGHTS = (4.0, 2.0, 1.0, 0.0)
_FROM = fts.FROM
_WEIGHTS = ", ".join(map(str, WEIGHTS))
_DOC_COLUMNS = ", ".join("d." + column for column in COLUMNS.split(", "))
# A search whose scopes hold at least this part of the index ranks first and filters after
# (`_ranked_first`), fetching RANK_FIRST_ROWS rows per hit wanted (and 16 more).
RANK_FIRST_SHARE = 0.5
RANK_FIRST_ROWS = 4


class MemoryIndex:
    """The search index at `path`: opened on construction, made or remade when unusable.

    `created` says the file was made now (new, deleted, or not a valid index): the caller
    fills it from the files. Writers take SQLite's write lock (BEGIN IMMEDIATE) and wait for
    each other up to the busy timeout; readers never wait for writers (WAL).
    """

    def __init__(self, path: str | os.PathLike[str], *, fallback: str | None = None) -> None:
        self.path = Path(path)
        # fallback (why the file cannot be written): an index in memory (indexfile.py)
        self._db, self.created = indexfile.open_index(self.path, fallback)
        self._path_index = False
        self._stemmer = snippets.Stemmer(self._db)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> MemoryIndex:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once so concurrent writers queue instead of failing."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def rebuild(self, docs: Iterable[IndexDoc]) -> int:
        """Replace everything in the index with `docs`; the number indexed."""
        wanted = unique(docs)
        with self._write() as db:
            db.execute("DELETE FROM doc_tags")
            db.execute("DELETE FROM docs")
            db.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
            self._insert(list(wanted.values()), 1)
            db.execute("INSERT INTO fts(fts) VALUES ('optimize')")  # one segment: faster reads
        return len(wanted)

    def optimize(self) -> None:
        """Merge the full-text index into one segment: after a rebuild by batches, a term's
        lookup (a search's matched terms) seeks one b-tree instead of one per segment."""
        with self._write() as db:
            db.execute("INSERT INTO fts(fts) VALUES ('optimize')")

    def refresh(self, docs: Iterable[IndexDoc], *, sources: Sequence[str] = ("record",)) -> Changes:
        """Make the index hold exactly `docs` among documents of `sources`; what changed.

        `docs` is the full current listing of those sources: a document whose revision or
        path changed is rewritten, one no longer listed is deleted, the rest are untouched.
        Documents of other sources (records vs sessions) are left alone.
        """
        wanted = unique(docs)
        strays = [key for key in wanted if key[0] not in sources]
        if strays:
            raise ValueError(f"documents outside sources {tuple(sources)}: {strays[:3]}")
        if not self._diff(wanted, sources)[3]:
            return Changes()  # the common case: nothing changed, no write lock taken
        with self._write():
            new, changed, stale, _ = self._diff(wanted, sources)  # again, under the lock
            self._remove(stale + [rowid for rowid, _doc in changed])
            self._insert([doc for _rowid, doc in changed] + new, self._next_rowid())
        return Changes(added=len(new), updated=len(changed), removed=len(stale))

    @property
    def db(self) -> sqlite3.Connection:
        """The connection (the scanner keeps its file-state cache in the same database)."""
        return self._db

    def update(
        self,
        docs: Iterable[IndexDoc],
        removed_paths: Iterable[str] = (),
        *,
        also: Callable[[sqlite3.Connection], None] | None = None,
        verify: Verify | None = None,
    ) -> Changes:
        """An incremental refresh: upsert `docs`, delete the documents stored under
        `removed_paths` (and any other document at a path or key `docs` now take).

        `verify(docs, removed)` runs first under the write lock and returns what is still
        true (a caller re-checks its files there, so a slow writer never commits what
        another already replaced); `also` runs last, in the same transaction."""
        wanted = list(unique(docs).values())
        gone = set(removed_paths)
        if not wanted and not gone and also is None:
            return Changes()
        if not self._path_index:
            # update() finds documents by file path; the schema indexes them by key only, and
            # a scan per path made a 100k-document update take minutes
            self._db.execute("CREATE INDEX IF NOT EXISTS docs_path ON docs (path)")
            self._path_index = True
        with self._write() as db:
            if verify is not None:
                wanted, gone = verify(wanted, gone)
            paths = gone | {doc.path for doc in wanted}
            rowids = {
                rowid
                for path in paths
                for (rowid,) in db.execute("SELECT rowid FROM docs WHERE path = ?", (path,))
            }
            replaced = 0
            for doc in wanted:
                row = db.execute(
                    "SELECT rowid FROM docs WHERE source = ? AND scope = ? AND project = ?"
                    " AND id = ?",
                    doc.key,
                ).fetchone()
                if row is not None:
                    rowids.add(int(row[0]))
                    replaced += 1
            self._remove(sorted(rowids))
            self._insert(wanted, self._next_rowid())
            if also is not None:
                also(db)
        updated = min(replaced, len(wanted))
        return Changes(
            added=len(wanted) - updated, updated=updated, removed=max(len(rowids) - updated, 0)
        )

    def _diff(
        self, wanted: dict[tuple[str, str, str, str], IndexDoc], sources: Sequence[str]
    ) -> tuple[list[IndexDoc], list[tuple[int, IndexDoc]], list[int], bool]:
        """New docs, changed (old rowid, doc), stale rowids, and whether any of them exist."""
        marks = ",".join("?" * len(sources))
        have: dict[tuple[str, str, str, str], tuple[int, str, str]] = {}
        for rowid, source, scope, project, doc_id, revision, path in self._db.execute(
            "SELECT rowid, source, scope, project, id, revision, path FROM docs"
            f" WHERE source IN ({marks})",
            tuple(sources),
        ):
            have[(source, scope, project, doc_id)] = (rowid, revision, path)
        new = [doc for key, doc in wanted.items() if key not in have]
        changed = [
            (have[key][0], doc)
            for key, doc in wanted.items()
            if key in have and have[key][1:] != (doc.revision, doc.path)
        ]
        stale = [rowid for key, (rowid, _r, _p) in have.items() if key not in wanted]
        return new, changed, stale, bool(new or changed or stale)

    def _next_rowid(self) -> int:
        (top,) = self._db.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()
        return int(top) + 1

    def _remove(self, rowids: list[int]) -> None:
        """Delete documents by rowid, their FTS entries (from the stored text) first."""
        rows = [(rowid,) for rowid in rowids]
        self._db.executemany(
            "INSERT INTO fts(fts, rowid, title, tags, body, scopekey)"
            " SELECT 'delete', rowid, title, tags, body, scopekey FROM docs WHERE rowid = ?",
            rows,
        )
        self._db.executemany("DELETE FROM doc_tags WHERE doc = ?", rows)
        self._db.executemany("DELETE FROM docs WHERE rowid = ?", rows)

    def _insert(self, docs: list[IndexDoc], start: int) -> None:
        """Insert `docs` with rowids from `start`: the row, its FTS entry, its tags."""
        rows = [to_row(doc, start + offset) for offset, doc in enumerate(docs)]
        self._db.executemany(
            f"INSERT INTO docs (rowid, {COLUMNS}) VALUES ({','.join('?' * 14)})", rows
        )
        self._db.executemany(
            "INSERT INTO fts (rowid, title, tags, body, scopekey) VALUES (?, ?, ?, ?, ?)",
            [(row[0], row[5], row[6], row[8], row[13]) for row in rows],
        )
        self._db.executemany(
            "INSERT OR IGNORE INTO doc_tags (doc, tag) VALUES (?, ?)",
            [
                (row[0], tag.casefold())
                for doc, row in zip(docs, rows, strict=True)
                for tag in doc.tags
            ],
        )

    def revisions(self, *, sources: Sequence[str] = ("record",)) -> dict[str, str]:
        """Each indexed document's path -> revision: what a caller compares files against."""
        marks = ",".join("?" * len(sources))
        rows = self._db.execute(
            f"SELECT path, revision FROM docs WHERE source IN ({marks})", tuple(sources)
        )
        return {str(path): str(revision) for path, revision in rows}

    def get(
        self, doc_id: str, allowed: Sequence[tuple[str, str | None]], *, source: str = "record"
    ) -> IndexDoc | None:
        """The document `doc_id` within `allowed` (a project's before a shared one), or None."""
        pairs = fts.grants(allowed)
        if not pairs or not fts.utf8(doc_id):
            return None
        scoped = ",".join(["(?, ?)"] * len(pairs))
        row = self._db.execute(
            f"SELECT {COLUMNS} FROM docs d WHERE d.id = ? AND d.source = ?"
            f" AND (d.scope, d.project) IN (VALUES {scoped})"
            " ORDER BY d.scope = 'project' DESC LIMIT 1",
            (doc_id, source, *(value for pair in pairs for value in pair)),
        ).fetchone()
        return from_row(row) if row else None

    def search(
        self,
        query: str,
        allowed: Sequence[tuple[str, str | None]],
        *,
        kinds: Sequence[str] = (),
        tags: Sequence[str] = (),
        include_superseded: bool = False,
        include_proposed: bool = True,
        sources: Sequence[str] = ("record",),
        limit: int = 20,
        mode: fts.Mode = "all",
        marks: tuple[str, str] = ("", ""),
        report: Sequence[str] = (),
        exclude: Collection[tuple[str, str, str, str]] = (),
        ranking: Sequence[str] = (),
    ) -> list[Hit]:
        """The best `limit` matches of `query` within `allowed`, by bm25 (title weighted most).

        `kinds`, `tags` (every one given), `sources` filter; () means any. `mode` "all"
        wants every term, "any" one or more. `marks` wrap matched words in the snippet.
        `report`: terms whose presence each hit states in `Hit.matched`. `exclude`: keys
        (IndexDoc.key) of documents to leave out (the hits of an earlier query). `ranking`:
        terms that rank the hits holding them higher without finding any (fts.query).
        """
        found = fts.query(
            query, allowed, kinds, tags, include_superseded, include_proposed, sources, mode,
            ranking,
        )  # fmt: skip
        if found is None or limit <= 0:
            return []
        wanted = int(limit) + len(exclude)
        with self._snapshot():
            rows: list[Any] | None = None
            if not kinds and not tags and self._share(allowed, sources) >= RANK_FIRST_SHARE:
                rows = self._ranked_first(found, wanted)
            if rows is None:
                rows = self._db.execute(
                    f"SELECT {_DOC_COLUMNS}, bm25(fts, {_WEIGHTS}) AS score, d.rowid"
                    f" {_FROM} WHERE fts MATCH ? AND {found.filters}"
                    " ORDER BY score, d.updated DESC, d.id LIMIT ?",
                    (found.match, *found.params, wanted),
                ).fetchall()
            if exclude:
                rows = [r for r in rows if (r[11], r[1], r[2], r[0]) not in exclude][:limit]
            keys = self._stemmer.keys([*fts.terms(query), *ranking])
            matched = indexterms.holding(self._db, [int(row[14]) for row in rows], report)
        return [
            Hit(
                doc=from_row(row),
                score=-float(row[13]),
                snippet=snippets.window(str(row[7]), keys, marks),
                matched=matched.get(int(row[14]), ()),
            )
            for row in rows
        ]

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction: a search's statements all see the same index."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            self._db.execute("COMMIT")

    def _share(self, allowed: Sequence[tuple[str, str | None]], sources: Sequence[str]) -> float:
        """The part of the index's documents (of `sources`) that lie in the caller's scopes."""
        pairs = set(fts.grants(allowed))
        mine = total = 0
        for source, scope, project, n in self._db.execute(
            "SELECT source, scope, project, n FROM doc_counts"
        ):
            if sources and source not in sources:
                continue
            total += n
            mine += n if (scope, project) in pairs else 0
        return mine / total if total else 0.0

    def _ranked_first(self, found: fts.Query, limit: int) -> list[Any] | None:
        """The rows (docs columns, bm25, rowid) ranked by FTS5 alone, the filters applied to
        its best few after; None when that cannot prove it found the same top `limit` as
        the joined query.

        Ranking every match while joining each one to its docs row is what a common word
        costs (23k matches at 100k documents: 35 ms); ranking alone takes a third of that.
        When the caller's scopes hold most documents, the best RANK_FIRST_ROWS per hit are
        enough: every document not fetched ranks at or below the last one fetched, so if
        `limit` fetched ones pass the filters and the last of them ranks strictly above it,
        they are exactly the joined query's first `limit` (tie order included).
        """
        wanted = limit * RANK_FIRST_ROWS + 16
        ranked = self._db.execute(
            f"SELECT rowid, bm25(fts, {_WEIGHTS}) FROM fts WHERE fts MATCH ? ORDER BY 2 LIMIT ?",
            (found.terms, wanted),
        ).fetchall()
        if not ranked:
            return []
        score = dict(ranked)
        rows = self._db.execute(
            # CROSS JOIN: by rowid, never a walk of docs by the source index (as _FROM)
            f"SELECT {_DOC_COLUMNS}, d.rowid FROM json_each(?) j"
            f" CROSS JOIN docs d ON d.rowid = j.value WHERE {found.filters}",
            (json.dumps(list(score)), *found.params),
        ).fetchall()
        rows.sort(key=lambda row: str(row[0]))  # d.id: the last tie-break
        rows.sort(key=lambda row: str(row[10]), reverse=True)  # updated, newest first
        rows.sort(key=lambda row: float(score[row[13]]))  # bm25, best (lowest) first
        complete = len(ranked) < wanted
        if not complete and (len(rows) < limit or score[rows[limit - 1][13]] >= ranked[-1][1]):
            return None
        return [(*row[:13], score[row[13]], row[13]) for row in rows[:limit]]

    def count(
        self,
        query: str,
        allowed: Sequence[tuple[str, str | None]],
        *,
        kinds: Sequence[str] = (),
        tags: Sequence[str] = (),
        include_superseded: bool = False,
        include_proposed: bool = True,
        sources: Sequence[str] = ("record",),
        mode: fts.Mode = "all",
    ) -> int:
        """How many documents `search` would find with no limit (the same scoping)."""
        found = fts.query(
            query, allowed, kinds, tags, include_superseded, include_proposed, sources, mode
        )
        if found is None:
            return 0
        (total,) = self._db.execute(
            f"SELECT count(*) {_FROM} WHERE fts MATCH ? AND {found.filters}",
            (found.match, *found.params),
        ).fetchone()
        return int(total)
