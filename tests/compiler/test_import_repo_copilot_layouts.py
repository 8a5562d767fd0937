"""`memhub import --from-repo` of GitHub Copilot CLI's own layouts, kept in place byte for byte
(`plugin.copilot_manifest`): a plugin folder with `plugin.json` at its root and the marketplace
in `.github/plugin/`, a repository that is one root `plugin.json`, a root plugin listed under
another name, a plugin folder holding both manifests, and `.github/plugin/plugin.json` inside
the plugin folder under a `pluginRoot`. Each fixture is a few small files written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo import ELSEWHERE
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import load
from memhub.hubspec.errors import HubError

from tests.compiler.repofiles import write_repo as write

MARKET = ".github/plugin/marketplace.json"
SKILL = "---\nname: tidy\ndescription: Tidy up.\n---\nTidy.\n"
HOOKS = {"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "node boot.mjs"}]}}


def trip(repo: Path) -> tuple[dict[str, str], tuple[int, int], list[str]]:
    """What the import cannot give back, (files given back, files), and every built path."""
    tree = read_tree(repo)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    listed = {item.path: item.reason for item in result.unreproduced}
    return listed, (result.files_same, result.files_total), sorted(tree)


def market(*entries: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {
        "name": "shelf",
        "owner": {"name": "Ann"},
        "metadata": {"description": "Copilot plugins", **metadata},
        "plugins": list(entries),
    }


def hub_yaml(into: Path, folder: str) -> dict[str, Any]:
    return dict(yaml.safe_load((into / folder / "hub.yaml").read_text()))


def test_plugin_json_at_a_plugin_folders_root_stays_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Copilot's layout: plugins/x/plugin.json, its hooks named without `./`, extra keys, and
    the marketplace pointing at the folder. Before: moved to copilot/<name>/, the marketplace
    rewritten to the copy and `hooks` dropped."""
    manifest = {
        "name": "voice",
        "version": "0.3.1",
        "description": "Talk to it",
        "category": "productivity",
        "extensions": ["."],
        "hooks": "hooks.json",
    }
    repo = write(
        tmp_path / "repo",
        {
            MARKET: market({"name": "voice", "source": "./plugins/voice", "version": "0.3.1"}),
            "plugins/voice/plugin.json": manifest,
            "plugins/voice/hooks.json": HOOKS,
            "plugins/voice/extension.mjs": "export default {}\n",
            "plugins/voice/skills/tidy/SKILL.md": SKILL,
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))
    into = tmp_path / "hub"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    capsys.readouterr()
    hub = hub_yaml(into, "plugins/voice")
    assert hub["plugin"]["copilot_manifest"] == "plugin.json"
    assert hub["hosts"] == ["copilot"]
    assert hub["overrides"]["copilot"]["manifest"]["hooks"] == "hooks.json"
    assert not (into / "copilot").exists()


def test_a_repository_that_is_one_root_plugin_json_is_one_plugin(tmp_path: Path) -> None:
    """A lone Copilot root plugin.json, no marketplace: before, 'no plugin found'."""
    repo = write(
        tmp_path / "repo",
        {
            "plugin.json": {
                "name": "ps-helper",
                "description": "PowerShell helper",
                "version": "1.0.0",
                "skills": ["./skills/tidy"],
            },
            "README.md": "# ps-helper\n",
            "skills/tidy/SKILL.md": SKILL,
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))
    ((hub, into),) = import_repo(read_tree(repo)).plugins
    assert (hub.folder, into, hub.copilot_manifest) == ("", "ps-helper", "plugin.json")


def test_a_root_plugin_listed_under_another_name_and_version(tmp_path: Path) -> None:
    """A Copilot-only marketplace listing the repository itself (`source: "."`) by another
    name than its manifest's, whose version is no semantic version (`v2.0.3`): before, the
    hub did not build ('names a folder of this bundle, but no plugin hub', the version)."""
    repo = write(
        tmp_path / "repo",
        {
            MARKET: market(
                {"name": "repo-check", "source": ".", "version": "2.0.0", "quality": {"a": 1}}
            ),
            "plugin.json": {
                "name": "enablement",
                "description": "Enablement kit",
                "version": "v2.0.3",
                "agents": "agents/",
            },
            "docs/notes.md": "notes\n",
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))


