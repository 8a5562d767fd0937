"""A search hit as the CLI and the MCP server show it: which source, which document, where.

Stdlib only, no dataclasses: a plain `memhub memory search` imports this before anything
else (compiler/cli/memory_search.py).
"""

from __future__ import annotations

from typing import NamedTuple

from .indexdoc import Hit


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
    )
