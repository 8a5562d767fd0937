"""Codex's `hooks/hooks.json`, which it loads with no `hooks` key in its manifest (codex 0.171:
tests/e2e/test_codex_default_hooks_file.py): read as its hooks file, and built back without
the key only because the imported hub asks so (`overrides.codex.manifest.hooks: null`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import load

from tests.compiler.test_import_repo_shapes import REPOS, imported

PLUGIN = "plugins/auto-kit"


def test_a_manifest_without_hooks_and_hooks_json_round_trip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = imported("codex-auto-hooks", tmp_path / "hub", capsys)
    assert data["round_trip"]["files"] == {"reproduced": 3, "total": 3}  # type: ignore[index]
    hub = yaml.safe_load((tmp_path / "hub" / PLUGIN / "hub.yaml").read_text())
    assert hub["hook_files"] == {"codex": "hooks/hooks.json"}
    assert hub["overrides"] == {"codex": {"manifest": {"hooks": None}}}
    assert hub["hooks"][0]["event"] == {"codex": "SessionStart"}


def test_without_the_override_the_build_names_the_file(tmp_path: Path) -> None:
    """A hub that only moves Codex's hooks file still gets the manifest key (Codex needs
    none for this name, but the layout is the import's to ask for, not the build's)."""
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\nplugin: {name: k, version: 1.0.0, description: d}\n"
        "marketplace: {name: m, owner: {name: o}}\nhosts: [codex]\n"
        "hooks:\n  - {id: x, event: turn_end, command: echo}\n"
        "hook_files: {codex: hooks/hooks.json}\n"
    )
    result = build(load(hub))
    manifest = result.artifact("plugins/k/.codex-plugin/plugin.json")
    assert manifest is not None
    assert json.loads(manifest.content)["hooks"] == "./hooks/hooks.json"


def test_claude_beside_it_loads_it_too_and_it_is_kept_as_is(tmp_path: Path) -> None:
    """With a Claude manifest naming its own file, Claude Code loads hooks/hooks.json as
    well: Codex's file is kept byte for byte (`hooks_kept`), so Claude Code loads it beside
    its own in the rebuild too, and nothing is lost."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "codex-auto-hooks", repo)
    claude = {"name": "auto-kit", "version": "0.3.0", "hooks": "./hooks/claude-hooks.json"}
    (repo / PLUGIN / ".claude-plugin").mkdir()
    (repo / PLUGIN / ".claude-plugin/plugin.json").write_text(json.dumps(claude))
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo"}]}]}}
    (repo / PLUGIN / "hooks/claude-hooks.json").write_text(json.dumps(hooks))
    tree = read_tree(repo)
    imported_repo = import_repo(tree)
    listed = {u.path: u.reason for u in round_trip(tree, imported_repo).unreproduced}
    assert f"{PLUGIN}/hooks/hooks.json" not in listed
    assert f"{PLUGIN}/hooks/claude-hooks.json" not in listed


def test_a_codex_manifest_naming_its_file_leaves_hooks_json_to_claude(tmp_path: Path) -> None:
    """Codex does not load hooks/hooks.json beside the file its manifest names (unlike
    Claude Code): Claude's hooks/hooks.json there is Claude's alone and round-trips."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "codex-auto-hooks", repo)
    folder = repo / PLUGIN
    manifest = json.loads((folder / ".codex-plugin/plugin.json").read_text())
    (folder / ".codex-plugin/plugin.json").write_text(
        json.dumps({**manifest, "hooks": "./hooks/codex-hooks.json"}, indent=2)
    )
    (folder / "hooks/hooks.json").rename(folder / "hooks/codex-hooks.json")
    claude = {"name": "auto-kit", "version": "0.3.0", "description": manifest["description"]}
    (folder / ".claude-plugin").mkdir()
    (folder / ".claude-plugin/plugin.json").write_text(json.dumps(claude, indent=2))
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo"}]}]}}
    (folder / "hooks/hooks.json").write_text(json.dumps(hooks, indent=2))
    tree = read_tree(repo)
    imported_repo = import_repo(tree)
    ((hub, _),) = imported_repo.plugins
    assert {h["event"].get("claude") for h in hub.hooks.hooks} >= {"Stop"}
    assert not [u for u in round_trip(tree, imported_repo).unreproduced if "hooks" in u.path]
