"""A remote server whose `url` is empty (a placeholder the user fills in, which Claude Code
loads as it is: `claude plugin validate --json` provides it with target ""): the hub holds
`url: ""` and the build writes it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import load
from memhub.hubspec.errors import HubError

PLUGIN = "plugins/kit"
MANIFEST = {"name": "kit", "version": "1.0.0", "description": "A kit"}
SERVERS = {
    "mcpServers": {
        "mail": {"type": "http", "url": ""},
        "docs": {"type": "http", "url": "https://docs.example/mcp"},
    }
}


def test_an_empty_server_url_comes_back(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for rel, content in {
        f"{PLUGIN}/.claude-plugin/plugin.json": MANIFEST,
        f"{PLUGIN}/.mcp.json": SERVERS,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(content, indent=2) + "\n")
    tree = read_tree(root)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    assert [(u.path, u.reason) for u in result.unreproduced] == []
    assert result.files_same == result.files_total
    hub = yaml.safe_load(imported.files[f"{PLUGIN}/hub.yaml"][0])
    assert hub["mcp"]["servers"]["mail"] == {"url": ""}


def test_the_hub_loads_an_empty_url_and_refuses_a_bare_word(tmp_path: Path) -> None:
    head = (
        "version: 1\nplugin: {name: k, version: 1.0.0, description: d}\n"
        "marketplace: {name: m, owner: {name: o}}\nhosts: [claude]\n"
    )
    (tmp_path / "hub.yaml").write_text(head + "mcp: {servers: {s: {url: ''}}}\n")
    mcp = build(load(tmp_path)).artifact("plugins/k/.mcp.json")
    assert mcp is not None
    assert json.loads(mcp.content)["mcpServers"]["s"]["url"] == ""
    (tmp_path / "hub.yaml").write_text(head + "mcp: {servers: {s: {url: mail}}}\n")
    with pytest.raises(HubError, match="is not an http"):
        load(tmp_path)


def test_a_server_name_with_a_space_comes_back_for_claude(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    servers = {"mcpServers": {"google calendar": {"type": "http", "url": ""}}}
    for rel, content in {
        f"{PLUGIN}/.claude-plugin/plugin.json": MANIFEST,
        f"{PLUGIN}/.mcp.json": servers,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(content, indent=2) + "\n")
    tree = read_tree(root)
    result = round_trip(tree, import_repo(tree))
    assert [(u.path, u.reason) for u in result.unreproduced] == []
    assert result.files_same == result.files_total


def test_a_server_name_with_a_space_is_refused_for_other_hosts(tmp_path: Path) -> None:
    head = (
        "version: 1\nplugin: {name: k, version: 1.0.0, description: d}\n"
        "marketplace: {name: m, owner: {name: o}}\n"
    )
    servers = "mcp: {servers: {'google calendar': {url: 'https://c.example/mcp'}}}\n"
    (tmp_path / "hub.yaml").write_text(head + "hosts: [claude, codex]\n" + servers)
    with pytest.raises(HubError, match="only Claude Code loads"):
        load(tmp_path)
    (tmp_path / "hub.yaml").write_text(head + "hosts: [claude]\n" + servers)
    mcp = build(load(tmp_path)).artifact("plugins/k/.mcp.json")
    assert mcp is not None and "google calendar" in json.loads(mcp.content)["mcpServers"]
