"""A hub's `memory:` section in every host's native files: the memhub-memory stdio server and
the guidance, built into bundles and applied into a home; a hub without it is unchanged."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.build import build
from memhub.hubspec import load
from memhub.hubspec.memory import SERVER_ENV

from tests.compiler.installkit import ALL, claude_json, run
from tests.hubs import REPO

TEAM = REPO / "examples" / "team-memory"
# Claude Code, Codex and Gemini CLI start the server in the session's folder: its project
ARGS_IN_CWD = ["mcp", "serve", "--write", "--scope", "shared", "--scope", "project"]
# Cursor does not: it names its workspace
ARGS_CURSOR = [*ARGS_IN_CWD, "--project", "${workspaceFolder}"]
GUIDANCE = "## Memory\n"
INSTALLED = str(Path(sys.executable).parent / "memhub")  # the running installation's script


def _json(build_result: Any, path: str) -> Any:
    artifact = build_result.artifact(path)
    assert artifact is not None, path
    return json.loads(artifact.content)


def _text(build_result: Any, path: str) -> str:
    artifact = build_result.artifact(path)
    assert artifact is not None, path
    return artifact.content.decode("utf-8")


def test_each_bundle_carries_the_server_in_its_own_file() -> None:
    built = build(load(TEAM))
    root = "plugins/team-memory"
    claude = _json(built, f"{root}/.mcp.json")["mcpServers"]["memhub-memory"]
    assert claude == {"type": "stdio", "command": "memhub", "args": ARGS_IN_CWD}
    codex = _json(built, f"{root}/.codex-plugin/plugin.json")["mcpServers"]["memhub-memory"]
    # Codex starts servers with only the variables an entry names: MEMHUB_HOME among them
    assert codex == {"command": "memhub", "args": ARGS_IN_CWD, "env_vars": list(SERVER_ENV)}
    cursor = _json(built, f"{root}/.cursor-plugin/plugin.json")["mcpServers"]["memhub-memory"]
    assert cursor == {"command": "memhub", "args": ARGS_CURSOR}
    gemini = _json(built, "gemini/team-memory/gemini-extension.json")["mcpServers"]
    assert gemini["memhub-memory"]["args"] == ARGS_IN_CWD
    assert GUIDANCE in _text(built, "gemini/team-memory/GEMINI.md")
    assert GUIDANCE in _text(built, f"{root}/rules/team-memory.mdc")


def test_the_coverage_table_reports_the_bundles_that_cannot_carry_the_guidance() -> None:
    rows = {(r.host, r.component, r.id): r for r in build(load(TEAM)).coverage}
    for host in ("claude", "codex", "cursor", "gemini"):
        assert rows[(host, "mcp", "memhub-memory")].status == "mapped"
    assert rows[("claude", "instructions", "memory")].status == "unsupported"
    assert rows[("codex", "instructions", "memory")].status == "unsupported"
    assert rows[("gemini", "instructions", "memory")].status == "mapped"


def _hub_copy(tmp_path: Path, memory: str | None) -> Path:
    hub = tmp_path / "hub"
    shutil.copytree(REPO / "examples" / "minimal", hub)
    if memory is not None:
        with (hub / "hub.yaml").open("a", encoding="utf-8") as handle:
            handle.write(memory)
    return hub


def _files(hub: Path) -> dict[str, tuple[bytes, int]]:
    return {a.path: (a.content, a.mode) for a in build(load(hub)).artifacts}


@pytest.mark.parametrize("memory", ["memory: {server: off}\n", "memory:\n  server: off\n"])
def test_a_hub_without_memory_builds_byte_for_byte_as_before(tmp_path: Path, memory: str) -> None:
    before = _files(_hub_copy(tmp_path / "a", None))
    assert _files(_hub_copy(tmp_path / "b", memory)) == before


def test_memory_adds_only_the_server_and_the_guidance(tmp_path: Path) -> None:
    before = _files(_hub_copy(tmp_path / "a", None))
    after = _files(_hub_copy(tmp_path / "b", "memory: {}\n"))
    changed = sorted(p for p in after if after[p] != before.get(p))
    assert all(p in after for p in before)
    for path in changed:
        text = after[path][0].decode("utf-8")
        assert "memhub-memory" in text or GUIDANCE in text, path


def test_apply_installs_server_and_guidance_into_every_host(home: Path, capsys) -> None:
    code, _, err = run(capsys, "apply", str(TEAM), "--hosts", ALL)
    assert code == 0, err
    claude = json.loads(claude_json().read_text())["mcpServers"]["memhub-memory"]
    assert claude["args"] == ARGS_IN_CWD
    # this installation's memhub by absolute path, as its hooks: a host's PATH need not hold it
    assert claude["command"] == INSTALLED
    assert GUIDANCE in (Path(os.environ["CLAUDE_CONFIG_DIR"]) / "CLAUDE.md").read_text()
    codex = tomllib.loads((home / ".codex/config.toml").read_text())
    assert codex["mcp_servers"]["memhub-memory"]["args"] == ARGS_IN_CWD
    assert codex["mcp_servers"]["memhub-memory"]["command"] == INSTALLED
    assert codex["mcp_servers"]["memhub-memory"]["env_vars"] == list(SERVER_ENV)
    assert GUIDANCE in (home / ".codex/AGENTS.md").read_text()
    cursor = json.loads((home / ".cursor/mcp.json").read_text())["mcpServers"]
    assert cursor["memhub-memory"]["args"] == ARGS_CURSOR
    gemini = json.loads((home / ".gemini/settings.json").read_text())["mcpServers"]
    assert gemini["memhub-memory"]["args"] == ARGS_IN_CWD
    assert {gemini["memhub-memory"]["command"], cursor["memhub-memory"]["command"]} == {INSTALLED}
    assert GUIDANCE in (home / ".gemini/GEMINI.md").read_text()
    # capture hooks come with it; a second apply changes nothing
    settings = json.loads((Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())
    assert "Stop" in settings["hooks"]
    code, out, err = run(capsys, "apply", str(TEAM), "--hosts", ALL)
    assert code == 0, err
    assert "0 create, 0 update, 0 delete" in out + err


def test_agent_plugins_reports_that_its_server_serves_no_project(tmp_path: Path) -> None:
    hub = _hub_copy(tmp_path, "memory: {}\n")
    text = (hub / "hub.yaml").read_text().replace("mcp:\n", "hosts: [agent-plugins]\nmcp:\n", 1)
    (hub / "hub.yaml").write_text(text)
    built = build(load(hub))
    row = next(r for r in built.coverage if r.id == "memhub-memory")
    assert (row.host, row.status) == ("agent-plugins", "caveat")
    assert "not told the project" in row.reason
    document = _json(built, "agent-plugins/hello-hub/mcp.json")
    assert "--project" not in document["mcpServers"]["memhub-memory"]["args"]


def test_project_dir_in_a_servers_arguments_per_host(tmp_path: Path) -> None:
    hub = _hub_copy(tmp_path, None)
    text = (hub / "hub.yaml").read_text()
    text = text.replace('"."]', '"${project_dir}"]').replace(
        "mcp:\n", "hosts: [claude, cursor, agent-plugins]\nmcp:\n", 1
    )
    (hub / "hub.yaml").write_text(text)
    built = build(load(hub))
    claude = _json(built, "plugins/hello-hub/.mcp.json")["mcpServers"]["filesystem"]["args"]
    cursor = _json(built, "plugins/hello-hub/.cursor-plugin/plugin.json")["mcpServers"]
    assert claude[-1] == "." and cursor["filesystem"]["args"][-1] == "${workspaceFolder}"
    row = next(r for r in built.coverage if r.host == "agent-plugins" and r.component == "mcp")
    assert row.status == "caveat" and "not told the project" in row.reason
