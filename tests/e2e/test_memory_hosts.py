"""memhub's memory server used by the real hosts, each against a scripted model calling its tools.

`memhub apply` of a hub holding memhub's memory server (stdio `memhub mcp serve --write`, the
project resolved from the host's working folder) installs it into Claude Code, Codex and
Gemini CLI at user scope. Every session runs in a real git checkout connected with `memhub
project connect`. The fake model (fake_tools.py) calls the tools by the name each host gives
them (Claude Code first loads the deferred tool through ToolSearch, as a model does) and the
test reads what the host sent back as the tool's result: that is what the model sees.

* Claude Code saves a fact: the record file lands in the project's memory (source agent).
* Codex, in the same project, finds it with `search_memory`; an `update_memory` with the
  current revision goes through, one with the old revision is refused naming the record, and
  the file keeps the first update.
* A fact saved in an unrelated project (another checkout, the same folder name) never appears
  in Codex's search results, whatever the query.
* Gemini CLI saves and finds a fact the same way.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.memory import layout, projects, records
from memhub.runtime.memory.gitcheckout import checkout_of

from .fake_tools import Call, Result, ToolsAnthropic, ToolsGemini, ToolsResponses
from .harness import describe, run
from .test_install_hosts import DEAD_BASE_URL, GEMINI_SETTINGS, codex_config

pytestmark = pytest.mark.e2e

SESSION_TIMEOUT_S = 150
SERVER = "memory"  # the server's name in the hub: Claude Code calls mcp__memory__<tool>
BIN = Path(sys.executable).parent  # memhub's console scripts (memhub, memhub-launch)
STUB = Path(__file__).resolve().parent / "memory_stub_server.py"
HOSTS = "claude,codex,gemini"

FACT = {"title": "Deploys", "content": "Deploys run from the blue-kiwi runner, never from laptops."}
UPDATED = "Deploys run from the blue-kiwi runner; the green-fig runner is the fallback."
STALE = "Deploys run from anywhere."
OTHER = {"title": "Deploys", "content": "Deploys of the other team go through the violet-otter."}


def hub_yaml() -> str:
    return (
        "version: 1\n"
        "plugin: {name: memory-e2e, version: 0.1.0, description: memhub memory for the hosts}\n"
        "marketplace: {name: memory-market, owner: {name: Probe}}\n"
        "mcp:\n  servers:\n"
        f"    {SERVER}:\n"
        f"      command: {json.dumps(sys.executable)}\n"
        f"      args: [{json.dumps(str(STUB))}]\n"
    )


@dataclass
class Memory:
    """The isolated home with the memory hub applied, and where records land."""

    iso: Any
    root: Path  # $MEMHUB_HOME/memory

    @property
    def env(self) -> dict[str, str]:
        return self.iso.env

    def records(self, project_id: str) -> dict[str, bytes]:
        """The record files of a project: {record id: bytes}."""
        folder = layout.project_records(self.root, project_id)
        files = sorted(folder.glob("*.md")) if folder.is_dir() else []
        return {path.stem: path.read_bytes() for path in files}

    def record_file(self, project_id: str, record_id: str) -> Path:
        return layout.record_path(self.root, "project", project_id, record_id)


@pytest.fixture
def memory(isolated_home: Any, tmp_path: Path) -> Memory:
    iso = isolated_home
    iso.env["PATH"] = f"{BIN}{os.pathsep}{iso.env['PATH']}"
    gemini = iso.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    (iso.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    hub = tmp_path / "memory-hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(hub_yaml())
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub)]
    proc = run([*argv, "--scope", "user", "--hosts", HOSTS], env=iso.env, cwd=iso.root)
    assert proc.returncode == 0, describe(proc)
    return Memory(iso, layout.memory_root(iso.home / ".memhub"))


def checkout(memory: Memory, where: str) -> tuple[Path, str]:
    """A git checkout with one commit at `where` (under the temp root), connected to a new
    project; returns it and the project id."""
    repo = memory.iso.root / where
    repo.mkdir(parents=True)
    run(["git", "init", "-q", repo], env=memory.env, check=True, timeout=30)
    argv = ["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init"]
    run(argv, env=memory.env, check=True, timeout=30)
    path = layout.projects_file(memory.root)
    registry = projects.load_registry(path) if path.exists() else projects.Registry()
    found = checkout_of(repo)
    assert found is not None
    connected = projects.connect(registry, found)
    path.parent.mkdir(parents=True, exist_ok=True)
    projects.save_registry(path, connected.registry)
    return repo, connected.project_id


# ------------------------------------------------------------------ host sessions
def claude(cli: Path, memory: Memory, repo: Path, calls: list[Call]) -> list[Result]:
    """One `claude -p` session in `repo`, the model making `calls`; the results it got."""
    with ToolsAnthropic(calls) as fake:
        env = {**memory.env, "ANTHROPIC_BASE_URL": fake.base_url,
               "ANTHROPIC_API_KEY": "sk-memhub-e2e-fake", "IS_SANDBOX": "1"}  # fmt: skip
        argv = [cli, "-p", "remember the deploy rule", "--output-format", "json"]
        proc = run([*argv, "--allowedTools", f"mcp__{SERVER}"], env=env, cwd=repo,
                   timeout=SESSION_TIMEOUT_S)  # fmt: skip
        assert proc.returncode == 0, describe(proc)
        assert json.loads(proc.stdout).get("is_error") is False, describe(proc)
        return _complete(fake.results(), calls, fake.offered, proc)


def codex(cli: Path, memory: Memory, repo: Path, calls: list[Call]) -> list[Result]:
    """One `codex exec` session in `repo`, the model making `calls`; the results it got."""
    with ToolsResponses(calls) as fake:
        config = memory.iso.codex_home / "config.toml"
        mine, applied = codex_config(DEAD_BASE_URL), config.read_text()
        assert applied.startswith(mine), applied  # apply kept the person's settings first
        config.write_text(codex_config(fake.base_url) + applied[len(mine) :])
        argv = [cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "find"]
        env = {**memory.env, "MEMHUB_E2E_FAKE_KEY": "sk-memhub-e2e-fake"}
        proc = run(argv, env=env, cwd=repo, timeout=SESSION_TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        return _complete(fake.results(), calls, fake.offered, proc)


def gemini(cli: Path, memory: Memory, repo: Path, calls: list[Call]) -> list[Result]:
    """One `gemini -p` session in `repo` (a trusted folder: Gemini starts stdio servers only
    there), the model making `calls`; the results it got."""
    trusted = memory.iso.home / ".gemini" / "trustedFolders.json"
    folders = json.loads(trusted.read_text()) if trusted.exists() else {}
    trusted.write_text(json.dumps({**folders, str(repo): "TRUST_FOLDER"}, indent=2))
    with ToolsGemini(calls) as fake:
        env = {**memory.env, "GEMINI_API_KEY": "memhub-e2e-fake",
               "GOOGLE_GEMINI_BASE_URL": fake.base_url}  # fmt: skip
        argv = [cli, "-m", "fake-model", "-p", "remember", "--yolo", "--skip-trust", "-o", "json"]
        proc = run(argv, env=env, cwd=repo, timeout=SESSION_TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        return _complete(fake.results(), calls, fake.offered, proc)


def _complete(
    results: list[Result], calls: list[Call], offered: set[str], proc: Any
) -> list[Result]:
    """The results, once every scripted call got one (else say what the host offered)."""
    assert len(results) == len(calls), (
        f"{len(results)} of {len(calls)} tool calls answered; offered: {sorted(offered)}\n"
        f"{describe(proc)}"
    )
    return results


def saved_record(memory: Memory, project_id: str, before: dict[str, bytes]) -> records.Record:
    """The one record file that appeared in the project since `before`, parsed."""
    now = memory.records(project_id)
    new = sorted(set(now) - set(before))
    assert len(new) == 1, (sorted(before), sorted(now))
    return records.parse_record(now[new[0]], new[0])


# ------------------------------------------------------------------ tests
def test_claude_saves_codex_finds_and_a_stale_update_fails(
    claude_cli: Path, codex_cli: Path, memory: Memory
) -> None:
    repo, pid = checkout(memory, "app")
    (saved,) = claude(claude_cli, memory, repo, [Call("save_memory", FACT)])
    assert not saved.is_error, saved
    record = saved_record(memory, pid, {})
    assert (record.title, record.body.strip()) == (FACT["title"], FACT["content"]), record
    assert (record.kind, record.scope, record.project) == ("fact", "project", pid), record
    assert record.source.kind == "agent" and record.status == "active", record
    assert record.id in saved.text, saved  # the model is told which record it made
    path = memory.record_file(pid, record.id)
    first = records.revision(path.read_bytes())

    calls = [
        Call("search_memory", {"query": "blue-kiwi"}),
        Call("update_memory", {"id": record.id, "revision": first, "content": UPDATED}),
        Call("update_memory", {"id": record.id, "revision": first, "content": STALE}),
    ]
    found, updated, stale = codex(codex_cli, memory, repo, calls)
    assert record.id in found.text and "blue-kiwi" in found.text, found
    assert not found.is_error and not updated.is_error, (found, updated)
    after = path.read_bytes()
    assert records.parse_record(after, str(path)).body.strip() == UPDATED
    # The stale write: an error naming the record, and the file keeps the first update.
    assert record.id in stale.text and first in stale.text, stale
    assert "error" in stale.text.lower() or stale.is_error, stale
    assert STALE not in after.decode()
    assert memory.records(pid) == {record.id: after}


def test_unrelated_project_fact_never_appears(
    claude_cli: Path, codex_cli: Path, memory: Memory
) -> None:
    repo, pid = checkout(memory, "team-a/app")
    other_repo, other = checkout(memory, "team-b/app")  # same folder name, another repository
    assert other != pid
    claude(claude_cli, memory, repo, [Call("save_memory", FACT)])
    (saved,) = claude(claude_cli, memory, other_repo, [Call("save_memory", OTHER)])
    mine, theirs = saved_record(memory, pid, {}), saved_record(memory, other, {})
    assert theirs.id in saved.text, saved

    queries = ["violet-otter", "deploys", "Deploys of the other team", theirs.id, "*"]
    results = codex(codex_cli, memory, repo, [Call("search_memory", {"query": q}) for q in queries])
    assert mine.id in results[1].text, results[1]  # the common word finds this project's fact
    for query, result in zip(queries, results, strict=True):
        for leak in (theirs.id, other, "violet-otter", "other team", "team-b"):
            assert leak not in result.text, (query, leak, result)


def test_gemini_saves_and_finds(gemini_cli: Path, memory: Memory) -> None:
    repo, pid = checkout(memory, "app")
    calls = [Call("save_memory", FACT), Call("search_memory", {"query": "blue-kiwi"})]
    saved, found = gemini(gemini_cli, memory, repo, calls)
    assert not saved.is_error and not found.is_error, (saved, found)
    record = saved_record(memory, pid, {})
    assert (record.title, record.body.strip()) == (FACT["title"], FACT["content"]), record
    assert record.source.kind == "agent" and record.project == pid, record
    assert record.id in found.text and "blue-kiwi" in found.text, found
