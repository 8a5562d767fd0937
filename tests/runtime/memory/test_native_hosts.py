"""`native.discover`: each host's own memory files for a project, shaped exactly as the host
writes them, read as import Candidates; the originals are never written.

How the files are made (no host here saves a memory offline without a model):
- Claude Code 2.1.332: its auto-memory prompt (in the CLI) has the model write each topic
  file with `name`/`description`/`metadata.type` front matter and add a one-line
  `- [Title](file.md) — hook` pointer to MEMORY.md; the files below follow that template.
- Codex 0.171: its consolidation prompt's strict MEMORY.md format (`# Task Group:`,
  `scope:`, `applies_to: cwd=...; reuse_rule=...`, `## Task <n>` ...).
- Gemini CLI: `gemini_save_memory` below is memoryTool.ts's computeGlobalMemoryContent and
  computeProjectMemoryContent (before 0.44 removed the tool) ported line for line, so the
  bytes are the ones the tool wrote; 0.61's private project memory is MEMORY.md bullets and
  sibling notes the agent writes itself.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest
from memhub.runtime.memory import native
from memhub.runtime.memory.native_claude import slug
from memhub.runtime.memory.records import Source


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git checkout with one commit (a worktree needs one)."""
    root = tmp_path / "work" / "my.repo"
    root.mkdir(parents=True)
    _git("init", "-q", "-b", "main", cwd=root)
    (root / "README.md").write_text("hi\n")
    _git("add", ".", cwd=root)
    _git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one", cwd=root)
    return root.resolve()


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- Claude Code -----------------------------------------------------------------------------

TOPIC = """---
name: testing-scripts
description: Run the test suite with `bun test`, never `npm test`
metadata:
  type: feedback
---

Run the tests with `bun test`.
**Why:** npm test skips the integration suite.
**How to apply:** whenever you verify a change.
"""
OLD_TOPIC = """---
name: user-role
description: The user is a data scientist focused on logging
type: user
---

The user is a data scientist investigating what logging is in place.
"""
CLAUDE_INDEX = """- [Testing scripts](testing-scripts.md) \u2014 bun test, not npm test
- [User role](user_role.md) \u2014 data scientist, observability
- The staging database is read-only on Fridays
"""


def _claude_memory(config: Path, project: Path) -> Path:
    folder = config / "projects" / slug(str(project)) / "memory"
    folder.mkdir(parents=True)
    (folder / "testing-scripts.md").write_text(TOPIC)
    (folder / "user_role.md").write_text(OLD_TOPIC)
    (folder / "MEMORY.md").write_text(CLAUDE_INDEX)
    return folder


def test_claude_slug_is_the_path_with_non_alphanumerics_as_dashes() -> None:
    assert slug("/home/ann/my.repo_2") == "-home-ann-my-repo-2"


