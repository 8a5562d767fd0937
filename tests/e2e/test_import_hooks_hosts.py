"""Hooks imported from a plugin repository, built back, through real Claude Code: `memhub
import --from-repo` of the fixtures with hooks files (tests/data/repos/hook-hosts,
claude-only) runs as a subprocess, `memhub build` builds the imported hub, and `claude plugin
validate --strict` accepts the marketplace and every plugin folder of the build (as it
accepts the fixtures themselves), listing the hooks of the repository's own file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .harness import REPO_ROOT, build_bundle, describe, run, validation_problems

pytestmark = pytest.mark.e2e

REPOS = Path(__file__).resolve().parents[1] / "data" / "repos"


def _validate(claude: Path, target: Path, env: dict[str, str]) -> dict:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    report = json.loads(proc.stdout)
    assert report.get("success") is True, validation_problems(report) or describe(proc)
    assert report.get("strict") is True
    assert not validation_problems(report), validation_problems(report)
    return report


@pytest.mark.parametrize(
    ("repo", "plugin", "events"),
    [
        ("hook-hosts", "hook-kit", ["Notification", "PreToolUse", "SubagentStop"]),
        ("claude-only", "review-kit", ["SubagentStop"]),
    ],
)
def test_claude_validates_the_build_of_an_imported_repository_with_hooks(
    repo: str, plugin: str, events: list[str], claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    into, out = tmp_path / "hub", tmp_path / "out"
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "import", "--from-repo"]
    proc = run([*argv, REPOS / repo, "--into", into, "--yes"], env=isolated_home.env, cwd=REPO_ROOT)
    assert proc.returncode == 0, describe(proc)  # nothing in cannot-reproduce
    build_bundle(into, out)
    _validate(claude_cli, out, isolated_home.env)
    report = _validate(claude_cli, out / "plugins" / plugin, isolated_home.env)
    listed = [hook["event"] for hook in report["provides"]["hooks"]]
    assert sorted(set(listed)) == events
    built = out / "plugins" / plugin / "hooks"
    ours = REPOS / repo / "plugins" / plugin / "hooks"
    for name in (p.name for p in ours.glob("*.json")):
        assert (built / name).read_bytes() == (ours / name).read_bytes()
