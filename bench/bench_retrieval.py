"""memhub's retrieval on a question set, through the real MCP server, beside `grep -ril`.

A set is a folder holding `notes.jsonl` ({id, kind, title, body, tags}) and
`questions_dev.jsonl` / `questions_test.jsonl` ({id, question, answers: [note ids],
category}); `bench/retrieval` is memhub's own, and a public benchmark converted to the same
format (bench/retrieval/locomo.py) is read the same way. The script:

* makes a fresh MEMHUB_HOME and a git checkout, binds it with `memhub project connect`, and
  imports every note as a project record through memhub's service (`plan_import` and
  `apply`, what `memhub memory import` runs);
* starts `memhub mcp serve` in the checkout and asks every question with `search_memory`
  (top_k 10) from the official SDK client over stdio, one after another, timing each call;
* runs the floor a user would try first: `grep -rilF` of each of the question's content
  words (the planner's: stop words dropped) over the same record files, ranking the files
  by how many of the words they hold, ties by path, timing all the greps of a question.

Scored as basic-memory's benchmark scores retrieval: recall@k is the share of a question's
answer notes among the first k hits, averaged over the questions; MRR the mean of 1/rank of
the first answer note; zero-hit the share of questions answered with no hit at all.
A report, not a test: exit 0 unless a goal is missed with --check.

    python bench/bench_retrieval.py [--set bench/retrieval] [--questions dev|test|all]
                                    [--only PREFIX,...] [--json] [--check] [--misses N]

`--only` keeps the notes and questions whose id starts with one of the prefixes: a public
set split by conversation (tune on `--only locomo-c00-,...,locomo-c04-`, report the rest).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.runtime.memory import layout, retrieval

HERE = Path(__file__).resolve().parent
MEMHUB = [sys.executable, "-m", "memhub.compiler.cli.main"]
TOP_K = 10
GOALS = {"recall@5": 0.85, "zero-hit": 0.01}
KINDS = ("fact", "preference", "decision", "lesson", "procedure", "artifact")


@dataclass
class Scored:
    """One tool's answers to every question, and its figures."""

    name: str
    ranked: dict[str, list[str]] = field(default_factory=dict)  # question id -> note ids
    seconds: dict[str, float] = field(default_factory=dict)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def questions_of(folder: Path, which: str) -> tuple[list[dict[str, Any]], str]:
    """The questions of `which` split, and the files read. A converted public set (one
    `questions.jsonl`, no splits: nothing was tuned on it) is read whole."""
    names = ["dev", "test"] if which == "all" else [which]
    paths = [folder / f"questions_{name}.jsonl" for name in names]
    paths = [path for path in paths if path.is_file()] or [folder / "questions.jsonl"]
    if not paths[0].is_file():
        raise SystemExit(f"{folder}: no questions_{which}.jsonl. Fix: --questions dev|test|all")
    return [q for path in paths for q in read_jsonl(path)], "+".join(p.name for p in paths)


# ------------------------------------------------------------------ loading
def git_checkout(path: Path) -> None:
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", str(path)], check=True)
    subprocess.run([*git, "-C", str(path), "commit", "-q", "--allow-empty", "-m", "i"], check=True)


def load(notes: list[dict[str, Any]], home: Path, checkout: Path, origin: str) -> dict[str, str]:
    """Import the notes as project records; record id -> note id."""
    from memhub.runtime.memory.plans import Candidate, Draft
    from memhub.runtime.memory.service import MemoryService
    from memhub.runtime.memory.workspace import open_workspace

    env = {**os.environ, "MEMHUB_HOME": str(home)}
    connect = [*MEMHUB, "project", "connect", "--name", "bench"]
    subprocess.run(connect, cwd=checkout, env=env, check=True, capture_output=True)
    candidates = []
    for note in notes:
        kind = note.get("kind") if note.get("kind") in KINDS else "fact"
        draft = Draft(kind=kind, title=str(note["title"]), body=str(note["body"]),
                      tags=tuple(note.get("tags") or ()), scope="project")  # fmt: skip
        text = json.dumps(note, sort_keys=True).encode()
        candidates.append(
            Candidate(draft, f"{origin}#{note['id']}", hashlib.sha256(text).hexdigest())
        )
    workspace = open_workspace(home, project=checkout, scopes=("shared", "project"), writable=True)
    with MemoryService(workspace) as service:
        plan = service.plan_import(candidates, force=True)
        service.apply(plan)
    created = [change.record_id for change in plan.changes if change.action == "create"]
    if len(created) != len(notes):
        raise SystemExit(f"imported {len(created)} of {len(notes)} notes: {plan.notes[:3]}")
    return {record: str(note["id"]) for record, note in zip(created, notes, strict=True)}


