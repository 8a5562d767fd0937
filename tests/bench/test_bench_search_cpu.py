"""bench/bench_search_cpu.py keeps working: a run over 300 records reports CPU figures for
both kinds of query and saves the ids each query returned. Timings are not checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "bench_search_cpu.py"


def test_a_small_run_reports_both_kinds_and_saves_the_answers(tmp_path: Path) -> None:
    saved = tmp_path / "answers.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--size", "300", "--queries", "8", "--save", str(saved)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "| search_memory, 1-2 words | 8 |" in proc.stdout
    assert "| search_memory, sentences | 2 |" in proc.stdout
    answers = json.loads(saved.read_text())
    assert [len(answers[k]) for k in ("1-2 words", "sentences")] == [8, 2]
    assert any(ids for ids in answers["1-2 words"])  # the corpus term finds something