def test_a_folder_with_both_copilot_manifests_builds(tmp_path: Path) -> None:
    """plugins/x/plugin.json and plugins/x/.github/plugin/plugin.json: Copilot reads the
    root one (the hub's copilot_manifest), the other ships as it is. Before, the hub's build
    failed: 'copilot and copilot generate different contents. this is a memhub bug'."""
    manifest = {"name": "scan", "description": "Scan", "version": "1.9.0", "skills": ["./skills/"]}
    repo = write(
        tmp_path / "repo",
        {
            MARKET: market({"name": "scan", "source": "./plugins/scan", "description": "Scan"}),
            "plugins/scan/plugin.json": manifest,
            "plugins/scan/.github/plugin/plugin.json": manifest,
            "plugins/scan/LICENSE": "MIT\n",
            "plugins/scan/skills/tidy/SKILL.md": SKILL,
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))
    ((hub, _),) = import_repo(read_tree(repo)).plugins
    assert hub.copilot_manifest == "plugin.json"
    assert ".github/plugin/plugin.json" in hub.shipped


def test_github_manifest_in_plugin_folders_under_a_plugin_root(tmp_path: Path) -> None:
    """plugins/<name>/.github/plugin/plugin.json, listed as bare names under
    `metadata.pluginRoot`: each plugin stays in its folder, the sources as written."""
    files: dict[str, Any] = {
        MARKET: market(
            {"name": "bb", "source": "bb", "description": "Babashka"},
            {"name": "clj", "source": "clj", "description": "Clojure"},
            pluginRoot="./plugins",
        ),
    }
    for name in ("bb", "clj"):
        files[f"plugins/{name}/.github/plugin/plugin.json"] = {
            "name": name,
            "description": "Babashka" if name == "bb" else "Clojure",
            "version": "0.1.2",
            "skills": [f"./skills/{name}"],
        }
        files[f"plugins/{name}/skills/{name}/SKILL.md"] = SKILL.replace("tidy", name)
    listed, counted, paths = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (len(paths), len(paths))


def test_a_plugin_json_that_is_no_manifest_says_why(tmp_path: Path) -> None:
    """A plugin.json beside a Claude manifest that Copilot cannot read (no `name`): listed
    with that cause, not as 'an Agent Plugins plugin.json beside .codex-plugin'."""
    repo = write(
        tmp_path / "repo",
        {
            ".claude-plugin/plugin.json": {"name": "p", "version": "1.0.0", "description": "P"},
            "plugin.json": {"settings": {"a": 1}},
        },
    )
    listed, _, _ = trip(repo)
    assert listed == {"plugin.json": ELSEWHERE["plugin.json"]}
    assert "Copilot CLI manifest" in ELSEWHERE["plugin.json"]


HUB = """version: 1
plugin: {name: demo, version: 1.0.0, description: d, copilot_manifest: %s%s}
marketplace: {name: m, owner: {name: o}}
hosts: [copilot]
"""


def _built(tmp_path: Path, manifest: str, extra: str = "") -> dict[str, Any]:
    (tmp_path / "hub.yaml").write_text(HUB % (manifest, extra))
    return {a.path: a for a in build(load(tmp_path)).artifacts}


def test_the_build_writes_the_manifest_in_the_plugins_own_folder(tmp_path: Path) -> None:
    built = _built(tmp_path, "plugin.json")
    assert "plugins/demo/plugin.json" in built
    assert not any(path.startswith("copilot/") for path in built)
    listing = json.loads(built[MARKET].content)
    assert listing["plugins"][0]["source"] == "./plugins/demo"