# ------------------------------------------------------------------ asking
def ask_memhub(
    questions: list[dict[str, Any]], home: Path, checkout: Path, notes_of: dict[str, str]
) -> Scored:
    """Every question through `search_memory` of one running `memhub mcp serve`."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    scored = Scored("memhub search_memory")
    env = {"MEMHUB_HOME": str(home), "PATH": os.environ.get("PATH", ""),
           "HOME": os.environ.get("HOME", str(home))}  # fmt: skip

    async def session() -> None:
        params = StdioServerParameters(
            command=MEMHUB[0], args=[*MEMHUB[1:], "mcp", "serve"], cwd=str(checkout), env=env
        )
        async with Client(params, read_timeout_seconds=120) as client:
            await client.call_tool("search_memory", {"query": "warm up"})
            for question in questions:
                started = time.perf_counter()
                result = await client.call_tool(
                    "search_memory", {"query": question["question"], "top_k": TOP_K}
                )
                scored.seconds[question["id"]] = time.perf_counter() - started
                if result.is_error:
                    raise SystemExit(f"search_memory {question['question']!r}: {result.content}")
                items = json.loads(result.content[0].text)["items"]
                scored.ranked[question["id"]] = [notes_of.get(i["id"], i["id"]) for i in items]

    anyio.run(session)
    return scored


def ask_grep(questions: list[dict[str, Any]], folder: Path, notes_of: dict[str, str]) -> Scored:
    """The floor: `grep -rilF WORD` per content word, files ranked by words held, then path."""
    scored = Scored("grep -ril (content words)")
    for question in questions:
        words = [w.casefold() for w in retrieval.plan(question["question"]).content]
        started = time.perf_counter()
        held: dict[str, int] = defaultdict(int)
        for word in dict.fromkeys(words):
            done = subprocess.run(["grep", "-rilF", "--", word, str(folder)], capture_output=True)
            for line in done.stdout.decode("utf-8", "replace").splitlines():
                held[line] += 1
        scored.seconds[question["id"]] = time.perf_counter() - started
        ranked = sorted(held, key=lambda path: (-held[path], path))[:TOP_K]
        scored.ranked[question["id"]] = [notes_of.get(Path(p).stem, p) for p in ranked]
    return scored


# ------------------------------------------------------------------ scoring
def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def figures(scored: Scored, questions: list[dict[str, Any]]) -> dict[str, float]:
    def recall(q: dict[str, Any], k: int) -> float:
        wanted = set(q["answers"])
        return len(wanted & set(scored.ranked[q["id"]][:k])) / len(wanted) if wanted else 0.0

    def rr(q: dict[str, Any]) -> float:
        for rank, note in enumerate(scored.ranked[q["id"]], 1):
            if note in q["answers"]:
                return 1.0 / rank
        return 0.0

    n = len(questions) or 1
    times = [scored.seconds[q["id"]] * 1000 for q in questions]
    return {
        "questions": len(questions),
        "recall@5": sum(recall(q, 5) for q in questions) / n,
        "recall@10": sum(recall(q, 10) for q in questions) / n,
        "mrr": sum(rr(q) for q in questions) / n,
        "zero-hit": sum(not scored.ranked[q["id"]] for q in questions) / n,
        "p50_ms": statistics.median(times) if times else 0.0,
        "p99_ms": percentile(times, 0.99),
    }


def by_category(scored: Scored, questions: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for question in questions:
        groups[str(question.get("category") or "-")].append(question)
    return {name: figures(scored, group) for name, group in sorted(groups.items())}


def select(
    notes: list[dict[str, Any]], questions: list[dict[str, Any]], only: tuple[str, ...]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The notes and questions whose id starts with one of `only` (a set split by
    conversation); an error when that leaves none of either."""
    notes = [note for note in notes if str(note["id"]).startswith(only)]
    questions = [q for q in questions if str(q["id"]).startswith(only)]
    if not notes or not questions:
        raise SystemExit(f"--only {','.join(only)}: no notes or no questions left")
    return notes, questions


