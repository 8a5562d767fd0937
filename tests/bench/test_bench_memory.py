"""bench/bench_memory.py keeps working: its --quick run (300 records, this interpreter's
memhub) writes the corpus, rebuilds the index, times both searches and the server's
search_memory, and reports every figure. Timings are not checked, only that they exist."""

from __future__ import annotations

import json

import pytest

from .runbench import run_bench

pytest.importorskip("mcp", reason="the mcp SDK (test extra) runs the server part")


def test_quick_run_reports_every_figure() -> None:
    out = run_bench("bench_memory.py", "--quick", "--json")
    data = json.loads(out)
    figures = data["sizes"]["300"]
    assert figures["rebuild_s"] > 0 and figures["rebuild_per_10k_s"] > 0
    assert set(figures["search"]) == {"rare", "medium", "common"}
    for term in figures["search"].values():
        # both searches found the term, in the files that hold it
        assert term["memhub_hits"] >= 1 and term["grep_files"] == term["df"], term
        assert term["memhub"] > 0 and term["grep"] > 0 and term["ratio"] > 0
    server = data["server"]
    assert (server["records"], server["queries"]) == (300, 20)
    assert 0 < server["p50_ms"] <= server["p99_ms"]
