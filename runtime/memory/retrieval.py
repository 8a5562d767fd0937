"""The query planner: a question asked in sentences, answered from the FTS5 index alone.

A search runs strict first: every term as typed, as `memhub memory search` always did.
When that leaves room under the limit it runs relaxed: any of the query's content words
(stop words dropped; the tokenizer's porter stems let "travelled" find "travel"), ranked by
bm25 with the title and tag weights, so a note holding more and rarer of the words ranks
higher. Strict hits stay on top and relaxed ones follow, never twice; every hit says how it
was found and which terms it holds, and an answer names the terms that found nothing.
No model is called. Stdlib only (the hook read path and a plain search import this).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, TypedDict

from . import fts, indexterms
from .index import Hit, MemoryIndex

# English function words and question words: in a question they say how it is asked, not
# what it is about ("When did Calvin first travel to Tokyo?" is about Calvin, travel, Tokyo).
# Kept small: a word that names something (first, last, new, time) stays a content word.
_STOP = """
a about above after again against all am an and any are aren as at be because been before
being below between both but by can cannot could couldn d did didn do does doesn doing don
down during each either ever few for from further had hadn has hasn have haven having he her
here hers herself him himself his how i if in into is isn it its itself just ll m me might
more most must mustn my myself no nor not now o of off on once only or other our ours
ourselves out over own re s same shall shan she should shouldn so some such t than that the
their theirs them themselves then there these they this those through to too under until up
upon us ve very was wasn we were weren what whatever when whenever where wherever whether
which while who whoever whom whose why will with won would wouldn y you your yours yourself
yourselves
"""
STOP_WORDS = frozenset(_STOP.split())
MAX_UNMATCHED_CHECKS = 16  # terms looked up one by one when an answer misses them
# A content word held by more documents than this is common: it ranks the relaxed hits that
# hold it, and finds none on its own. bm25 already weighs words by rarity; this bounds what
# a relaxed query ranks (any of "run the tests on CI" over 100k records: 300 ms of bm25).
# The floor keeps a memory of a few hundred records from ever calling a word common.
COMMON_FLOOR = 1000
COMMON_SHARE = 0.02
_WORD = re.compile(r"[^\W_]+")
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


class Plan(NamedTuple):
    """How a query is asked: its terms (strict), its content terms (relaxed), and the
    stop words the relaxed query leaves out."""

    terms: tuple[str, ...]
    content: tuple[str, ...]
    ignored: tuple[str, ...]


class _Filters(TypedDict):
    """What narrows every query of one search, as MemoryIndex.search takes it."""

    kinds: Sequence[str]
    tags: Sequence[str]
    include_superseded: bool
    include_proposed: bool
    sources: Sequence[str]


class Answer(NamedTuple):
    """A planned search's hits (strict first) and what it made of the query."""

    hits: list[Hit]
    terms: tuple[str, ...]
    unmatched: tuple[str, ...]  # terms no document in the caller's search holds
    ignored: tuple[str, ...]  # stop words the relaxed query left out


def plan(text: str) -> Plan:
    """The terms of `text` as typed (outer punctuation trimmed, one per spelling: the strict
    query), its distinct words that carry content (the relaxed query: "title:Calvin's"
    gives "title" and "Calvin"), and the rest: stop words and single characters."""
    terms: list[str] = []
    content: list[str] = []
    ignored: list[str] = []
    seen: set[str] = set()
    words: set[str] = set()
    for chunk in fts.terms(text):
        term = _EDGES.sub("", chunk)
        if not term or term.casefold() in seen:
            continue
        seen.add(term.casefold())
        terms.append(term)
        for word in _WORD.findall(term):
            key = word.casefold()
            if key not in words:
                words.add(key)
                (ignored if key in STOP_WORDS or len(key) < 2 else content).append(word)
    return Plan(tuple(terms), tuple(content), tuple(ignored))


def search(
    index: MemoryIndex,
    text: str,
    allowed: Sequence[tuple[str, str | None]],
    *,
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_superseded: bool = False,
    include_proposed: bool = True,
    sources: Sequence[str] = ("record",),
    limit: int = 20,
    marks: tuple[str, str] = ("", ""),
) -> Answer:
    """The best `limit` hits for `text` within `allowed`: strict hits, then relaxed ones."""
    asked = plan(text)
    scoped: _Filters = {
        "kinds": kinds,
        "tags": tags,
        "include_superseded": include_superseded,
        "include_proposed": include_proposed,
        "sources": sources,
    }
    strict = index.search(" ".join(asked.terms), allowed, limit=limit, marks=marks, **scoped)
    hits = [hit._replace(matched=asked.terms) for hit in strict]
    nothing: tuple[str, ...] = ()  # terms a query of this search showed to find nothing
    relax = asked.content and (len(asked.terms) > 1 or asked.content != asked.terms)
    if relax and len(hits) < limit:
        attempts, nothing = _relaxed(index, asked)
        for finding, ranking, mode in attempts:
            strict_again = mode == "all" or (mode == "two" and len(finding) <= 2)
            if not finding or (strict_again and finding == asked.terms):
                continue  # nothing to find, or what the strict query asked
            relaxed = index.search(
                " ".join(finding),
                allowed,
                limit=limit - len(hits),
                mode=mode,
                marks=marks,
                report=asked.content,
                exclude={hit.doc.key for hit in hits},
                ranking=ranking,
                **scoped,
            )
            hits += [hit._replace(match="relaxed") for hit in relaxed]
            if relaxed:
                break
            if mode == "any" and not hits:
                nothing += finding
    unmatched = _unmatched(index, asked, hits, nothing, allowed, scoped)
    return Answer(hits, asked.terms, unmatched, asked.ignored)


Attempt = tuple[tuple[str, ...], tuple[str, ...], fts.Mode]  # (finding, ranking, mode)


def _relaxed(index: MemoryIndex, asked: Plan) -> tuple[list[Attempt], tuple[str, ...]]:
    """The relaxed queries to try in turn until one finds something, as (words that find,
    words that only rank, mode), and the words no document holds. Any of the rare content
    words finds and the common ones rank; when no rare word is held by any document, all of
    the common ones, then any two of them (a costlier union, asked only when needed)."""
    total = indexterms.documents(index.db)
    cap = max(COMMON_FLOOR, int(COMMON_SHARE * total))
    if total <= cap:
        return [(asked.content, (), "any")], ()
    held = {term: indexterms.holders(index.db, term, cap) for term in asked.content}
    common = tuple(term for term in asked.content if held[term] >= cap)
    rare = tuple(term for term in asked.content if 0 < held[term] < cap)
    nowhere = tuple(term for term in asked.content if not held[term])
    if rare:
        return [(rare, common, "any")], nowhere
    return [(common, (), "all"), (common, (), "two")], nowhere


def _unmatched(
    index: MemoryIndex,
    asked: Plan,
    hits: list[Hit],
    nothing: tuple[str, ...],
    allowed: Sequence[tuple[str, str | None]],
    scoped: _Filters,
) -> tuple[str, ...]:
    """The terms that find nothing in the caller's search: none when a hit holds every
    term; otherwise those no hit holds, `nothing` (any one of them would have been a hit)
    known, the rest looked up one by one."""
    if any(hit.match == "strict" for hit in hits):
        return ()
    held = {term for hit in hits for term in hit.matched}
    missing = [term for term in asked.content or asked.terms if term not in held]
    unknown = [term for term in missing if term not in nothing][:MAX_UNMATCHED_CHECKS]
    absent = set(indexterms.absent(index.db, unknown, allowed, **scoped)) if unknown else set()
    return tuple(term for term in missing if term in nothing or term in absent)