def test_claude_topic_files_and_index_facts(repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    folder = _claude_memory(config, repo)
    before = _snapshot(config)
    found, notes = native.discover("claude", cwd=repo, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert notes == []
    by = {c.origin: c for c in found}
    assert set(by) == {
        str(folder / "testing-scripts.md"),
        str(folder / "user_role.md"),
        f"{folder / 'MEMORY.md'}#line-3",
    }
    topic = by[str(folder / "testing-scripts.md")]
    assert topic.draft.title == "Run the test suite with `bun test`, never `npm test`"
    assert (topic.draft.kind, topic.draft.tags) == ("preference", ("feedback",))
    assert topic.draft.body.startswith("\nRun the tests with `bun test`.")
    assert topic.draft.source == Source(
        kind="import", file=str(folder / "testing-scripts.md"), imported="claude-memory"
    )
    assert topic.origin_revision == hashlib.sha256(TOPIC.encode()).hexdigest()
    assert by[str(folder / "user_role.md")].draft.kind == "preference"
    fact = by[f"{folder / 'MEMORY.md'}#line-3"]
    assert fact.draft.title == "The staging database is read-only on Fridays"
    assert fact.origin_revision == hashlib.sha256(fact.draft.title.encode()).hexdigest()
    assert _snapshot(config) == before


def test_claude_a_worktree_and_a_subfolder_read_the_main_checkouts_memory(
    repo: Path, tmp_path: Path
) -> None:
    config = tmp_path / "claude-config"
    _claude_memory(config, repo)
    worktree = tmp_path / "wt"
    _git("worktree", "add", "-q", str(worktree), cwd=repo)
    (repo / "src").mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    for cwd in (worktree, repo / "src"):
        found, _ = native.discover("claude", cwd=cwd, env=env)
        assert len(found) == 3, cwd


def test_claude_another_project_and_a_long_path(tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    other = tmp_path / "other"
    other.mkdir()
    _claude_memory(config, tmp_path / "unrelated")
    found, notes = native.discover("claude", cwd=other, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert found == [] and "no auto-memory folder" in notes[0]
    deep = tmp_path / ("d" * 120) / ("e" * 120)
    deep.mkdir(parents=True)
    name = slug(str(deep.resolve()))
    folder = config / "projects" / f"{name[:200]}-1x2y3z" / "memory"  # Claude appends a hash
    folder.mkdir(parents=True)
    (folder / "note.md").write_text(TOPIC)
    found, _ = native.discover("claude", cwd=deep, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert [c.origin for c in found] == [str(folder / "note.md")]


def test_claude_auto_memory_directory_setting_and_override(repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    config.mkdir()
    custom = tmp_path / "home" / "notes"
    custom.mkdir(parents=True)
    (custom / "MEMORY.md").write_text("- Builds need Node 22\n")
    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/notes"}))
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path / "home")}
    found, _ = native.discover("claude", cwd=repo, env=env)
    assert [c.draft.title for c in found] == ["Builds need Node 22"]
    override = tmp_path / "cowork"
    override.mkdir()
    (override / "MEMORY.md").write_text("- From the override\n")
    env["CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"] = str(override)
    found, _ = native.discover("claude", cwd=repo, env=env)
    assert [c.draft.title for c in found] == ["From the override"]


# -- Codex -----------------------------------------------------------------------------------


def _codex_handbook(project: Path) -> str:
    return f"""# Task Group: {project.name} release workflow
scope: cutting and publishing releases of this repository
applies_to: cwd={project}; reuse_rule=safe for any checkout of this repo

## Task 1: publish 1.2.0, succeeded
### rollout_summary_files
- rollout_summaries/2026-02-17T21-23-02-LN3m-release.md (cwd={project}, rollout_path=/x, updated_at=2026-02-17T21:30:00Z, thread_id=t-1)
### keywords
- release, tag, changelog

## User preferences
- when releasing, the user asked: "always update the changelog first" -> edit CHANGELOG.md before tagging [Task 1]

## Reusable knowledge
- `make release` builds and signs the wheel [Task 1]

# Task Group: another repo's migrations
scope: database migrations of another service
applies_to: cwd=/srv/elsewhere/service; reuse_rule=checkout-specific

## Task 1: add a column, succeeded
### rollout_summary_files
- rollout_summaries/x.md (cwd=/srv/elsewhere/service, rollout_path=/y, updated_at=2026-02-18T10:00:00Z, thread_id=t-2)
### keywords
- alembic

# Task Group: shell habits
scope: how the user likes commands run
applies_to: cwd=any folder; reuse_rule=general

## User preferences
- the user prefers `rg` over `grep` [Task 1]
"""


def test_codex_task_groups_of_this_project_and_general_ones(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    memories = home / "memories"
    (memories / "rollout_summaries").mkdir(parents=True)
    handbook = _codex_handbook(repo)
    (memories / "MEMORY.md").write_text(handbook)
    (memories / "memory_summary.md").write_text("## User Profile\n- a developer\n")
    (memories / "raw_memories.md").write_text("# raw\n")
    before = _snapshot(home)
    found, notes = native.discover("codex", cwd=repo / ".", env={"CODEX_HOME": str(home)})
    assert [c.draft.title for c in found] == [f"{repo.name} release workflow", "shell habits"]
    first = found[0]
    assert first.origin == f"{memories / 'MEMORY.md'}#task-group-my-repo-release-workflow"
    assert "always update the changelog first" in first.draft.body
    assert "alembic" not in first.draft.body  # the next block is not part of it
    assert first.draft.source.imported == "codex-memory" and first.draft.kind == "fact"
    block = handbook[: handbook.index("# Task Group: another")]
    assert first.origin_revision == hashlib.sha256(block.encode()).hexdigest()
    assert notes == [f"{memories / 'MEMORY.md'}: 1 task group(s) apply to other folders; left out"]
    assert _snapshot(home) == before


def test_codex_without_memories(tmp_path: Path) -> None:
    found, notes = native.discover("codex", cwd=tmp_path, env={"CODEX_HOME": str(tmp_path)})
    assert found == [] and "no memories folder" in notes[0]


# -- Gemini CLI ------------------------------------------------------------------------------

HEADER = "## Gemini Added Memories"


def _separator(current: str) -> str:
    if not current or current.endswith(("\n\n", "\r\n\r\n")):
        return ""
    return "\n" if current.endswith(("\n", "\r\n")) else "\n\n"


def _sanitize(fact: str) -> str:
    text = re.sub(r"[\r\n]", " ", fact).strip()
    text = re.sub(r"^(-+\s*)+", "", text).strip()
    return re.sub(r"[<>]", " ", text)


def gemini_save_memory(current: str, fact: str, scope: str = "global") -> str:
    """memoryTool.ts computeNewContent (Gemini CLI before 0.44), line for line."""
    item = f"- {_sanitize(fact)}"
    if scope == "project":
        if not current:
            return f"{item}\n"
        return f"{current}{item}\n" if current.endswith("\n") else f"{current}\n{item}\n"
    at = current.find(HEADER)
    if at == -1:
        return current + f"{_separator(current)}{HEADER}\n{item}\n"
    start = at + len(HEADER)
    end = current.find("\n## ", start)
    end = len(current) if end == -1 else end
    before = current[:start].rstrip()
    section = current[start:end].rstrip() + f"\n{item}"
    return f"{before}\n{section.lstrip()}\n{current[end:]}".rstrip() + "\n"


def test_gemini_save_memory_port_matches_the_tools_documented_output() -> None:
    text = gemini_save_memory("# Rules\n\nBe terse.\n", "I prefer pytest")
    assert text == "# Rules\n\nBe terse.\n\n## Gemini Added Memories\n- I prefer pytest\n"
    text = gemini_save_memory(text + "\n## Other\nkeep\n", "- Deploys go\nthrough <staging>")
    assert text == (
        "# Rules\n\nBe terse.\n\n## Gemini Added Memories\n- I prefer pytest\n"
        "- Deploys go through  staging \n\n## Other\nkeep\n"
    )


def test_gemini_added_memories_and_private_project_memory(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "gemini-home"
    dot = home / ".gemini"
    dot.mkdir(parents=True)
    text = gemini_save_memory("# My rules\n\nBe terse.\n", "I prefer pytest")
    text = gemini_save_memory(text + "\n## Notes\nnot a memory\n", "Deploys go through staging")
    (dot / "GEMINI.md").write_text(text)
    (repo / "GEMINI.md").write_text(gemini_save_memory("# Team\n", "The API is versioned"))
    (dot / "projects.json").write_text(json.dumps({"projects": {str(repo): "my-repo"}}))
    private = dot / "tmp" / "my-repo" / "memory"
    (private / "skills" / "x").mkdir(parents=True)
    (private / "skills" / "x" / "SKILL.md").write_text("---\nname: x\n---\nskill\n")
    index = gemini_save_memory("", "My local DB listens on 5433", "project")
    (private / "MEMORY.md").write_text(index + "- [Local setup](local-setup.md)\n")
    (private / "local-setup.md").write_text("# Local setup\n\nRun `make dev` first.\n")
    before = _snapshot(home)
    found, notes = native.discover("gemini", cwd=repo, env={"GEMINI_CLI_HOME": str(home)})
    assert notes == []
    by = {c.origin: c.draft for c in found}
    assert set(by) == {
        f"{dot / 'GEMINI.md'}#line-6",
        f"{dot / 'GEMINI.md'}#line-7",
        f"{repo / 'GEMINI.md'}#line-4",
        f"{private / 'MEMORY.md'}#line-1",
        str(private / "local-setup.md"),
    }
    assert by[f"{dot / 'GEMINI.md'}#line-6"].title == "I prefer pytest"
    assert by[f"{dot / 'GEMINI.md'}#line-7"].title == "Deploys go through staging"
    assert by[f"{repo / 'GEMINI.md'}#line-4"].title == "The API is versioned"
    assert by[str(private / "local-setup.md")].title == "Local setup"
    assert all(d.source.imported == "gemini-memory" and d.kind == "fact" for d in by.values())
    assert _snapshot(home) == before


def test_gemini_legacy_hash_folder_and_nothing_saved(tmp_path: Path) -> None:
    home = tmp_path / "gemini-home"
    project = tmp_path / "proj"
    project.mkdir()
    legacy = home / ".gemini" / "tmp" / hashlib.sha256(str(project).encode()).hexdigest()
    (legacy / "memory").mkdir(parents=True)
    (legacy / "memory" / "MEMORY.md").write_text("- Old fact\n")
    found, _ = native.discover("gemini", cwd=project, env={"GEMINI_CLI_HOME": str(home)})
    assert [c.draft.title for c in found] == ["Old fact"]
    empty = tmp_path / "empty"
    empty.mkdir()
    found, notes = native.discover("gemini", cwd=empty, env={"GEMINI_CLI_HOME": str(empty)})
    assert found == [] and "no saved memories" in notes[0]


def test_an_unknown_host_is_a_note() -> None:
    found, notes = native.discover("cursor", cwd=Path("."), env={})
    assert found == [] and "claude, codex, gemini" in notes[0]
