"""Time the memory search index: rebuild of 10k and 100k synthetic docs, then 1,000 searches.

Documents are synthetic records spread over 50 projects and the shared scope, words drawn
from a Zipf-like vocabulary (so some query words match a large share of the corpus, as
"test" or "config" would). Each search is scoped to one project plus shared, 1-3 words, mode
"all", limit 20. Prints rebuild time, a no-op refresh, and search p50/p99. A report, not a test.

    python bench/bench_memory_index.py [--sizes 10000 100000] [--queries 1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memhub.runtime.memory.index import IndexDoc, MemoryIndex

PROJECTS = 50
VOCABULARY = 20_000
KINDS = ("fact", "preference", "decision", "lesson", "procedure", "artifact")


def vocabulary(rng: random.Random) -> list[str]:
    """Pronounceable pseudo-words, distinct."""
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))))
    return sorted(words)


def sampler(rng: random.Random, words: list[str]) -> list[float]:
    """Zipf (s=1) cumulative weights over `words`."""
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    total, acc, out = sum(weights), 0.0, []
    for weight in weights:
        acc += weight / total
        out.append(acc)
    return out


def docs(count: int, seed: int = 7) -> tuple[list[IndexDoc], list[str], list[float]]:
    """`count` synthetic documents, and the vocabulary with its weights (for queries)."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    cum = sampler(rng, words)

    def text(n: int) -> str:
        return " ".join(rng.choices(words, cum_weights=cum, k=n))

    out = []
    for number in range(count):
        project = rng.randrange(PROJECTS + 1)
        scope, owner = ("shared", None) if project == PROJECTS else ("project", f"proj{project}")
        out.append(
            IndexDoc(
                id=f"rec{number:06d}",
                scope=scope,
                project=owner,
                kind=rng.choice(KINDS),
                title=text(rng.randint(3, 8)),
                tags=tuple(rng.sample(words[:200], 2)),
                status=rng.choices(("active", "proposed", "superseded"), (90, 5, 5))[0],
                body=text(rng.randint(40, 160)),
                path=f"{scope}/{owner}/rec{number:06d}.md",
                revision=f"{number:x}",
                updated=f"2026-01-{1 + number % 28:02d}T00:00:00Z",
            )
        )
    return out, words, cum


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def run(size: int, queries: int, folder: Path) -> dict[str, float]:
    """Rebuild an index of `size` docs, refresh it unchanged, run `queries` searches."""
    corpus, words, cum = docs(size)
    rng = random.Random(size)
    with MemoryIndex(folder / f"index-{size}.sqlite") as index:
        start = time.perf_counter()
        index.rebuild(corpus)
        rebuild = time.perf_counter() - start
        start = time.perf_counter()
        index.refresh(corpus)
        refresh = time.perf_counter() - start
        times, hits = [], 0
        for _ in range(queries):
            query = " ".join(rng.choices(words, cum_weights=cum, k=rng.randint(1, 3)))
            allowed = [("project", f"proj{rng.randrange(PROJECTS)}"), ("shared", None)]
            start = time.perf_counter()
            hits += len(index.search(query, allowed))
            times.append(time.perf_counter() - start)
    return {
        "docs": size,
        "rebuild_s": rebuild,
        "rebuild_per_10k_s": rebuild / size * 10_000,
        "noop_refresh_s": refresh,
        "search_p50_ms": statistics.median(times) * 1000,
        "search_p99_ms": percentile(times, 99) * 1000,
        "search_max_ms": max(times) * 1000,
        "mean_hits": hits / queries,
        "file_mb": (folder / f"index-{size}.sqlite").stat().st_size / 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        results = [run(size, args.queries, Path(tmp)) for size in args.sizes]
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
        return 0
    for r in results:
        print(
            f"{r['docs']:>7} docs: rebuild {r['rebuild_s']:.2f} s"
            f" ({r['rebuild_per_10k_s']:.2f} s per 10k), no-op refresh {r['noop_refresh_s']:.2f} s,"
            f" search p50 {r['search_p50_ms']:.2f} ms p99 {r['search_p99_ms']:.2f} ms"
            f" max {r['search_max_ms']:.1f} ms, {r['mean_hits']:.1f} hits/query,"
            f" file {r['file_mb']:.0f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
