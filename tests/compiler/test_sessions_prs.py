"""`memhub sessions prs`: the self-links the PR hook recorded, per session, as text and JSON;
`memhub sessions` itself still streams transcripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memhub.runtime.workflows import prstore
from memhub.runtime.workflows.prrefs import PullRequest

PR = PullRequest("acme", "app", 42, "https://github.com/acme/app/pull/42")
OTHER = PullRequest("acme", "app", 7, "https://github.com/acme/app/pull/7")


def _memhub(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMHUB_HOME": str(home), "HOME": str(home)}
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_lists_each_sessions_links(tmp_path: Path) -> None:
    home = str(tmp_path)
    assert prstore.record(home, "claude-s1", "claude", "s1", PR, "create-url", "/w")
    assert prstore.record(home, "claude-s1", "claude", "s1", PR, "create-url", "/w")  # once
    assert prstore.record(home, "codex-s2", "codex", "s2", OTHER, "mcp-create", "/w")
    (tmp_path / "sessions" / "prs" / "broken.json").write_text("{not json")

    proc = _memhub(tmp_path, "sessions", "prs", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["command"] == "sessions prs" and doc["ok"] is True
    got = [(x["host"], x["session_id"], x["number"], x["url"]) for x in doc["data"]["links"]]
    assert sorted(got) == [("claude", "s1", 42, PR.url), ("codex", "s2", 7, OTHER.url)]

    proc = _memhub(tmp_path, "sessions", "prs", "--session", "s1")
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stdout.splitlines()
    assert "claude  s1  acme/app#42  https://github.com/acme/app/pull/42" in line


def test_no_links_and_plain_sessions_still_work(tmp_path: Path) -> None:
    proc = _memhub(tmp_path, "sessions", "prs")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert "no session has opened a PR" in proc.stderr
    proc = _memhub(tmp_path, "sessions", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["data"] == {"sessions": []}
