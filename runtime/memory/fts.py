"""The query side of the index: user text into a MATCH that is always valid, scopes into SQL.

Stdlib only: the hook read path imports this.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Literal, NamedTuple

# porter over unicode61: records are mostly English prose, and stemming lets "tests failing"
# find "test fails" (recall matters more than precision for a memory). unicode61 underneath
# folds case and, with remove_diacritics 2, accents ("cafe" finds "café") for every script;
# the porter step only rewrites ASCII suffixes, so other scripts pass through unchanged.
# Query terms go through the same tokenizer, so an identifier or path still matches itself.
TOKENIZER = "porter unicode61 remove_diacritics 2"

# A query's first MAX_TERMS distinct terms count: a pasted log or a 10k-char prompt still
# answers quickly instead of building an expression of thousands of phrases.
MAX_TERMS = 64
MAX_TERM_CHARS = 256

Mode = Literal["all", "any", "two"]
PAIRED_TERMS = 6  # "two" pairs a query's first terms only: 15 pairs at most
# CROSS JOIN keeps FTS5 the outer loop: left to choose, the planner may walk docs by its scope
# index and probe MATCH row by row (a count over 100k documents went from 4 to 120 ms).
FROM = "FROM fts CROSS JOIN docs d ON d.rowid = fts.rowid"

# NUL ends an FTS5 string early ("unterminated string"); other control characters are
# separators to the tokenizer anyway, so all of them become spaces.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_WORD = re.compile(r"[^\W_]")


def terms(text: str) -> list[str]:
    """The distinct whitespace-separated chunks of `text` that hold at least one letter or digit."""
    clean = _CONTROL.sub(" ", text.encode("utf-8", "replace").decode("utf-8"))
    out: list[str] = []
    seen: set[str] = set()
    for chunk in clean.split():
        chunk = chunk[:MAX_TERM_CHARS]
        key = chunk.casefold()
        if key in seen or not _WORD.search(chunk):
            continue
        seen.add(key)
        out.append(chunk)
        if len(out) == MAX_TERMS:
            break
    return out


def quote(term: str) -> str:
    """One FTS5 string: the tokenizer splits it, so `src/a.py` is the phrase "src a py"."""
    return '"' + term.replace('"', '""') + '"'


def match_expression(text: str, mode: Mode = "all") -> str | None:
    """The MATCH expression for `text`, or None: every term for "all", one or more for "any",
    two or more for "two" (of its first PAIRED_TERMS terms: any pair of them).

    None means the text has nothing to search for (empty, whitespace, punctuation only): the
    caller returns no hits without asking SQLite. Operators the user typed (AND, OR, NOT,
    NEAR, `*`, `^`, `:`, `-`, brackets, quotes) are quoted with the rest: they are words
    or separators here, never syntax.
    """
    found = terms(text)
    if not found:
        return None
    if mode == "two" and len(found) > 2:
        kept = [quote(term) for term in found[:PAIRED_TERMS]]
        pairs = [f"({a} {b})" for n, a in enumerate(kept) for b in kept[n + 1 :]]
        return " OR ".join(pairs)
    return (" OR " if mode == "any" else " ").join(quote(term) for term in found)


def scope_key(scope: str, project: str) -> str:
    """The token a document's scope is indexed under: digits only, so no stemmer rewrites it.

    A speed-up, not the boundary: MATCH narrows to the caller's scopes before bm25 ranks
    (a common word in 100k documents otherwise ranks them all); the SQL join on (scope,
    project) still decides, so even a colliding key could not let a document through.
    """
    digest = hashlib.sha256(f"{scope}\0{project}".encode("utf-8", "surrogatepass")).digest()
    return "k" + str(int.from_bytes(digest[:8], "big"))


def utf8(text: str) -> bool:
    """Whether SQLite can take `text` (a lone surrogate cannot be encoded)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def grants(allowed: Iterable[object]) -> list[tuple[str, str]]:
    """The (scope, stored project) pairs `allowed` grants; anything malformed grants nothing.

    Exactly two shapes grant: ('shared', None) and ('project', <non-empty str>). A project
    with a shared scope, an empty or non-string project, an unknown scope name: nothing.
    """
    out: list[tuple[str, str]] = []
    for item in allowed:
        if not isinstance(item, tuple | list) or len(item) != 2:
            continue
        scope, project = item
        if scope == "shared" and project is None:
            pair = ("shared", "")
        elif scope == "project" and isinstance(project, str) and project and utf8(project):
            pair = ("project", project)
        else:
            continue
        if pair not in out:
            out.append(pair)
    return out


class Query(NamedTuple):
    """A search split in two: the MATCH (the terms, then the caller's scope keys) and the
    filter over the docs row `d` that decides (scope pairs, status, kind, source, tags)."""

    terms: str  # the MATCH of the terms alone
    match: str  # the terms AND the caller's scope keys
    filters: str
    params: list[object]


def query(
    text: str,
    allowed: Sequence[tuple[str, str | None]],
    kinds: Sequence[str],
    tags: Sequence[str],
    include_superseded: bool,
    include_proposed: bool,
    sources: Sequence[str],
    mode: Mode,
    ranking: Sequence[str] = (),
) -> Query | None:
    """The search for `text` within `allowed`, or None when nothing can match.

    `ranking`: terms bm25 counts where a document holds them, though they find nothing
    themselves (the planner's common words): `(text) AND (ranking OR <scope keys>)`, where
    the scope keys, which every document in scope holds and which weigh nothing, make the
    second group always true.
    """
    pairs = grants(allowed)
    expression = match_expression(text, mode)
    if not pairs or expression is None:
        return None
    keys = " OR ".join(quote(scope_key(*pair)) for pair in pairs)
    extra = match_expression(" ".join(ranking), "any")
    if extra is not None:
        expression = f"({expression}) AND ({extra} OR scopekey : ({keys}))"
    statuses = ["active"] + ["proposed"] * include_proposed + ["superseded"] * include_superseded
    clauses = [
        f"(d.scope, d.project) IN (VALUES {','.join(['(?, ?)'] * len(pairs))})",
        f"d.status IN ({','.join('?' * len(statuses))})",
    ]
    params: list[object] = [*(value for pair in pairs for value in pair), *statuses]
    for column, values in (("kind", kinds), ("source", sources)):
        if values:
            clauses.append(f"d.{column} IN ({','.join('?' * len(values))})")
            params.extend(str(value) for value in values)
    for tag in tags:
        clauses.append("EXISTS (SELECT 1 FROM doc_tags t WHERE t.doc = d.rowid AND t.tag = ?)")
        params.append(str(tag).casefold())
    match = f"({expression}) AND scopekey : ({keys})"
    return Query(f"({expression})", match, " AND ".join(clauses), params)