def run(folder: Path, which: str, only: tuple[str, ...] = ()) -> dict[str, Any]:
    notes = read_jsonl(folder / "notes.jsonl")
    questions, read = questions_of(folder, which)
    if only:
        notes, questions = select(notes, questions, only)
        read += f" (only {','.join(only)})"
    scratch = Path(tempfile.mkdtemp(prefix="bench-retrieval-"))
    try:
        home, checkout = scratch / "home", scratch / "app"
        checkout.mkdir()
        git_checkout(checkout)
        print(f"importing {len(notes)} notes", file=sys.stderr)
        notes_of = load(notes, home, checkout, str(folder.name))
        pid = next(iter(layout.memory_root(home).joinpath("projects").iterdir())).name
        records = layout.project_records(layout.memory_root(home), pid)
        print(f"asking {len(questions)} questions", file=sys.stderr)
        tools = [
            ask_memhub(questions, home, checkout, notes_of),
            ask_grep(questions, records, notes_of),
        ]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "set": str(folder),
        "questions": read,
        "notes": len(notes),
        "tools": {t.name: figures(t, questions) for t in tools},
        "categories": {t.name: by_category(t, questions) for t in tools},
        "misses": misses(tools[0], questions),
    }


def misses(scored: Scored, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The questions whose answer is not among the first five hits (for tuning on dev)."""
    out = []
    for q in questions:
        got = scored.ranked[q["id"]][:5]
        if not set(q["answers"]) & set(got):
            out.append({"id": q["id"], "question": q["question"], "answers": q["answers"],
                        "got": got})  # fmt: skip
    return out


def report(results: dict[str, Any]) -> str:
    lines = [
        f"{results['set']}: {results['notes']} notes, {results['questions']}",
        "",
        "| tool | questions | recall@5 | recall@10 | MRR | zero-hit | p50 | p99 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, f in results["tools"].items():
        lines.append(
            f"| {name} | {f['questions']} | {f['recall@5']:.3f} | {f['recall@10']:.3f}"
            f" | {f['mrr']:.3f} | {f['zero-hit']:.1%} | {f['p50_ms']:.1f} ms"
            f" | {f['p99_ms']:.1f} ms |"
        )
    names = list(results["categories"])
    lines += ["", "| category | questions | " + " | ".join(f"{n}: recall@5" for n in names) + " |",
              "|---|---|" + "---|" * len(names)]  # fmt: skip
    first = results["categories"][names[0]]
    for category, f in first.items():
        cells = [f"{results['categories'][n][category]['recall@5']:.3f}" for n in names]
        lines.append(f"| {category} | {f['questions']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def goals(results: dict[str, Any]) -> list[tuple[str, bool]]:
    mine = next(iter(results["tools"].values()))
    return [
        (f"recall@5 >= {GOALS['recall@5']} (is {mine['recall@5']:.3f})",
         mine["recall@5"] >= GOALS["recall@5"]),
        (f"zero-hit <= {GOALS['zero-hit']:.0%} (is {mine['zero-hit']:.1%})",
         mine["zero-hit"] <= GOALS["zero-hit"]),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", type=Path, default=HERE / "retrieval", help="the set's folder")
    parser.add_argument("--questions", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--only", default="", help="id prefixes to keep, comma-separated")
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--misses", type=int, default=0, help="show this many misses (tuning)")
    args = parser.parse_args(argv)
    only = tuple(prefix for prefix in args.only.split(",") if prefix)
    results = run(args.set.resolve(), args.questions, only)
    if args.as_json:
        print(json.dumps(results, indent=2))
    else:
        print(report(results))
        print(
            "\n" + "\n".join(f"goal {w}: {'met' if ok else 'MISSED'}" for w, ok in goals(results))
        )
        for miss in results["misses"][: args.misses]:
            print(
                f"miss {miss['id']}: {miss['question']!r} wants {miss['answers']} got {miss['got']}"
            )
    return 1 if args.check and not all(ok for _, ok in goals(results)) else 0


if __name__ == "__main__":
    raise SystemExit(main())
