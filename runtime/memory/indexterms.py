"""The query planner's per-term lookups: which documents hold a term, how many (up to a cap),
and whether any document a search could return holds it.

Stdlib only; relative imports only (bundles vendor this folder).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from . import fts

Pair = tuple[str, str | None]


def holding(
    db: sqlite3.Connection, rowids: Sequence[int], terms: Sequence[str]
) -> dict[int, tuple[str, ...]]:
    """Which of `terms` each document of `rowids` holds: one lookup per term, each a seek
    of the term's document list to those rowids."""
    out: dict[int, list[str]] = {}
    marks = ",".join("?" * len(rowids))
    for term in terms if rowids else ():
        expression = fts.match_expression(term)
        if expression is None:
            continue
        for (rowid,) in db.execute(
            f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({marks})",
            (expression, *rowids),
        ):
            out.setdefault(int(rowid), []).append(term)
    return {rowid: tuple(found) for rowid, found in out.items()}


def holders(db: sqlite3.Connection, term: str, cap: int) -> int:
    """How many documents of the whole index hold `term`, counted up to `cap` (the cost
    of the count is bounded by it). Planning only: never shown, so not scoped."""
    expression = fts.match_expression(term)
    if expression is None:
        return 0
    (n,) = db.execute(
        "SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)",
        (expression, cap),
    ).fetchone()
    return int(n)


def documents(db: sqlite3.Connection) -> int:
    """How many documents the index holds (kept by triggers: no scan)."""
    (n,) = db.execute("SELECT coalesce(sum(n), 0) FROM doc_counts").fetchone()
    return int(n)


def absent(
    db: sqlite3.Connection,
    terms: Sequence[str],
    allowed: Sequence[Pair],
    *,
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_superseded: bool = False,
    include_proposed: bool = True,
    sources: Sequence[str] = ("record",),
) -> list[str]:
    """The terms of `terms` that no document a search with these scopes and filters could
    return holds (one `LIMIT 1` lookup each)."""
    out = []
    for term in terms:
        found = fts.query(
            term, allowed, kinds, tags, include_superseded, include_proposed, sources, "all"
        )
        if found is None:
            out.append(term)
            continue
        row = db.execute(
            f"SELECT 1 {fts.FROM} WHERE fts MATCH ? AND {found.filters} LIMIT 1",
            (found.match, *found.params),
        ).fetchone()
        if row is None:
            out.append(term)
    return out
