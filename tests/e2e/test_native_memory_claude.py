"""Where Claude Code keeps a project's auto-memory, as the real CLI says it, and the reader.

Claude Code tells the model its memory folder in the system prompt ("You have a persistent
file-based memory at `<folder>`"). A headless `claude -p` against the fake model, started in a
second worktree of a checkout (and in a subfolder of the main one), must name the folder
`native_claude.memory_dir` computes: `$CLAUDE_CONFIG_DIR/projects/<slug of the main
checkout>/memory/`. A topic file written there, as that prompt asks, is what `native.discover`
then reads from either folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from memhub.runtime.memory import native
from memhub.runtime.memory.native_claude import memory_dir

from .harness import describe, run

pytestmark = pytest.mark.e2e

ANNOUNCED = re.compile(r"persistent file-based memory at `([^`]+)`")
TOPIC = """---
name: release-steps
description: Releases are tagged from main only
metadata:
  type: project
---

Tag releases from main; CI publishes on the tag.
"""


def _announced(claude_cli: Path, env: dict[str, str], cwd: Path, fake_anthropic) -> Path:
    start = len(fake_anthropic.requests)
    proc = run([claude_cli, "-p", "hi", "--output-format", "json"], env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0, describe(proc)
    for request in fake_anthropic.requests[start:]:
        found = ANNOUNCED.search(str(request.body))
        if found:
            return Path(found.group(1))
    raise AssertionError(f"no memory folder in Claude Code's prompt\n{describe(proc)}")


def test_claude_names_the_memory_folder_the_reader_reads(
    claude_cli: Path, isolated_home, git_repo: Path, fake_anthropic
) -> None:
    fake_anthropic.bash_commands = []
    env = isolated_home.with_env(
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
        ANTHROPIC_API_KEY="sk-memhub-e2e-fake",
        IS_SANDBOX="1",
    )
    worktree = isolated_home.root / "second-worktree"
    proc = run(["git", "-C", git_repo, "worktree", "add", "-q", worktree], env=env, timeout=30)
    assert proc.returncode == 0, describe(proc)
    subfolder = git_repo / "src"
    subfolder.mkdir()
    for cwd in (worktree, subfolder):
        said = _announced(claude_cli, env, cwd, fake_anthropic)
        assert said == memory_dir(cwd, env), (cwd, said)
    folder = memory_dir(worktree, env)
    assert folder is not None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "release-steps.md").write_text(TOPIC)
    for cwd in (worktree, subfolder):
        found, _ = native.discover("claude", cwd=cwd, env=env)
        assert [c.draft.title for c in found] == ["Releases are tagged from main only"], cwd
