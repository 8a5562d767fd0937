"""bench/bench_search_cpu.py keeps working: a run over 300 records reports CPU figures for
both kinds of query and saves the ids each query returned. Timings are not checked."""

from __future__ import annotations

import json
from pathlib import Path

from .runbench import run_bench


def test_a_small_run_reports_both_kinds_and_saves_the_answers(tmp_path: Path) -> None:
    saved = tmp_path / "answers.json"
    out = run_bench(
        "bench_search_cpu.py", "--size", "300", "--queries", "8", "--save", str(saved), timeout=300
    )
    assert "| search_memory, 1-2 words | 8 |" in out
    assert "| search_memory, sentences | 2 |" in out
    answers = json.loads(saved.read_text())
    assert [len(answers[k]) for k in ("1-2 words", "sentences")] == [8, 2]
    assert any(ids for ids in answers["1-2 words"])  # the corpus term finds something
