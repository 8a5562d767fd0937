"""Shapes of published plugin repositories whose import wrote a hub its own build refused
(the whole repository lost): each now comes back, and its written hub builds."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_links import KEPT_NOT
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import RoundTrip, round_trip

from tests.compiler.test_import_invariant import manifest, write

SKILL = "---\nname: s\ndescription: Use it.\n---\nBody\n"


def trip(tmp_path: Path, files: dict[str, Any]) -> RoundTrip:
    tree = read_tree(write(tmp_path / "repo", files))
    return round_trip(tree, import_repo(tree))


def written_hub_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    """Import tmp_path/repo with --yes, then `memhub build` the written hub: its exit code."""
    repo, hub = tmp_path / "repo", tmp_path / "hub"
    assert main(["import", "--from-repo", str(repo), "--into", str(hub), "--yes"]) in (0, 1)
    code = main(["build", str(hub), "--out", str(tmp_path / "out")])
    capsys.readouterr()
    return code


def whole(result: RoundTrip) -> tuple[list[tuple[str, str]], int, int]:
    rows = [(u.path, u.reason) for u in result.unreproduced]
    return rows, result.files_same, result.files_total


def test_a_marketplace_in_a_sub_folder_listing_its_own_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = [{"name": "p", "source": "./"}]
    files = {
        "sub/.claude-plugin/marketplace.json": {
            "name": "m",
            "owner": {"name": "o"},
            "plugins": listed,
        },
        "sub/.claude-plugin/plugin.json": manifest("p"),
        "sub/skills/s/SKILL.md": SKILL,
    }
    assert whole(trip(tmp_path, files)) == ([], 3, 3)
    assert written_hub_builds(tmp_path, capsys) == 0
    built = json.loads((tmp_path / "out/sub/.claude-plugin/marketplace.json").read_text())
    assert built["plugins"][0]["source"] == "./"


def test_an_mcp_server_whose_url_comes_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servers = {
        "svc": {"type": "http", "url": "${SVC_MCP_URL}"},
        "dflt": {"type": "http", "url": "${X:-https://a.example}/mcp"},
    }
    files = {".claude-plugin/plugin.json": manifest("p"), ".mcp.json": {"mcpServers": servers}}
    assert whole(trip(tmp_path, files)) == ([], 2, 2)
    assert written_hub_builds(tmp_path, capsys) == 0
    built = json.loads((tmp_path / "out/.mcp.json").read_text())
    assert built["mcpServers"]["svc"]["url"] == "${SVC_MCP_URL}"


def test_a_manifest_named_icon_beside_other_assets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        ".claude-plugin/plugin.json": manifest("p", logo="./assets/icon.svg"),
        "assets/icon.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n",
        "assets/banner.png": "png\n",
    }
    assert whole(trip(tmp_path, files)) == ([], 3, 3)
    assert written_hub_builds(tmp_path, capsys) == 0


def test_a_link_to_a_file_the_import_leaves_out_ships_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`.agy/plugin.json -> ../plugin.json`, a plugin.json the import cannot give back: the
    link would dangle in the build, so its target's bytes ship at its path instead."""
    files = {
        ".claude-plugin/plugin.json": manifest("p"),
        ".codex-plugin/plugin.json": manifest("p"),
        "plugin.json": {"description": "no manifest of any host: it has no name"},
        ".agy/plugin.json": ("link", "../plugin.json"),
    }
    rows, same, total = whole(trip(tmp_path, files))
    assert dict(rows)[".agy/plugin.json"] == KEPT_NOT
    assert "neither an Agent Plugins package" in dict(rows)["plugin.json"]
    assert (same, total) == (2, 3)  # a link counts among the links, not the files
    assert written_hub_builds(tmp_path, capsys) == 0
    assert json.loads((tmp_path / "out/.agy/plugin.json").read_text()) == {
        "description": "no manifest of any host: it has no name"
    }


