"""`.mcp.json` files as published plugins ship them (issue shape 6), imported and built back
whole: a Codex-only plugin whose manifest names `./.mcp.json`, an empty `.mcp.json`
(`mcp.file`), a server's `"args": []` and `"env": {}`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memhub.compiler.build import build
from memhub.hubspec import load

from tests.compiler.repofiles import trip_with_hub

PLUGIN = "plugins/kit"
MANIFEST = {"name": "kit", "version": "1.0.0", "description": "A kit"}


def _trip(root: Path, files: dict[str, Any]) -> tuple[dict[str, str], tuple[int, int], Any]:
    return trip_with_hub(root, files, "kit")


def test_a_codex_only_manifest_naming_mcp_json_gets_it_back(tmp_path: Path) -> None:
    servers = {"mcpServers": {"vault": {"command": "/opt/vault-mcp", "args": []}}}
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.codex-plugin/plugin.json": {**MANIFEST, "mcpServers": "./.mcp.json"},
            f"{PLUGIN}/.mcp.json": servers,
        },
    )
    assert listed == {} and files[0] == files[1]
    assert hub["hosts"] == ["codex"]
    assert hub["mcp"]["servers"]["vault"]["command"] == "/opt/vault-mcp"


def test_the_codex_adapter_writes_the_mcp_json_its_manifest_names(tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text(
        "version: 1\nplugin: {name: k, version: 1.0.0, description: d}\n"
        "marketplace: {name: m, owner: {name: o}}\nhosts: [codex]\n"
        "mcp: {servers: {s: {command: srv}}}\n"
        "overrides: {codex: {manifest: {mcpServers: ./.mcp.json}}}\n"
    )
    built = build(load(tmp_path))
    mcp = built.artifact("plugins/k/.mcp.json")
    assert mcp is not None
    assert json.loads(mcp.content) == {"mcpServers": {"s": {"type": "stdio", "command": "srv"}}}
    manifest = built.artifact("plugins/k/.codex-plugin/plugin.json")
    assert manifest is not None
    assert json.loads(manifest.content)["mcpServers"] == "./.mcp.json"


def test_an_empty_mcp_json_comes_back(tmp_path: Path) -> None:
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.claude-plugin/plugin.json": MANIFEST,
            f"{PLUGIN}/.mcp.json": {"mcpServers": {}},
        },
    )
    assert listed == {} and files[0] == files[1]
    assert hub["mcp"] == {"servers": {}, "file": True}


def test_empty_env_and_args_come_back(tmp_path: Path) -> None:
    server = {"type": "stdio", "command": "uvx", "args": [], "_docs": "d", "env": {}}
    listed, files, _ = _trip(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.claude-plugin/plugin.json": MANIFEST,
            f"{PLUGIN}/.mcp.json": {"mcpServers": {"serena": server}},
        },
    )
    assert listed == {} and files[0] == files[1]


def test_an_editor_svg_icon_beside_other_assets_comes_back(tmp_path: Path) -> None:
    """A manifest-named SVG icon with the DOCTYPE line SVG editors write, beside other files
    in assets/: the icon is the hub's `plugin.icon`, the rest ship one by one."""
    doctype = (
        '<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><circle r="1"/></svg>\n'
    )
    root = tmp_path / "repo"
    (root / PLUGIN / "assets").mkdir(parents=True)
    (root / PLUGIN / "assets/icon.svg").write_text(doctype)
    (root / PLUGIN / "assets/logo.svg").write_text(doctype)
    interface = {"displayName": "Kit", "logo": "./assets/icon.svg"}
    listed, files, hub = _trip(
        root, {f"{PLUGIN}/.codex-plugin/plugin.json": {**MANIFEST, "interface": interface}}
    )
    assert listed == {} and files[0] == files[1]
    assert hub["plugin"]["icon"] == "assets/icon.svg"
