"""Hooks files as published plugins write them (issue shapes 5 and 7), imported and built back
whole: handlers the hub's hooks cannot hold keep their file byte for byte (`hooks_kept`);
a Cursor manifest naming its hooks file without `./`, or none (Cursor's default discovery
of hooks/hooks.json), is read as that plugin's hooks file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

PLUGIN = "plugins/kit"
# handlers Claude Code and Codex load that the hub's `hooks:` do not hold
ODD_HOOKS = {
    "hooks": {
        "SessionStart": [
            {
                "matcher": "",
                "hooks": [
                    {"type": "command", "command": "sh ./start.sh", "async": False},
                    {
                        "type": "command",
                        "command": "node",
                        "args": ["x.js"],
                        "windows": "node.exe x.js",
                        "timeout": 3600,
                    },
                ],
            },
            {"hooks": []},
        ],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?", "if": None}]}],
    }
}
CURSOR_HOOKS = {"version": 1, "hooks": {"stop": [{"command": "./scripts/stop.sh"}]}}


def _write(root: Path, files: dict[str, Any]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, indent=2) + "\n"
        path.write_text(text)
    return root


def _trip(root: Path) -> tuple[dict[str, str], tuple[int, int], dict[str, Any]]:
    tree = read_tree(root)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    listed = {item.path: item.reason for item in result.unreproduced}
    name = next(p for p in imported.files if p.endswith("kit/hub.yaml"))
    hub = yaml.safe_load(imported.files[name][0])
    return listed, (result.files_same, result.files_total), hub


def _manifest(**more: Any) -> dict[str, Any]:
    return {"name": "kit", "version": "1.0.0", "description": "A kit", **more}


def test_odd_handlers_in_a_file_claude_and_codex_share_come_back(tmp_path: Path) -> None:
    """Shape 5: `async: false`, `matcher: ""`, `args`, `windows`, a timeout over 600 s, an
    empty group, a `prompt` handler and a `null` option, in hooks/hooks.json, which Claude
    Code and Codex (its manifest naming none) both load."""
    root = _write(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.claude-plugin/plugin.json": _manifest(),
            f"{PLUGIN}/.codex-plugin/plugin.json": _manifest(),
            f"{PLUGIN}/hooks/hooks.json": ODD_HOOKS,
            f"{PLUGIN}/start.sh": "echo hi\n",
        },
    )
    listed, files, hub = _trip(root)
    assert listed == {}
    assert files[0] == files[1]
    assert hub["hooks_kept"] == ["claude", "codex"]
    assert "hooks" not in hub


def test_a_cursor_hooks_path_without_dot_slash_is_read(tmp_path: Path) -> None:
    """Shape 7: `"hooks": "hooks/hooks.json"` names Cursor's hooks file as `./hooks/...`
    does; a file without Cursor's `version` is kept as it is."""
    unversioned = {"hooks": {"sessionStart": [{"command": "${CURSOR_PLUGIN_ROOT}/run"}]}}
    root = _write(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.cursor-plugin/plugin.json": _manifest(hooks="hooks/hooks.json"),
            f"{PLUGIN}/hooks/hooks.json": unversioned,
        },
    )
    listed, files, hub = _trip(root)
    assert listed == {} and files[0] == files[1]
    assert hub["hooks_kept"] == ["cursor"]
    assert hub["hook_files"] == {"cursor": "hooks/hooks.json"}


def test_cursor_s_default_hooks_file_is_read_into_hooks(tmp_path: Path) -> None:
    """Shape 7: a Cursor manifest naming no hooks file: Cursor loads hooks/hooks.json by
    itself, and the import reads it into hub hooks (built back without a manifest key)."""
    root = _write(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.cursor-plugin/plugin.json": _manifest(),
            f"{PLUGIN}/hooks/hooks.json": CURSOR_HOOKS,
        },
    )
    listed, files, hub = _trip(root)
    assert listed == {} and files[0] == files[1]
    assert [h["event"] for h in hub["hooks"]] == [{"cursor": "stop"}]
    assert "hooks_kept" not in hub


def test_per_plugin_cursor_manifests_beside_the_root_manifest_come_back(tmp_path: Path) -> None:
    """Shape 7: a repository root that is a Cursor plugin keeps each listed plugin's manifest
    in .cursor-plugin/plugins/<name>.json: shipped byte for byte beside the root's own."""
    root = _write(
        tmp_path / "repo",
        {
            ".cursor-plugin/plugin.json": {**_manifest(), "name": "suite"},
            ".cursor-plugin/plugins/kit.json": _manifest(displayName="Kit"),
            ".cursor-plugin/marketplace.json": {
                "name": "suite",
                "owner": {"name": "o"},
                "plugins": [{"name": "kit", "source": "./plugins/kit", "version": "1.0.0"}],
            },
            f"{PLUGIN}/.claude-plugin/plugin.json": _manifest(),
        },
    )
    tree = read_tree(root)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    listed = {item.path: item.reason for item in result.unreproduced}
    assert listed == {} and result.files_same == result.files_total
    # the listed folder is Cursor's too, its marketplace entry standing in for a manifest
    hub = yaml.safe_load(imported.files[f"{PLUGIN}/hub.yaml"][0])
    assert hub["hosts"] == ["claude", "cursor"]
    assert hub["overrides"]["cursor"]["manifest"] is None
