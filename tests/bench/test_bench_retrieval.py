"""bench/bench_retrieval.py keeps working and scores as it says: a small set of its format is
imported, asked through the real MCP server and through grep, and every figure reported."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from .runbench import run_bench

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "bench_retrieval.py"

pytest.importorskip("mcp", reason="the mcp SDK (test extra) runs the server part")

NOTES = [
    {"id": "calvin-tokyo", "kind": "fact", "title": "Calvin's trip to Japan",
     "body": "Calvin flew to Tokyo in March 2023.", "tags": ["travel"]},
    {"id": "dana-kyoto", "kind": "fact", "title": "Dana in Kyoto",
     "body": "Dana took the train to Kyoto.", "tags": []},
    {"id": "queue", "kind": "decision", "title": "Payments broker: RabbitMQ",
     "body": "The Celery broker moved from Redis to RabbitMQ.", "tags": ["redis"]},
]  # fmt: skip
QUESTIONS = [
    {"id": "q1", "question": "When did Calvin first travel to Tokyo?", "answers": ["calvin-tokyo"],
     "category": "temporal"},
    {"id": "q2", "question": "Why did the broker leave Redis?", "answers": ["queue"],
     "category": "single-hop"},
    {"id": "q3", "question": "Where is the quokka?", "answers": ["dana-kyoto"],
     "category": "paraphrase"},
]  # fmt: skip


def _load():
    spec = importlib.util.spec_from_file_location("bench_retrieval", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_scores_as_documented() -> None:
    bench = _load()
    scored = bench.Scored("x", ranked={"a": ["n1", "n2"], "b": ["n9", "n3", "n4"], "c": []},
                          seconds={"a": 0.001, "b": 0.003, "c": 0.002})  # fmt: skip
    questions = [{"id": "a", "answers": ["n2", "n7"]}, {"id": "b", "answers": ["n3"]},
                 {"id": "c", "answers": ["n1"]}]  # fmt: skip
    f = bench.figures(scored, questions)
    assert f["recall@5"] == pytest.approx((0.5 + 1 + 0) / 3)  # share of each one's answers
    assert f["mrr"] == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    assert f["zero-hit"] == pytest.approx(1 / 3) and f["p50_ms"] == pytest.approx(2.0)


def test_only_keeps_the_notes_and_questions_of_the_prefixes_named() -> None:
    bench = _load()
    notes = [{"id": f"locomo-c0{c}-s01"} for c in range(3)]
    questions = [{"id": f"locomo-c0{c}-q0000"} for c in range(3)]
    kept = bench.select(notes, questions, ("locomo-c00-", "locomo-c02-"))
    assert [n["id"] for n in kept[0]] == ["locomo-c00-s01", "locomo-c02-s01"]
    assert [q["id"] for q in kept[1]] == ["locomo-c00-q0000", "locomo-c02-q0000"]
    with pytest.raises(SystemExit, match="no notes or no questions left"):
        bench.select(notes, questions, ("locomo-c09-",))


def test_a_small_set_through_the_server_and_grep(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    (folder / "questions_dev.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    out = run_bench("bench_retrieval.py", "--set", str(folder), "--questions", "dev", "--json")
    data = json.loads(out)
    memhub, grep = data["tools"].values()
    assert (data["notes"], memhub["questions"]) == (3, 3)
    assert memhub["recall@5"] == pytest.approx(2 / 3) and memhub["zero-hit"] == pytest.approx(1 / 3)
    assert 0 < memhub["p50_ms"] <= memhub["p99_ms"] and grep["p50_ms"] > 0
    assert [m["id"] for m in data["misses"]] == ["q3"]
