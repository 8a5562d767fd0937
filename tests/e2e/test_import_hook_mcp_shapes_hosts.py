"""Issue shapes 5 and 6 through the real hosts: a repository whose Claude hooks file holds
handlers the hub's hooks cannot hold (a `prompt` handler, `async: false`, an empty matcher,
`args`, a timeout over 600 s), and a Codex-only plugin whose manifest names `./.mcp.json`,
imported and built back. What `claude plugin validate --json` says each plugin provides, and
the servers `codex mcp list --json` lists once the Codex plugin is installed, are the same for
the original and the rebuild."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main

from .harness import describe, run
from .test_codex_plugin import _install

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("cpu_load")]  # a busy machine

ODD_HOOKS = {
    "hooks": {
        "SessionStart": [
            {
                "matcher": "",
                "hooks": [
                    {"type": "command", "command": "true", "async": False},
                    {"type": "command", "command": "true", "args": ["x"], "timeout": 3600},
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the task done?"}]}],
    }
}
SERVERS = {"mcpServers": {"vault": {"command": "/opt/vault/vault-mcp", "args": []}}}
OWNER = {"name": "Shapes"}


def _repo(root: Path) -> Path:
    """Two plugins: `hooked` (Claude Code), `vault` (Codex only, naming ./.mcp.json)."""
    files: dict[str, Any] = {
        ".claude-plugin/marketplace.json": {
            "name": "shapes",
            "owner": OWNER,
            "plugins": [{"name": "hooked", "source": "./plugins/hooked", "description": "h"}],
        },
        ".agents/plugins/marketplace.json": {
            "name": "shapes",
            "plugins": [
                {
                    "name": "vault",
                    "source": {"source": "local", "path": "./plugins/vault"},
                    "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                    "category": "Productivity",
                }
            ],
        },
        "plugins/hooked/.claude-plugin/plugin.json": {
            "name": "hooked",
            "version": "1.0.0",
            "description": "Hooks the hub cannot hold",
        },
        "plugins/hooked/hooks/hooks.json": ODD_HOOKS,
        "plugins/vault/.codex-plugin/plugin.json": {
            "name": "vault",
            "version": "0.1.0",
            "description": "A server by file",
            "mcpServers": "./.mcp.json",
        },
        "plugins/vault/.mcp.json": SERVERS,
    }
    for rel, doc in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(doc, indent=2) + "\n")
    return root


def _provides(claude: Path, folder: Path, env: dict[str, str]) -> Any:
    proc = run([claude, "plugin", "validate", "--json", folder], env=env)
    report = json.loads(proc.stdout)
    assert report.get("success") is True, describe(proc)
    return report.get("provides", report)


def _codex_servers(codex: Path, bundle: Path, home: Any, cwd: Path) -> dict[str, Any]:
    info = type("Info", (), {"plugin": "vault", "marketplace": "shapes"})
    _install(codex, bundle, info, home.env)
    proc = run([codex, "mcp", "list", "--json"], env=home.env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    for undo in (["remove", "vault@shapes"], ["marketplace", "remove", "shapes"]):
        removed = run([codex, "plugin", *undo], env=home.env)
        assert removed.returncode == 0, describe(removed)
    return {s["name"]: s.get("transport") for s in json.loads(proc.stdout)}


def test_the_rebuild_provides_what_the_repository_does(
    tmp_path: Path, claude_cli: Path, codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    into, out = tmp_path / "hub", tmp_path / "bundle"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    env = isolated_home.env
    theirs = _provides(claude_cli, repo / "plugins/hooked", env)
    assert _provides(claude_cli, out / "plugins/hooked", env) == theirs
    assert [h["type"] for h in theirs["hooks"]] == ["command", "command", "prompt"], theirs
    original = _codex_servers(codex_cli, repo, isolated_home, git_repo)
    assert set(original) == {"vault"}, original
    rebuilt = _codex_servers(codex_cli, out, isolated_home, git_repo)
    assert rebuilt == original
