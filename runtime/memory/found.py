"""A search hit as the CLI and the MCP server show it: which source, which document, where.

Stdlib only, no dataclasses: a plain `memhub memory search` imports this before anything
else (compiler/cli/memory_search.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from .indexdoc import Hit

if TYPE_CHECKING:
    from .retrieval import Answer


class Found(NamedTuple):
    """One search hit, naming its source (a record or a captured session)."""

    source: str  # "record" | "session"
    id: str
    title: str
    kind: str
    scope: str
    snippet: str
    score: float
    revision: str | None
    updated: str
    tags: tuple[str, ...]
    host: str | None = None  # for sessions
    match: str = "strict"  # "strict": every term of the query; "relaxed": some of them
    matched_terms: tuple[str, ...] = ()  # the query's terms this hit holds


class Results(list[Found]):
    """A search's hits, best first, and what the planner made of the query: its `terms`,
    the ones that found nothing (`unmatched`) and the stop words it left out (`ignored`)."""

    def __init__(
        self,
        hits: Iterable[Found] = (),
        terms: Sequence[str] = (),
        unmatched: Sequence[str] = (),
        ignored: Sequence[str] = (),
    ) -> None:
        super().__init__(hits)
        self.terms = tuple(terms)
        self.unmatched = tuple(unmatched)
        self.ignored = tuple(ignored)


def results_of(answer: Answer) -> Results:
    """A planned search's answer as shown."""
    hits = (found_of(hit) for hit in answer.hits)
    return Results(hits, answer.terms, answer.unmatched, answer.ignored)


def found_of(hit: Hit) -> Found:
    """The hit as shown: a session names its host (its first tag) and carries no revision."""
    doc = hit.doc
    session = doc.source == "session"
    return Found(
        source=doc.source,
        id=doc.id,
        title=doc.title,
        kind=doc.kind,
        scope=doc.scope,
        snippet=hit.snippet,
        score=hit.score,
        revision=None if session else doc.revision,
        updated=doc.updated,
        tags=() if session else doc.tags,
        host=(doc.tags[0] if doc.tags else None) if session else None,
        match=hit.match,
        matched_terms=hit.matched,
    )
