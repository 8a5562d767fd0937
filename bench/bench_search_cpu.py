"""CPU time of each `search_memory` call, measured inside one process (the thread's own CPU
clock: another process's load does not count, so a busy machine gives usable figures).

The MCP server's read tools (`ReadTools` over a `MemoryService` with the server's recheck)
answer bench_memory's queries (one or two words of its vocabulary and corpus terms, the same
seed) and whole sentences, over bench_memory_fresh's corpus (made once with --corpus, reused
after). Reports CPU p50/p99 per kind of query and the SQLite VM steps of a query, and with
--save FILE the ids every query returned (compare two runs to prove answers unchanged).
The server's background re-check runs on its own thread and is not counted. A report, not a
test; wall-clock p99 through the real server is bench_memory.py's.

    python bench/bench_search_cpu.py [--size 100000] [--corpus DIR] [--queries 1000]
                                     [--save FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import SEED, WORDS
from bench_memory_fresh import corpus_at

SENTENCES = [
    "When did we move the queue off Redis?",
    "How do I run the tests on CI?",
    "What is the deploy procedure for staging?",
    "Why did the migration fail with a timeout?",
    "Which token rotation policy do we use for the vault?",
]


def queries(term: str, count: int) -> dict[str, list[str]]:
    """bench_memory's server queries (1-2 words), and a sentence per four of them."""
    rng = random.Random(SEED + 1)
    pool = [term, *WORDS[40:]]
    words = [" ".join(rng.sample(pool, rng.randint(1, 2))) for _ in range(count)]
    sentences = [
        f"{rng.choice(SENTENCES)} {' '.join(rng.sample(WORDS[40:], 2))}" for _ in range(count // 4)
    ]
    return {"1-2 words": words, "sentences": sentences}


def measure(root: Path, size: int, count: int) -> tuple[dict[str, dict[str, float]], dict]:
    home, checkout, _, term = corpus_at(root, size)
    os.environ["MEMHUB_HOME"] = str(home)
    os.chdir(checkout)
    from memhub.compiler.cli.memory_common import open_service
    from memhub.runtime.memory.service import MemoryService
    from memhub.runtime.server import app
    from memhub.runtime.server.tools import ReadTools

    service = MemoryService(open_service(None).workspace, recheck=app.RECHECK_S)
    tools = ReadTools(service, store=lambda: None)
    service.refresh_index(full=True)
    tools.search_memory("warmup")
    db = service._scan().index.db
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    figures: dict[str, dict[str, float]] = {}
    answers: dict[str, list[list[str]]] = {}
    for name, asked in queries(term, count).items():
        times: list[float] = []
        vm: list[int] = []
        answers[name] = []
        for query in asked:
            steps[0] = 0
            db.set_progress_handler(step, 100)
            start = time.thread_time()
            found = tools.search_memory(query)
            times.append(time.thread_time() - start)
            db.set_progress_handler(None, 100)
            vm.append(steps[0] * 100)
            answers[name].append([item["id"] for item in found["items"]])
        times.sort()
        p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
        figures[name] = {"queries": len(times), "cpu_p50_ms": statistics.median(times) * 1000,
                         "cpu_p99_ms": p99 * 1000, "cpu_max_ms": times[-1] * 1000,
                         "vm_steps_p50": statistics.median(vm)}  # fmt: skip
    service.close()
    return figures, answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--corpus", type=Path, help="make the corpus here once, reuse it after")
    parser.add_argument("--save", type=Path, help="write the ids each query returned here")
    args = parser.parse_args(argv)
    if args.corpus is not None:
        args.corpus.mkdir(parents=True, exist_ok=True)
        figures, answers = measure(args.corpus.resolve(), args.size, args.queries)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            figures, answers = measure(Path(tmp), args.size, args.queries)
    if args.save is not None:
        args.save.write_text(json.dumps(answers))
    print(f"| {args.size:,} records | queries | CPU p50 | CPU p99 | CPU max | VM steps p50 |")
    print("|---|---|---|---|---|---|")
    for name, f in figures.items():
        print(f"| search_memory, {name} | {f['queries']:.0f} | {f['cpu_p50_ms']:.1f} ms"
              f" | {f['cpu_p99_ms']:.1f} ms | {f['cpu_max_ms']:.1f} ms"
              f" | {f['vm_steps_p50']:,.0f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