def test_a_plugin_json_without_a_description(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        ".claude-plugin/plugin.json": {"name": "p", "version": "1.0.0"},
        ".cursor-plugin/plugin.json": {"name": "p"},
        "README.md": "p\n",
    }
    assert whole(trip(tmp_path, files)) == ([], 3, 3)
    assert written_hub_builds(tmp_path, capsys) == 0


def test_a_skill_md_that_is_a_link_keeps_the_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        ".claude-plugin/plugin.json": manifest("p"),
        "SKILL.md": SKILL,
        "skills/s/SKILL.md": ("link", "../../SKILL.md"),
    }
    rows, same, total = whole(trip(tmp_path, files))
    assert rows == [("skills/s/SKILL.md", KEPT_NOT)]  # the link: its bytes come back
    assert (same, total) == (2, 2)
    assert written_hub_builds(tmp_path, capsys) == 0
    assert (tmp_path / "out/skills/s/SKILL.md").read_text() == SKILL


@pytest.mark.parametrize("value", ["Bearer <your-token>", "ApiKey {your-api-key}"])
def test_a_placeholder_credential_in_an_mcp_header(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = {"type": "http", "url": "https://e.example/mcp", "headers": {"Authorization": value}}
    files = {
        ".claude-plugin/plugin.json": manifest("p"),
        ".mcp.json": {"mcpServers": {"e": server}},
    }
    assert whole(trip(tmp_path, files)) == ([], 2, 2)
    assert written_hub_builds(tmp_path, capsys) == 0


def test_a_plugin_folder_under_a_dot_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = [{"name": "x", "source": "./.github/plugins/x"}]
    files = {
        ".claude-plugin/marketplace.json": {"name": "m", "owner": {"name": "o"}, "plugins": listed},
        ".github/plugins/x/.claude-plugin/plugin.json": manifest("x"),
        ".github/plugins/x/skills/s/SKILL.md": SKILL,
    }
    assert whole(trip(tmp_path, files)) == ([], 3, 3)
    assert written_hub_builds(tmp_path, capsys) == 0
    assert (tmp_path / "out/.github/plugins/x/skills/s/SKILL.md").read_text() == SKILL


def test_one_plugin_name_in_two_hosts_marketplaces_in_different_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Which folder wins is another part of the issue; the import writes a hub that builds."""
    codex_entry = {
        "name": "p",
        "source": {"source": "local", "path": "./codex/p"},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": "x",
    }
    files = {
        ".claude-plugin/marketplace.json": {
            "name": "m",
            "owner": {"name": "o"},
            "plugins": [{"name": "p", "source": "./claude/p"}],
        },
        ".agents/plugins/marketplace.json": {"name": "m", "plugins": [codex_entry]},
        "claude/p/.claude-plugin/plugin.json": manifest("p"),
        "claude/p/skills/a/SKILL.md": SKILL,
        "codex/p/.codex-plugin/plugin.json": manifest("p", skills="./skills/"),
        "codex/p/skills/a/SKILL.md": SKILL.replace("Body", "Other"),
    }
    write(tmp_path / "repo", files)
    assert written_hub_builds(tmp_path, capsys) == 0
    assert os.path.exists(tmp_path / "hub" / "hub.yaml")


@pytest.mark.parametrize("path", [".", "./"])
def test_a_codex_marketplace_in_a_sub_folder_listing_its_own_folder(
    path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = {
        "name": "p",
        "source": {"source": "local", "path": path},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": "Coding",
    }
    files = {
        "sub/.agents/plugins/marketplace.json": {"name": "m", "plugins": [entry]},
        "sub/.codex-plugin/plugin.json": manifest("p", skills="./skills/"),
        "sub/skills/s/SKILL.md": SKILL,
    }
    assert whole(trip(tmp_path, files)) == ([], 3, 3)
    assert written_hub_builds(tmp_path, capsys) == 0
