"""Snippets: a window around the first matched word, marked, at a cost that follows where that
word is, never how often the record holds it (FTS5's snippet() was quadratic in that)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory import snippets
from memhub.runtime.memory.index import IndexDoc, MemoryIndex

MINE = [("project", "p1")]
MIB = 1 << 20


def doc(doc_id: str, body: str, title: str = "notes") -> IndexDoc:
    return IndexDoc(
        id=doc_id, scope="project", project="p1", kind="fact", title=title, tags=(),
        status="active", body=body, path=f"/m/{doc_id}.md", revision="r", updated="2026-01-01",
    )  # fmt: skip


@pytest.fixture
def index(tmp_path: Path):
    with MemoryIndex(tmp_path / "index.sqlite") as opened:
        yield opened


def snippet(index: MemoryIndex, query: str, mode: str = "any") -> str:
    (hit,) = index.search(query, MINE, marks=("[", "]"), mode=mode)  # type: ignore[arg-type]
    return hit.snippet


def test_every_form_of_a_query_word_is_marked(index: MemoryIndex) -> None:
    index.rebuild(
        [
            doc("city", "We moved last May; the city was lovely. Cities are big. " * 3),
            doc("hope", "Filler words first. He was hoping to travel again, travelling by train."),
            doc("cafe", "Café crème à Paris, naïve résumé"),
            doc("path", "It lives in tools/migrate.py and the migration runs nightly."),
        ]
    )
    assert (
        snippet(index, "cities")
        == "We moved last May; the [city] was lovely. [Cities] are big. We…"
    )
    assert "[hoping]" in snippet(index, "hope") and "[travelling]" in snippet(index, "travel")
    assert snippet(index, "cafe resume") == "[Café] crème à Paris, naïve [résumé]"
    assert (
        snippet(index, "migration")
        == "It lives in tools/[migrate].py and the [migration] runs nightly."
    )


def test_a_snippet_is_a_dozen_words_and_a_title_match_shows_the_start(index: MemoryIndex) -> None:
    long = "alpha beta gamma delta " * 100 + "needle " + "omega " * 100
    index.rebuild([doc("long", long), doc("title", "nothing here to see today", title="needle")])
    hits = {h.doc.id: h.snippet for h in index.search("needle", MINE, marks=("[", "]"))}
    assert (
        hits["long"]
        == "…beta gamma delta [needle] omega omega omega omega omega omega omega omega…"
    )
    assert hits["title"] == "nothing here to see today"
    assert index.search("needle", MINE)[0].snippet.count("[") == 0  # no marks asked, none made


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters the snippet code reads (it folds every one it scans, once)."""
    seen: list[int] = []
    fold = snippets.fold

    def counting(text: str) -> str:
        seen.append(len(text))
        return fold(text)

    monkeypatch.setattr(snippets, "fold", counting)
    return seen


def cost(index: MemoryIndex, hits: int, counted: list[int]) -> tuple[int, int, list[str]]:
    """(VM steps, characters read, SQL run) of one search over a 1 MiB record holding
    `word` `hits` times."""
    body = "word " * hits + "other " * ((MIB - 5 * hits) // 6)
    index.rebuild([doc("big", body)])
    steps = [0]
    statements: list[str] = []

    def step() -> int:
        steps[0] += 1
        return 0

    counted.clear()
    index.db.set_progress_handler(step, 1)
    index.db.set_trace_callback(statements.append)
    try:
        (hit,) = index.search("word", MINE, marks=("[", "]"))
    finally:
        index.db.set_progress_handler(None, 1)
        index.db.set_trace_callback(None)
    assert hit.snippet.startswith("[word] [word]")
    return steps[0], sum(counted), statements


def test_a_search_in_a_huge_record_costs_the_same_at_1k_and_50k_hits(
    index: MemoryIndex, counted: list[int]
) -> None:
    few_steps, few_chars, few_sql = cost(index, 1_000, counted)
    many_steps, many_chars, many_sql = cost(index, 50_000, counted)
    for sql in few_sql + many_sql:  # never FTS5's snippet() (or highlight()) over a record
        assert "snippet(" not in sql and "highlight(" not in sql, sql
    assert few_chars == many_chars <= snippets.FIRST_STEP + 64
    assert many_steps <= 2 * few_steps


def test_the_scan_for_the_first_match_is_bounded(index: MemoryIndex, counted: list[int]) -> None:
    index.rebuild([doc("deep", "filler " * 30_000 + "needle and more")])  # 210 KB before it
    counted.clear()
    assert snippet(index, "needle").startswith("…filler filler filler [needle] and more")
    assert sum(counted) <= 2 * 210_000 + 3 * snippets.WINDOW_CHARS
    index.rebuild([doc("past", "filler " * 60_000 + "needle")])
    counted.clear()
    assert snippet(index, "needle").startswith("filler filler")  # past SCAN_CHARS: the start
    assert sum(counted) <= snippets.SCAN_CHARS + 64 * 8 + 3 * snippets.WINDOW_CHARS
