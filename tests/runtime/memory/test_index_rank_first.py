"""Ranking first and filtering after (index._ranked_first) returns exactly what the joined
query returns: the same hits, scores, snippets and tie order, or it hands over to it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from memhub.runtime.memory import index as index_module
from memhub.runtime.memory.index import IndexDoc, MemoryIndex

WORDS = [
    "deploy",
    "cache",
    "token",
    "review",
    "merge",
    "worker",
    "retry",
    "lock",
    "queue",
    "shard",
    "canary",
]
MINE = [("project", "p1"), ("shared", None)]


def corpus(rng: random.Random, size: int) -> list[IndexDoc]:
    """Documents in three scopes, every status, many exact duplicates (ties in bm25) and
    identical timestamps (ties in `updated` too)."""
    docs = []
    for n in range(size):
        scope, project = rng.choice([("project", "p1")] * 6 + [("shared", None), ("project", "p2")])
        words = rng.choices(WORDS, k=rng.randint(1, 6)) if n % 3 else ["deploy", "cache"]
        docs.append(
            IndexDoc(
                id=f"r{n:04d}",
                scope=scope,
                project=project,
                kind=rng.choice(("fact", "lesson", "decision")),
                title=" ".join(words[:2]),
                tags=(),
                status=rng.choice(("active",) * 5 + ("proposed", "superseded")),
                body=" ".join(words),
                path=f"/m/{scope}/{project}/r{n:04d}.md",
                revision="r",
                updated=f"2026-01-0{1 + n % 3}T00:00:00Z",
                source="record",
            )
        )
    return docs


def both(index: MemoryIndex, monkeypatch: pytest.MonkeyPatch, query: str, **kw):
    """(the default search, the joined query alone), as comparable tuples."""

    def shown(hits):
        return [(h.doc.id, h.score, h.snippet) for h in hits]

    fast = shown(index.search(query, MINE, **kw))
    with monkeypatch.context() as patch:
        patch.setattr(index_module, "RANK_FIRST_SHARE", 2.0)  # never rank first
        joined = shown(index.search(query, MINE, **kw))
    return fast, joined


@pytest.mark.parametrize("rows_per_hit", [0, 1, 4])
def test_rank_first_equals_the_joined_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows_per_hit: int
) -> None:
    """0 and 1 rows per hit make the fetched few run out and end on ties: the hand-over
    and the tie rule are exercised, not only the easy case."""
    monkeypatch.setattr(index_module, "RANK_FIRST_ROWS", rows_per_hit)
    rng = random.Random(rows_per_hit)
    taken: list[str] = []
    original = MemoryIndex._ranked_first

    def spy(self, *args):
        result = original(self, *args)
        taken.append("ranked" if result is not None else "handed over")
        return result

    monkeypatch.setattr(MemoryIndex, "_ranked_first", spy)
    with MemoryIndex(tmp_path / "index.sqlite") as index:
        index.rebuild(corpus(rng, 400))
        for _ in range(60):
            query = " ".join(rng.sample(WORDS, rng.randint(1, 2)))
            for limit in (1, 3, 10, 50):
                fast, joined = both(index, monkeypatch, query, limit=limit)
                assert fast == joined, (query, limit)
                assert len(fast) == len(set(h[0] for h in fast))
    assert "ranked" in taken
    if rows_per_hit <= 1:
        assert "handed over" in taken


def test_filters_and_narrow_scopes_take_the_joined_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[object] = []
    monkeypatch.setattr(MemoryIndex, "_ranked_first", lambda self, *a: taken.append(a))
    with MemoryIndex(tmp_path / "index.sqlite") as index:
        index.rebuild(corpus(random.Random(1), 200))
        assert index.search("deploy", MINE, kinds=("lesson",))
        assert index.search("deploy", MINE, tags=("x",)) == []
        # p2 holds about a tenth of the documents: ranking all of them first would waste
        assert index.search("deploy", [("project", "p2")])
        assert taken == []
        index.search("deploy", MINE)
        assert len(taken) == 1


def test_document_counts_follow_every_change(tmp_path: Path) -> None:
    """The counts the choice reads are kept by triggers through refresh, update, rebuild."""
    rng = random.Random(7)
    with MemoryIndex(tmp_path / "index.sqlite") as index:

        def counts() -> tuple[dict, dict]:
            kept = {
                (s, sc, p): n for s, sc, p, n in index.db.execute("SELECT * FROM doc_counts") if n
            }
            real = {
                (s, sc, p): n
                for s, sc, p, n in index.db.execute(
                    "SELECT source, scope, project, count(*) FROM docs GROUP BY 1, 2, 3"
                )
            }
            return kept, real

        docs = corpus(rng, 120)
        index.refresh(docs)
        assert counts()[0] == counts()[1] and counts()[0]
        index.refresh(docs[::2])
        assert counts()[0] == counts()[1]
        index.update(docs[1::4], removed_paths=[d.path for d in docs[:10]])
        assert counts()[0] == counts()[1]
        index.rebuild(docs[:5])
        assert counts()[0] == counts()[1]
        assert sum(counts()[0].values()) == 5