def test_a_root_plugin_is_listed_as_the_repository_itself(tmp_path: Path) -> None:
    built = _built(tmp_path, ".github/plugin/plugin.json", ", path: tools/demo")
    assert "tools/demo/.github/plugin/plugin.json" in built
    (tmp_path / "hub.yaml").write_text(HUB % ("plugin.json", ", path: ."))
    root = {a.path: a for a in build(load(tmp_path)).artifacts}
    assert "plugin.json" in root
    assert json.loads(root[MARKET].content)["plugins"][0]["source"] == "./"


def test_copilot_reads_a_shared_agent_plugins_package(tmp_path: Path) -> None:
    """copilot_manifest: plugin.json with agent_plugins_folder: shared is the package's own
    plugin.json (Copilot's second place): one file, written by Agent Plugins alone; without
    agent-plugins among the hosts nothing would write it, which the loader says."""
    (tmp_path / "hub.yaml").write_text(HUB % ("plugin.json", ", agent_plugins_folder: shared"))
    with pytest.raises(HubError) as caught:
        load(tmp_path)
    assert "add agent-plugins to hosts" in str(caught.value)
    text = HUB.replace("hosts: [copilot]", "hosts: [copilot, agent-plugins]")
    (tmp_path / "hub.yaml").write_text(text % ("plugin.json", ", agent_plugins_folder: shared"))
    result = build(load(tmp_path))
    manifest = result.artifact("plugins/demo/plugin.json")
    assert manifest is not None and manifest.owners == ("agent-plugins",)
    listing = json.loads(result.artifact(MARKET).content)  # type: ignore[union-attr]
    assert listing["plugins"][0]["source"] == "./plugins/demo"


def test_a_copilot_marketplace_beside_claudes_is_written_back(tmp_path: Path) -> None:
    """One Claude Code plugin folder listed by both hosts' marketplaces: Copilot loads it
    through .claude-plugin/plugin.json. Before, the Copilot marketplace was not written
    ('the build does not write it')."""
    listing = market({"name": "eyes", "source": "./", "description": "Review"})
    repo = write(
        tmp_path / "repo",
        {
            MARKET: listing,
            ".claude-plugin/marketplace.json": listing,
            ".claude-plugin/plugin.json": {"name": "eyes", "version": "4.2.0", "description": "R"},
            "skills/tidy/SKILL.md": SKILL,
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))
    ((hub, _),) = import_repo(read_tree(repo)).plugins
    assert hub.copilot_manifest == ".claude-plugin/plugin.json"


def test_through_claude_writes_no_copilot_manifest_and_says_so(tmp_path: Path) -> None:
    text = HUB.replace("hosts: [copilot]", "hosts: [claude, copilot]")
    text += "mcp:\n  servers:\n    s: {command: srv}\n"
    (tmp_path / "hub.yaml").write_text(text % (".claude-plugin/plugin.json", ""))
    result = build(load(tmp_path))
    paths = {a.path for a in result.artifacts}
    assert "plugins/demo/.claude-plugin/plugin.json" in paths
    assert not any(
        "copilot" in p or (p.endswith("/plugin.json") and ".claude" not in p) for p in paths
    )
    listing = json.loads(result.artifact(MARKET).content)  # type: ignore[union-attr]
    assert listing["plugins"][0]["source"] == "./plugins/demo"
    (row,) = [r for r in result.coverage if r.host == "copilot" and r.component == "mcp"]
    assert row.status == "caveat" and "through Claude Code's manifest" in row.reason


def test_through_claude_needs_claude_among_the_hosts(tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text(HUB % (".claude-plugin/plugin.json", ""))
    with pytest.raises(HubError) as caught:
        load(tmp_path)
    assert "add claude to hosts" in str(caught.value)


def test_a_dot_plugin_manifest_naming_its_mcp_file_stays_in_place(tmp_path: Path) -> None:
    """`.plugin/plugin.json`, the first place Copilot looks, whose `mcpServers` names the
    folder's `.mcp.json` (Claude Code's too: its marketplace lists the folder): read in place,
    the file name kept as written. Before, the import said "its `mcpServers` is not an
    object" and moved the plugin to copilot/<name>/."""
    listing = market({"name": "graf", "source": "./tools/graf", "description": "G"})
    repo = write(
        tmp_path / "repo",
        {
            MARKET: listing,
            ".claude-plugin/marketplace.json": listing,
            "tools/graf/.plugin/plugin.json": {
                "name": "graf",
                "description": "G",
                "version": "1.0.0",
                "skills": "./skills/",
                "mcpServers": "./.mcp.json",
            },
            "tools/graf/.mcp.json": {"mcpServers": {"graf": {"command": "graf-mcp"}}},
            "tools/graf/skills/tidy/SKILL.md": SKILL,
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))
    ((hub, _),) = import_repo(read_tree(repo)).plugins
    assert hub.copilot_manifest == ".plugin/plugin.json"


def test_a_copilot_marketplace_listing_agent_plugins_packages(tmp_path: Path) -> None:
    """A Copilot marketplace listing folders that hold only an Agent Plugins package (bare
    `plugins/x` sources): Copilot reads the package's plugin.json. Before, the import said
    'copilot needs one, so memhub writes it' and the build wrote copilot/<name>/ copies."""
    package = {
        "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
        "name": "kanban",
        "description": "Kanban",
        "version": "1.0.2",
    }
    repo = write(
        tmp_path / "repo",
        {
            MARKET: market({"name": "kanban", "source": "plugins/kanban", "description": "K"}),
            "plugins/kanban/plugin.json": package,
            "plugins/kanban/README.md": "# Kanban\n",
        },
    )
    listed, files, paths = trip(repo)
    assert listed == {}
    assert files == (len(paths), len(paths))
    tree = read_tree(repo)
    imported = import_repo(tree)
    ((hub, _),) = imported.plugins
    assert (hub.copilot_manifest, hub.shared_package) == ("plugin.json", True)


def test_a_copilot_manifest_naming_its_mcp_file_gets_it_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`"mcpServers": ".mcp.json"` in a Copilot-only plugin: the Copilot adapter writes the
    file (copilot 1.0.102 loads the servers from it); it was lost, and its servers with it."""
    servers = {"mcpServers": {"aws": {"type": "http", "url": "https://aws.example/mcp"}}}
    manifest = {"name": "aws", "description": "AWS.", "mcpServers": ".mcp.json"}
    files = {
        MARKET: market({"name": "aws", "source": "./plugins/aws", "description": "AWS."}),
        "plugins/aws/plugin.json": manifest,
        "plugins/aws/.mcp.json": servers,
        "plugins/aws/skills/tidy/SKILL.md": SKILL,
    }
    listed, (same, total), _ = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert same == total == 4
    into, out = tmp_path / "hub", tmp_path / "out"
    assert (
        main(["import", "--from-repo", str(tmp_path / "repo"), "--into", str(into), "--yes"]) == 0
    )
    assert main(["build", str(into), "--out", str(out)]) == 0
    capsys.readouterr()
    assert json.loads((out / "plugins/aws/.mcp.json").read_text()) == servers


def test_a_copilot_marketplace_in_a_sub_folder_listing_its_own_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sub/.github/plugin/marketplace.json` listing `./` beside `sub/.claude-plugin/`: the
    marketplace hub writes it, so the plugin hub no longer ships it as a plain file too
    (the build said 'claude, copilot and copilot generate different contents', and the
    import was refused; found by the property test)."""
    listing = {
        "name": "market",
        "owner": {"name": "o"},
        "plugins": [{"name": "alpha", "source": "./"}],
    }
    files = {
        "sub/.claude-plugin/plugin.json": {"name": "alpha", "version": "1.0.0", "description": "d"},
        f"sub/{MARKET}": json.dumps(listing),  # on one line: other bytes than memhub writes
    }
    repo, into, out = write(tmp_path / "repo", files), tmp_path / "hub", tmp_path / "out"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    capsys.readouterr()
    assert json.loads((out / "sub" / MARKET).read_text()) == listing
